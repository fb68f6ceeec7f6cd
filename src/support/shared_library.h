// Libraries opened at run time with dlopen: the GPU drivers, loaders and
// runtime compilers that Tack uses where they exist and names where they
// do not. A library is opened for the life of the process, never closed.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace tack::support {

// The first of `names` (sonames or paths) that the dynamic loader opens;
// null otherwise, with every name tried appended to `tried`.
void* open_first(std::initializer_list<const char*> names, std::vector<std::string>* tried = nullptr);
void* open_first(const std::vector<std::string>& names, std::vector<std::string>* tried = nullptr);

// `symbol` in `library`, or null.
void* find_symbol(void* library, const char* symbol);

// "a, b or c".
std::string listed(const std::vector<std::string>& names);

}  // namespace tack::support
