// The disk cache's folders and files: the root folder and its version
// folders, the marker that makes a folder Tack's, reading regular files
// without blocking, replacing files atomically, telling Tack's entries and
// temporaries by name and header, and evicting least recently used entries
// under the size cap (TACK_CACHE_MAX_BYTES). What an entry holds is
// disk_cache.cpp's.
#include "driver/cache_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <mutex>
#include <vector>

#include "driver/disk_cache.h"

#ifdef TACK_WITH_LLVM
#include <llvm/Config/llvm-config.h>
#endif

#ifndef TACK_VERSION
#define TACK_VERSION "unknown"
#endif

namespace tack::driver {

namespace {

constexpr uint64_t kDefaultCap = uint64_t{256} << 20;

// A byte count: decimal digits, optionally followed by K, M or G (binary
// multiples, either case). No sign, spaces, fractions or "B", so that a
// typo never passes for a cap.
std::optional<uint64_t> parse_byte_count(const char* text) {
    const char* p = text;
    if (*p < '0' || *p > '9') return std::nullopt;
    uint64_t value = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
        uint64_t digit = static_cast<uint64_t>(*p - '0');
        if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    int shift = 0;
    switch (*p) {
        case 'k': case 'K': shift = 10; ++p; break;
        case 'm': case 'M': shift = 20; ++p; break;
        case 'g': case 'G': shift = 30; ++p; break;
        default: break;
    }
    if (*p != '\0' || value > (UINT64_MAX >> shift)) return std::nullopt;
    return value << shift;
}

// TACK_CACHE_MAX_BYTES, read at every store since the environment may
// change. Unset or empty means the default; anything that is not a byte
// count is warned about (once per value) and means the default too.
uint64_t size_cap() {
    const char* v = std::getenv("TACK_CACHE_MAX_BYTES");
    if (!v || !*v) return kDefaultCap;
    if (auto cap = parse_byte_count(v)) return *cap;
    static std::mutex mutex;
    static std::string warned;
    std::lock_guard<std::mutex> lock(mutex);
    if (warned != v) {
        warned = v;
        std::fprintf(stderr,
                     "tack: TACK_CACHE_MAX_BYTES='%s' is not a byte count (digits, optionally followed by K, M "
                     "or G); using the default, %llu bytes\n",
                     v, static_cast<unsigned long long>(kDefaultCap));
    }
    return kDefaultCap;
}

// The marker that makes a version folder Tack's (the Cache Directory
// Tagging format, so backup tools skip it too). Only marked folders are
// ever evicted from or cleared.
constexpr char kMarkerName[] = "CACHEDIR.TAG";

std::string marker_head(uint32_t format) {
    return "Signature: 8a477f597d28d172789f06886806bc55\n# Tack disk cache, entry format " + std::to_string(format) +
           "\n";
}

std::string marker_text() {
    return marker_head(kFormat) +
           "# Tack wrote this folder's entries and deletes only those (docs/caching.md).\n";
}

bool write_all(int fd, const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        done += static_cast<size_t>(put);
    }
    return true;
}

// The format of a version folder's name ("v1-0.1.0-llvm19"), if it is one.
std::optional<uint32_t> folder_format(const char* name) {
    if (name[0] != 'v' || name[1] < '0' || name[1] > '9') return std::nullopt;
    uint64_t format = 0;
    const char* p = name + 1;
    for (; *p >= '0' && *p <= '9' && format <= UINT32_MAX; ++p) format = format * 10 + static_cast<uint64_t>(*p - '0');
    if (*p != '-' || format > UINT32_MAX) return std::nullopt;
    return static_cast<uint32_t>(format);
}

bool marked(const std::string& folder, uint32_t format) {
    std::string head = marker_head(format);
    auto text = read_head(folder + "/" + kMarkerName, head.size());
    return text && *text == head;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// "<32 hex digits>.tk" or "<32 hex digits>-<n>.tk": an entry's name, whose
// digits are its key.
bool entry_name(const char* name, std::array<uint8_t, 16>* key) {
    for (size_t i = 0; i < 16; ++i) {
        int high = hex_digit(name[2 * i]);
        int low = high < 0 ? -1 : hex_digit(name[2 * i + 1]);
        if (low < 0) return false;
        (*key)[i] = static_cast<uint8_t>(high * 16 + low);
    }
    const char* p = name + 32;
    if (*p == '-') {
        if (p[1] < '0' || p[1] > '9') return false;
        for (++p; *p >= '0' && *p <= '9'; ++p) {
        }
    }
    return std::strcmp(p, ".tk") == 0;
}

// "." + an entry's name + ".tmp.<pid>.<n>": replace_file's temporaries
// (earlier builds left out the ".tk").
bool temporary_name(const char* name) {
    std::array<uint8_t, 16> key;
    if (name[0] != '.') return false;
    const char* tmp = std::strstr(name, ".tmp.");
    if (!tmp) return false;
    std::string entry(name + 1, tmp);
    if (entry.size() == 32) entry += ".tk";
    return entry_name(entry.c_str(), &key);
}

// Whether the file at `path` is an entry of `format` with `key` as its
// header says: the check before eviction deletes anything.
bool tacks_entry(const std::string& path, uint32_t format, const std::array<uint8_t, 16>& key) {
    auto head = read_head(path, kHeaderSize);
    if (!head || head->size() < kHeaderSize || std::memcmp(head->data(), kMagic, sizeof kMagic) != 0) return false;
    uint32_t f;
    std::memcpy(&f, head->data() + sizeof kMagic, sizeof f);
    return f == format && std::memcmp(head->data() + kKeyOffset, key.data(), key.size()) == 0;
}

// A temporary is written header first: Tack's holds a prefix of the magic.
bool tacks_temporary(const std::string& path) {
    auto head = read_head(path, sizeof kMagic);
    return head && std::memcmp(head->data(), kMagic, head->size()) == 0;
}

// Deletes the least recently used entries of every marked version folder
// until the cache fits its cap, never `keep`. Temporary files of writers
// that died are removed once they are an hour old. Nothing is deleted that
// the cache did not write: files are entries by their name and header, in
// folders that carry Tack's marker. Returns the cache's size afterwards.
uint64_t evict(const std::string& root, uint64_t cap, const std::string& keep,
               const std::function<void(const std::string&)>& evicted) {
    struct File {
        std::string path;
        uint64_t size;
        timespec used;
        uint32_t format;
        std::array<uint8_t, 16> key;
    };
    std::vector<File> entries;
    uint64_t total = 0;
    time_t now = std::time(nullptr);
    DIR* top = ::opendir(root.c_str());
    if (!top) return 0;
    while (dirent* d = ::readdir(top)) {
        auto format = folder_format(d->d_name);
        std::string folder = root + "/" + d->d_name;
        if (!format || !marked(folder, *format)) continue;
        DIR* sub = ::opendir(folder.c_str());
        if (!sub) continue;
        while (dirent* f = ::readdir(sub)) {
            std::string path = folder + "/" + f->d_name;
            struct stat st;
            if (temporary_name(f->d_name)) {
                if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtim.tv_sec > 3600 &&
                    tacks_temporary(path))
                    ::unlink(path.c_str());
                continue;
            }
            std::array<uint8_t, 16> key;
            if (!entry_name(f->d_name, &key) || ::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
            entries.push_back(File{path, static_cast<uint64_t>(st.st_size), st.st_mtim, *format, key});
            total += static_cast<uint64_t>(st.st_size);
        }
        ::closedir(sub);
    }
    ::closedir(top);
    if (total <= cap) return total;
    // Reading headers costs a file each, so only once something must go.
    std::vector<File> ours;
    for (auto& e : entries) {
        if (tacks_entry(e.path, e.format, e.key))
            ours.push_back(std::move(e));
        else
            total -= e.size;
    }
    std::sort(ours.begin(), ours.end(), [](const File& a, const File& b) {
        if (a.used.tv_sec != b.used.tv_sec) return a.used.tv_sec < b.used.tv_sec;
        return a.used.tv_nsec < b.used.tv_nsec;
    });
    for (auto& e : ours) {
        if (total <= cap) break;
        if (e.path == keep) continue;
        // Another process may have evicted it already.
        if (::unlink(e.path.c_str()) == 0) evicted(e.path);
        total -= e.size;
    }
    return total;
}

}  // namespace

int open_regular(const std::string& path, struct stat* st) {
    // Without O_NONBLOCK a FIFO in its place would block open() until some
    // writer came.
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool read_exact(int fd, char* out, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t got = ::read(fd, out + done, n - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += static_cast<size_t>(got);
    }
    return true;
}

std::optional<std::string> read_head(const std::string& path, size_t n) {
    struct stat st;
    int fd = open_regular(path, &st);
    if (fd < 0) return std::nullopt;
    std::string head(std::min<uint64_t>(n, static_cast<uint64_t>(st.st_size)), '\0');
    bool ok = read_exact(fd, head.data(), head.size());
    ::close(fd);
    if (!ok) return std::nullopt;
    return head;
}

bool make_folders(const std::string& path) {
    for (size_t i = 1; i <= path.size(); ++i) {
        if (i < path.size() && path[i] != '/') continue;
        std::string prefix = path.substr(0, i);
        if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    return true;
}

bool replace_file(const std::string& folder, const std::string& path, const std::string& bytes, std::string* error) {
    static std::atomic<uint64_t> counter{0};
    std::string temporary = folder + "/." + path.substr(path.rfind('/') + 1) + ".tmp." + std::to_string(::getpid()) +
                            "." + std::to_string(counter++);
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        *error = temporary + ": " + std::strerror(errno);
        return false;
    }
    bool written = write_all(fd, bytes);
    written = ::close(fd) == 0 && written;
    if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
        *error = path + ": " + std::strerror(errno);
        ::unlink(temporary.c_str());
        return false;
    }
    return true;
}

bool ensure_marker(const std::string& folder, std::string* error) {
    std::string path = folder + "/" + kMarkerName;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT && replace_file(folder, path, marker_text(), error);
    if (marked(folder, kFormat)) return true;
    *error = path + ": not Tack's marker";
    return false;
}

// Listing the whole cache after every store would cost more than compiling
// once it holds thousands of entries, so a process lists it at its first
// store, then keeps a running total of what it adds, and lists it again
// when that total passes the cap or after many stores (other processes
// write too).
void evict_if_needed(const std::string& root, uint64_t written, const std::string& keep,
                     const std::function<void(const std::string& path)>& evicted) {
    uint64_t cap = size_cap();
    static std::mutex mutex;
    static bool listed = false;
    static uint64_t estimate = 0;
    static int stores = 0;
    std::lock_guard<std::mutex> lock(mutex);
    estimate += written;
    if (!listed || estimate > cap || ++stores >= 256) {
        estimate = evict(root, cap, keep, evicted);
        listed = true;
        stores = 0;
    }
}

// The root folder's rule, which python/tack/_cache.py's cache_dir() repeats:
// TACK_CACHE_DIR as given; else the first absolute one of XDG_CACHE_HOME,
// HOME and the password database's home directory (a relative or empty
// variable is skipped, so the cache never lands in the working folder);
// else none, and the cache is off.
std::string disk_cache_root() {
    if (const char* dir = std::getenv("TACK_CACHE_DIR"); dir && *dir) return dir;
    // Trailing slashes go, so the folder is spelled as os.path.join spells it.
    auto under = [](std::string base, const char* rest) {
        while (!base.empty() && base.back() == '/') base.pop_back();
        return base + rest;
    };
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return under(xdg, "/tack");
    if (const char* home = std::getenv("HOME"); home && home[0] == '/') return under(home, "/.cache/tack");
    if (passwd* pw = getpwuid(getuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/')
        return under(pw->pw_dir, "/.cache/tack");
    return {};
}

std::string disk_cache_folder() {
#ifdef TACK_WITH_LLVM
    return std::string("v") + std::to_string(kFormat) + "-" TACK_VERSION "-llvm" + std::to_string(LLVM_VERSION_MAJOR);
#else
    return std::string("v") + std::to_string(kFormat) + "-" TACK_VERSION;
#endif
}

}  // namespace tack::driver
