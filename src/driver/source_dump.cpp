#include "driver/source_dump.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "codegen/cfamily/emit_c.h"
#include "syntax/source.h"

namespace tack::driver {

namespace {

using codegen::cfamily::Dialect;

const char* extension(Dialect d) {
    switch (d) {
        case Dialect::Cuda: return ".cu";
        case Dialect::Hip: return ".hip";
        case Dialect::OpenCL: return ".cl";
        case Dialect::Metal: return ".metal";
    }
    return "";
}

// The folder from TACK_EMIT_SOURCES, or empty when dumping is off.
const std::string& dump_root() {
    static const std::string root = [] {
        const char* v = std::getenv("TACK_EMIT_SOURCES");
        return std::string(v ? v : "");
    }();
    return root;
}

std::string hex64(const std::string& bytes) {
    static const char digits[] = "0123456789abcdef";
    uint64_t h = XXH64(bytes.data(), bytes.size(), 0);
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) s[static_cast<size_t>(i)] = digits[h & 15];
    return s;
}

void warn(const std::string& path, const char* what) {
    std::fprintf(stderr, "tack: TACK_EMIT_SOURCES: cannot %s %s: %s\n", what, path.c_str(), std::strerror(errno));
}

// Writes `bytes` to `path` through a temporary in the same folder, so that a
// reader (or a concurrent writer of the same text) never sees part of it.
void write_once(const std::string& folder, const std::string& path, const std::string& bytes) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return;
    if (::mkdir(folder.c_str(), 0777) != 0 && errno != EEXIST) return warn(folder, "make");
    std::string tmp = folder + "/.tmp-XXXXXX";
    int fd = ::mkstemp(tmp.data());
    if (fd < 0) return warn(tmp, "create");
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            warn(tmp, "write");
            ::close(fd);
            ::unlink(tmp.c_str());
            return;
        }
        done += static_cast<size_t>(n);
    }
    ::fchmod(fd, 0644);
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        warn(path, "rename a temporary to");
        ::unlink(tmp.c_str());
    }
}

}  // namespace

void dump_sources(const ir::Kernel& typed, bool debug) {
    const std::string& root = dump_root();
    if (root.empty()) return;
    if (::mkdir(root.c_str(), 0777) != 0 && errno != EEXIST) return warn(root, "make");
    codegen::cfamily::EmitOptions options;
    options.debug = debug;
    for (Dialect d : {Dialect::Cuda, Dialect::Hip, Dialect::OpenCL, Dialect::Metal}) {
        std::string folder = root + "/" + codegen::cfamily::to_string(d);
        std::string text;
        try {
            text = codegen::cfamily::emit_c(typed, d, options).text;
        } catch (const syntax::CompileError&) {
            continue;  // the dialect cannot run this kernel (check_legal)
        } catch (const std::exception& e) {
            std::string ir = ir::print(typed);
            write_once(folder, folder + "/" + hex64(ir) + ".error",
                       std::string("emit_c failed") + (debug ? " (debug variant)" : "") + ": " + e.what() +
                           "\n--- typed IR ---\n" + ir);
            continue;
        }
        write_once(folder, folder + "/" + hex64(text) + extension(d), text);
    }
}

}  // namespace tack::driver
