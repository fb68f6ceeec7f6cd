#include "support/shared_library.h"

#include <dlfcn.h>

namespace tack::support {

void* open_first(const std::vector<std::string>& names, std::vector<std::string>* tried) {
    for (const std::string& name : names) {
        if (name.empty()) continue;
        if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
        if (tried) tried->push_back(name);
    }
    return nullptr;
}

void* open_first(std::initializer_list<const char*> names, std::vector<std::string>* tried) {
    return open_first(std::vector<std::string>(names.begin(), names.end()), tried);
}

void* find_symbol(void* library, const char* symbol) { return library ? dlsym(library, symbol) : nullptr; }

std::string listed(const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
        s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return s;
}

}  // namespace tack::support
