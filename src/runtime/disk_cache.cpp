#include "runtime/disk_cache.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <ctime>
#include <map>

#ifdef TACK_WITH_LLVM
#include <llvm/Config/llvm-config.h>
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

#ifndef TACK_VERSION
#define TACK_VERSION "unknown"
#endif

namespace tack::runtime {

namespace {

using frontend::Resolution;

// ---- Recording resolutions

class RecordingResolver final : public frontend::Resolver {
public:
    struct Name {
        std::vector<std::string> path;
        Resolution answer;  // a device function's answer carries a RecordingResolver
    };

    explicit RecordingResolver(std::shared_ptr<frontend::Resolver> inner) : inner_(std::move(inner)) {}

    Resolution resolve(const std::vector<std::string>& path) override {
        auto it = index_.find(path);
        if (it != index_.end()) return names_[it->second].answer;
        Resolution r = inner_->resolve(path);
        if (r.kind == Resolution::Kind::DeviceFunction && r.function) {
            auto f = std::make_shared<frontend::DeviceFunctionRef>(*r.function);
            f->resolver = std::make_shared<RecordingResolver>(r.function->resolver);
            r.function = std::move(f);
        }
        index_.emplace(path, names_.size());
        names_.push_back(Name{path, r});
        return r;
    }

    const std::vector<Name>& names() const { return names_; }

private:
    std::shared_ptr<frontend::Resolver> inner_;
    std::vector<Name> names_;  // in the order lowering first asked
    std::map<std::vector<std::string>, size_t> index_;
};

// ---- Byte strings

class Writer {
public:
    void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u32(uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void u64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void str(std::string_view s) {
        u64(s.size());
        out_.append(s);
    }
    std::string& bytes() { return out_; }

private:
    std::string out_;
};

// Reads what Writer wrote; any read past the end clears ok() and yields zeros.
class Reader {
public:
    explicit Reader(std::string_view in) : in_(in) {}
    uint8_t u8() { return take<uint8_t>(); }
    uint32_t u32() { return take<uint32_t>(); }
    uint64_t u64() { return take<uint64_t>(); }
    std::string str() {
        uint64_t n = u64();
        if (!ok_ || n > in_.size() - pos_) {
            ok_ = false;
            return {};
        }
        std::string s(in_.substr(pos_, n));
        pos_ += n;
        return s;
    }
    bool ok() const { return ok_; }
    bool at_end() const { return pos_ == in_.size(); }
    size_t pos() const { return pos_; }

private:
    template <typename T>
    T take() {
        T v{};
        if (!ok_ || in_.size() - pos_ < sizeof v) {
            ok_ = false;
            return v;
        }
        std::memcpy(&v, in_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }
    std::string_view in_;
    size_t pos_ = 0;
    bool ok_ = true;
};

// Everything in an answer that lowering reads, as bytes: equal bytes, equal
// lowering. A device function's own names are compared separately.
std::string fingerprint(const Resolution& r) {
    using K = Resolution::Kind;
    Writer w;
    w.u8(static_cast<uint8_t>(r.kind));
    switch (r.kind) {
        case K::Builtin: w.str(r.builtin); break;
        case K::DType: w.u8(static_cast<uint8_t>(r.dtype)); break;
        case K::Constant: {
            w.u8(r.has_dtype);
            w.u8(r.has_dtype ? static_cast<uint8_t>(r.dtype) : 0);
            w.u8(r.is_float);
            // Bit patterns keep signed zeros and NaNs apart.
            uint64_t bits = r.int_bits;
            if (r.is_float) std::memcpy(&bits, &r.float_value, sizeof bits);
            w.u64(bits);
            w.u8(r.is_float ? 0 : r.int_negative);
            w.u32(static_cast<uint32_t>(r.shape.size()));
            for (int e : r.shape) w.u32(static_cast<uint32_t>(e));
            for (auto& c : r.components) w.str(fingerprint(c));
            break;
        }
        case K::DeviceFunction:
            if (r.function) {
                w.str(r.function->name);
                w.str(r.function->source->text);
                w.str(r.function->source->filename);
                w.u32(static_cast<uint32_t>(r.function->source->first_line));
                w.u32(static_cast<uint32_t>(r.function->source->indent));
            }
            break;
        case K::Other: w.str(r.description); break;
        case K::Unbound:
        case K::Module: break;
    }
    return std::move(w.bytes());
}

std::string dotted(const std::vector<std::string>& path) {
    std::string s;
    for (auto& p : path) s += (s.empty() ? "" : ".") + p;
    return s;
}

// Each name: its path, its answer's fingerprint, and for a device function
// the names it resolved itself. False when some device function's names
// were not recorded, which makes the entry unverifiable.
bool write_names(Writer& w, const RecordingResolver& r) {
    w.u32(static_cast<uint32_t>(r.names().size()));
    for (auto& n : r.names()) {
        w.u32(static_cast<uint32_t>(n.path.size()));
        for (auto& p : n.path) w.str(p);
        w.str(fingerprint(n.answer));
        bool callee = n.answer.kind == Resolution::Kind::DeviceFunction && n.answer.function;
        w.u8(callee);
        if (callee) {
            auto* inner = dynamic_cast<const RecordingResolver*>(n.answer.function->resolver.get());
            if (!inner || !write_names(w, *inner)) return false;
        }
    }
    return true;
}

// Each instance's functions, by member name: the names each resolved. A
// nested instance's follow under its name.
bool write_template_names(Writer& w, const frontend::TemplateInfo& t) {
    for (auto& [name, m] : t.members) {
        if (m.object) {
            w.u8(2);
            w.str(name);
            if (!write_template_names(w, *m.object)) return false;
        } else if (m.resolution.kind == Resolution::Kind::DeviceFunction && m.resolution.function) {
            auto* inner = dynamic_cast<const RecordingResolver*>(m.resolution.function->resolver.get());
            if (!inner) return false;
            w.u8(1);
            w.str(name);
            if (!write_names(w, *inner)) return false;
        }
    }
    w.u8(0);
    return true;
}

enum class Check { Same, Different, Corrupt };

Check check_names(Reader& in, frontend::Resolver& resolver, int depth, std::string* why) {
    if (depth > 64) return Check::Corrupt;
    uint32_t count = in.u32();
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
        uint32_t length = in.u32();
        if (!in.ok() || length == 0 || length > 256) return Check::Corrupt;
        std::vector<std::string> path(length);
        for (auto& p : path) p = in.str();
        std::string recorded = in.str();
        bool callee = in.u8() != 0;
        if (!in.ok()) return Check::Corrupt;
        Resolution now;
        try {
            now = resolver.resolve(path);
        } catch (...) {
            // Lowering will ask again and report the problem properly.
            *why = "resolving '" + dotted(path) + "' failed";
            return Check::Different;
        }
        if (fingerprint(now) != recorded) {
            *why = "'" + dotted(path) + "' resolves differently";
            return Check::Different;
        }
        if (callee) {
            if (now.kind != Resolution::Kind::DeviceFunction || !now.function || !now.function->resolver)
                return Check::Corrupt;
            Check c = check_names(in, *now.function->resolver, depth + 1, why);
            if (c != Check::Same) {
                if (c == Check::Different) *why += " in device function '" + now.function->name + "'";
                return c;
            }
        }
    }
    return in.ok() ? Check::Same : Check::Corrupt;
}

Check check_template_names(Reader& in, const frontend::TemplateInfo& t, int depth, std::string* why) {
    if (depth > 64) return Check::Corrupt;
    for (;;) {
        uint8_t tag = in.u8();
        if (!in.ok()) return Check::Corrupt;
        if (tag == 0) return Check::Same;
        std::string name = in.str();
        const frontend::TemplateMember* m = t.find(name);
        if (!in.ok() || !m) return Check::Corrupt;  // the content key fixes the members
        Check c = Check::Corrupt;
        if (tag == 2 && m->object) {
            c = check_template_names(in, *m->object, depth + 1, why);
        } else if (tag == 1 && m->resolution.kind == Resolution::Kind::DeviceFunction && m->resolution.function) {
            c = check_names(in, *m->resolution.function->resolver, depth + 1, why);
            if (c == Check::Different) *why += " in method '" + t.class_name + "." + name + "'";
        }
        if (c != Check::Same) return c;
    }
}

// ---- Environment and identity

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

std::string hex(const uint8_t* bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += digits[bytes[i] >> 4];
        s += digits[bytes[i] & 15];
    }
    return s;
}

void log(const char* event, const DiskCacheSlot& slot, const std::string& detail = {}) {
    if (!env_flag("TACK_CACHE_LOG")) return;
    std::fprintf(stderr, "tack disk cache: %s %s %s%s%s\n", event, slot.kernel.c_str(),
                 hex(slot.key.data(), 8).c_str(), detail.empty() ? "" : ": ", detail.c_str());
}

// The GNU build ID of the binary that holds this code, so that a rebuilt
// compiler never reads entries made by another build of the same version.
// Falls back to the binary's size and modification time.
std::string build_identity() {
    struct Search {
        uintptr_t address;
        std::string id;
    } search{reinterpret_cast<uintptr_t>(&build_identity), {}};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
            auto* s = static_cast<Search*>(data);
            bool here = false;
            for (int i = 0; i < info->dlpi_phnum && !here; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
                here = ph.p_type == PT_LOAD && s->address >= begin && s->address < begin + ph.p_memsz;
            }
            if (!here) return 0;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_NOTE) continue;
                auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
                const uint8_t* end = p + ph.p_memsz;
                while (p + sizeof(ElfW(Nhdr)) <= end) {
                    auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
                    const uint8_t* name = p + sizeof(ElfW(Nhdr));
                    const uint8_t* desc = name + ((note->n_namesz + 3) & ~3u);
                    if (desc + note->n_descsz > end) break;
                    if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                        std::memcmp(name, "GNU", 4) == 0) {
                        s->id = "build-id " + hex(desc, note->n_descsz);
                        return 1;
                    }
                    p = desc + ((note->n_descsz + 3) & ~3u);
                }
            }
            return 1;
        },
        &search);
    if (!search.id.empty()) return search.id;
    Dl_info info;
    struct stat st;
    if (dladdr(reinterpret_cast<void*>(&build_identity), &info) && info.dli_fname && stat(info.dli_fname, &st) == 0)
        return std::string("file ") + info.dli_fname + " " + std::to_string(st.st_size) + " " +
               std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    return "unidentified build";
}

const std::string& identity() {
    static const std::string id = std::string("tack " TACK_VERSION "; ") + build_identity();
    return id;
}

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

// ---- Files

constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'V', 'A', 'R', '\n'};
constexpr uint32_t kFormat = 1;
// magic, format, bindings, payload size, payload checksum, key. Every format
// keeps the magic, the format and the key where they are, so that eviction
// and clear_cache() recognise entries of any format.
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 8 + 16;
constexpr size_t kKeyOffset = kHeaderSize - 16;
// Far beyond any entry; a header that promises more is not an entry's, and
// nothing that large is ever read into memory.
constexpr uint64_t kMaxPayload = uint64_t{1} << 30;
// Names one key's entries may take: closures of one kernel text share the
// key but resolve names differently, and each keeps an entry of its own.
constexpr int kCandidates = 8;
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

// Opens `path` for reading if it is a regular file; -1 otherwise. Without
// O_NONBLOCK a FIFO in its place would block open() until some writer came.
int open_regular(const std::string& path, struct stat* st) {
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

// The first `n` bytes of a regular file, or fewer if it is shorter; nullopt
// if `path` is not a regular file.
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

bool make_folders(const std::string& path) {
    for (size_t i = 1; i <= path.size(); ++i) {
        if (i < path.size() && path[i] != '/') continue;
        std::string prefix = path.substr(0, i);
        if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    return true;
}

// Writes `bytes` to a private temporary in `folder` and renames it to
// `path`: readers see the old file or the new one, never a part of either.
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

// Marks `folder` as Tack's unless it is already; false if it carries a
// marker that is not Tack's, or none can be written.
bool ensure_marker(const std::string& folder, std::string* error) {
    std::string path = folder + "/" + kMarkerName;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT && replace_file(folder, path, marker_text(), error);
    if (marked(folder, kFormat)) return true;
    *error = path + ": not Tack's marker";
    return false;
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

struct Header {
    uint32_t bindings = 0;
    uint64_t size = 0;
    uint64_t checksum = 0;
};

// Checks the first kHeaderSize bytes of a file of `file_size` bytes: an
// entry of this format, as long as its header says, holding `key`. Returns
// why not, or null.
const char* check_header(std::string_view head, uint64_t file_size, const std::array<uint8_t, 16>& key,
                         Header* out) {
    if (head.size() < kHeaderSize || std::memcmp(head.data(), kMagic, sizeof kMagic) != 0) return "no entry header";
    Reader fields(head.substr(sizeof kMagic, kHeaderSize - sizeof kMagic));
    uint32_t format = fields.u32();
    out->bindings = fields.u32();
    out->size = fields.u64();
    out->checksum = fields.u64();
    if (format != kFormat) return "another entry format";
    if (out->size > kMaxPayload) return "larger than any entry";
    if (out->size != file_size - kHeaderSize) return "truncated or extended";
    if (std::memcmp(head.data() + kKeyOffset, key.data(), key.size()) != 0) return "another entry's key";
    return nullptr;
}

std::string candidate_path(const DiskCacheSlot& slot, int i) {
    if (i == 0) return slot.path;
    return slot.path.substr(0, slot.path.size() - 3) + "-" + std::to_string(i) + ".tk";
}

// The bindings (a hash of the recorded names and their answers) of every
// entry this process has used or stored, by key. An entry holding one of
// them serves a kernel alive here, such as another closure of the same
// text, so storing a sibling leaves it in place.
std::mutex served_mutex;
std::map<std::array<uint8_t, 16>, std::vector<uint32_t>> served;

void remember_served(const std::array<uint8_t, 16>& key, uint32_t bindings) {
    std::lock_guard<std::mutex> lock(served_mutex);
    auto& list = served[key];
    if (std::find(list.begin(), list.end(), bindings) == list.end()) list.push_back(bindings);
}

bool served_here(const std::array<uint8_t, 16>& key, uint32_t bindings) {
    std::lock_guard<std::mutex> lock(served_mutex);
    auto it = served.find(key);
    return it != served.end() && std::find(it->second.begin(), it->second.end(), bindings) != it->second.end();
}

// Where an entry with `bindings` is stored, in order of preference: the
// name that holds the same bindings, a damaged entry, an entry whose
// bindings no kernel of this process uses (most likely outdated by an edit),
// a free name, and last the least recently used sibling. A name taken by
// anything but a regular file (a user's folder, a FIFO, a link) is never
// replaced. Empty when every name is taken so.
std::string choose_candidate(const DiskCacheSlot& slot, uint32_t bindings) {
    enum Rank { Same, Damaged, Unused, Free, Sibling, None };
    Rank best = None;
    std::string chosen;
    timespec oldest{};
    for (int i = 0; i < kCandidates; ++i) {
        std::string path = candidate_path(slot, i);
        struct stat st;
        Rank rank;
        if (::lstat(path.c_str(), &st) != 0) {
            if (errno != ENOENT) continue;
            rank = Free;
        } else if (!S_ISREG(st.st_mode)) {
            continue;
        } else {
            auto head = read_head(path, kHeaderSize);
            Header theirs;
            if (!head || check_header(*head, static_cast<uint64_t>(st.st_size), slot.key, &theirs))
                rank = Damaged;
            else if (theirs.bindings == bindings)
                rank = Same;
            else if (!served_here(slot.key, theirs.bindings))
                rank = Unused;
            else
                rank = Sibling;
        }
        bool older = rank == Sibling && best == Sibling &&
                     (st.st_mtim.tv_sec != oldest.tv_sec ? st.st_mtim.tv_sec < oldest.tv_sec
                                                         : st.st_mtim.tv_nsec < oldest.tv_nsec);
        if (rank < best || older) {
            best = rank;
            chosen = path;
            if (rank == Sibling) oldest = st.st_mtim;
        }
        if (best == Same) break;
    }
    return chosen;
}

// Deletes the least recently used entries of every marked version folder
// until the cache fits its cap, never `keep`. Temporary files of writers
// that died are removed once they are an hour old. Nothing is deleted that
// the cache did not write: files are entries by their name and header, in
// folders that carry Tack's marker. Returns the cache's size afterwards.
uint64_t evict(const DiskCacheSlot& slot, const std::string& root, uint64_t cap, const std::string& keep) {
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
        if (::unlink(e.path.c_str()) == 0) log("evicted", slot, e.path);
        total -= e.size;
    }
    return total;
}

// Listing the whole cache after every store would cost more than compiling
// once it holds thousands of entries, so a process lists it at its first
// store, then keeps a running total of what it adds, and lists it again
// when that total passes the cap or after many stores (other processes
// write too).
void evict_if_needed(const DiskCacheSlot& slot, const std::string& root, uint64_t cap, uint64_t written,
                     const std::string& keep) {
    static std::mutex mutex;
    static bool listed = false;
    static uint64_t estimate = 0;
    static int stores = 0;
    std::lock_guard<std::mutex> lock(mutex);
    estimate += written;
    if (!listed || estimate > cap || ++stores >= 256) {
        estimate = evict(slot, root, cap, keep);
        listed = true;
        stores = 0;
    }
}
}  // namespace

std::shared_ptr<frontend::Resolver> recording_resolver(std::shared_ptr<frontend::Resolver> inner) {
    return std::make_shared<RecordingResolver>(std::move(inner));
}

std::shared_ptr<frontend::TemplateInfo> recording_template(const frontend::TemplateInfo& info) {
    auto copy = std::make_shared<frontend::TemplateInfo>(info);
    for (auto& [name, m] : copy->members) {
        if (m.object) m.object = recording_template(*m.object);
        if (m.resolution.kind == Resolution::Kind::DeviceFunction && m.resolution.function) {
            auto f = std::make_shared<frontend::DeviceFunctionRef>(*m.resolution.function);
            f->resolver = std::make_shared<RecordingResolver>(f->resolver);
            m.resolution.function = std::move(f);
        }
    }
    return copy;
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
    return "v" + std::to_string(kFormat) + "-" TACK_VERSION "-llvm" + std::to_string(LLVM_VERSION_MAJOR);
#else
    return "v" + std::to_string(kFormat) + "-" TACK_VERSION;
#endif
}

#ifdef TACK_WITH_LLVM

DiskCacheSlot disk_cache_slot(const std::string& kernel, const syntax::Source& source,
                              const std::vector<uint32_t>& variant_key,
                              const std::vector<const frontend::TemplateInfo*>& templates) {
    DiskCacheSlot slot;
    slot.kernel = kernel;
    if (env_flag("TACK_DISABLE_DISK_CACHE")) return slot;
    std::string root = disk_cache_root();
    if (root.empty()) return slot;
    // The position in the file joins the key because messages baked into
    // code (bounds reports, print) may name it.
    Writer w;
    w.str("tack disk cache key");
    w.u32(kFormat);
    w.str(identity());
    w.str(codegen::target_description());
    w.str(kernel);
    w.str(source.text);
    w.str(source.filename);
    w.u32(static_cast<uint32_t>(source.first_line));
    w.u32(static_cast<uint32_t>(source.indent));
    w.u32(static_cast<uint32_t>(variant_key.size()));
    for (uint32_t k : variant_key) w.u32(k);
    w.u32(static_cast<uint32_t>(templates.size()));
    for (auto* t : templates) w.str(t->content);
    XXH128_canonical_t key;
    XXH128_canonicalFromHash(&key, XXH3_128bits(w.bytes().data(), w.bytes().size()));
    std::memcpy(slot.key.data(), key.digest, slot.key.size());
    slot.path = root + "/" + disk_cache_folder() + "/" + hex(slot.key.data(), slot.key.size()) + ".tk";
    return slot;
}

namespace {

enum class Found { Absent, Corrupt, Stale, Unlinkable, Hit };

// Reads the entry at `path` into `payload`, checking its header before
// reading anything else: a file that is not regular (a FIFO, a folder) is
// absent, and one whose size is not what its header promises is corrupt
// however large it is.
Found read_entry(const std::string& path, const DiskCacheSlot& slot, std::string* payload, uint64_t* checksum,
                 std::string* why) {
    struct stat st;
    int fd = open_regular(path, &st);
    if (fd < 0) return Found::Absent;
    uint64_t file_size = static_cast<uint64_t>(st.st_size);
    char head[kHeaderSize];
    size_t got = file_size < kHeaderSize || !read_exact(fd, head, kHeaderSize) ? 0 : kHeaderSize;
    Header header;
    const char* reason = check_header(std::string_view(head, got), file_size, slot.key, &header);
    if (!reason) {
        payload->resize(static_cast<size_t>(header.size));
        if (!read_exact(fd, payload->data(), payload->size())) reason = "truncated or extended";
    }
    ::close(fd);
    *checksum = header.checksum;
    if (reason) *why = reason;
    return reason ? Found::Corrupt : Found::Hit;
}

// Checks an intact payload's names against `resolver` and links its code.
Found use_entry(std::string_view payload, uint64_t checksum, frontend::Resolver& resolver,
                const std::vector<const frontend::TemplateInfo*>& templates, CachedVariant* out, uint32_t* bindings,
                std::string* why) {
    if (XXH3_64bits(payload.data(), payload.size()) != checksum) {
        *why = "checksum mismatch";
        return Found::Corrupt;
    }
    auto corrupt = [&](const char* reason) {
        *why = reason;
        return Found::Corrupt;
    };
    Reader in(payload);
    switch (check_names(in, resolver, 0, why)) {
        case Check::Same: break;
        case Check::Different: return Found::Stale;
        case Check::Corrupt: return corrupt("unreadable names");
    }
    for (auto* t : templates) {
        switch (check_template_names(in, *t, 0, why)) {
            case Check::Same: break;
            case Check::Different: return Found::Stale;
            case Check::Corrupt: return corrupt("unreadable method names");
        }
    }
    // What disk_cache_store hashed: the names and their answers.
    *bindings = static_cast<uint32_t>(XXH3_64bits(payload.data(), in.pos()));
    if (in.u8()) {
        uint8_t t = in.u8();
        if (t >= kNumDTypes) return corrupt("unknown result type");
        out->facts.result_type = static_cast<DType>(t);
    }
    uint32_t count = in.u32();
    for (uint32_t i = 0; i < count && in.ok(); ++i) out->facts.written.push_back(static_cast<int>(in.u32()));
    count = in.u32();
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
        int param = static_cast<int>(in.u32());
        out->facts.atomic_targets.emplace_back(param, static_cast<int>(in.u32()));
    }
    codegen::EntryNames names;
    names.count = in.str();
    names.body = in.str();
    names.result = in.str();
    std::string object = in.str();
    if (!in.ok() || !in.at_end()) return corrupt("malformed payload");

    auto code = codegen::load_object(std::move(object), names, why);
    if (!code) return Found::Unlinkable;
    out->code = std::move(*code);
    out->code.result_type = out->facts.result_type;
    return Found::Hit;
}

}  // namespace

std::optional<CachedVariant> disk_cache_load(const DiskCacheSlot& slot, frontend::Resolver& resolver,
                                             const std::vector<const frontend::TemplateInfo*>& templates) {
    if (slot.path.empty()) return std::nullopt;
    // One log line per lookup: the hit, else the first candidate's failure,
    // else a miss.
    const char* event = nullptr;
    std::string detail;
    for (int i = 0; i < kCandidates; ++i) {
        std::string path = candidate_path(slot, i);
        std::string payload, why;
        uint64_t checksum = 0;
        uint32_t bindings = 0;
        CachedVariant out;
        Found found = read_entry(path, slot, &payload, &checksum, &why);
        if (found == Found::Hit) found = use_entry(payload, checksum, resolver, templates, &out, &bindings, &why);
        if (found == Found::Hit) {
            // The modification time orders eviction: a hit makes the entry the newest.
            ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
            remember_served(slot.key, bindings);
            log("hit", slot);
            return out;
        }
        if (event || found == Found::Absent) continue;
        event = found == Found::Stale ? "stale" : found == Found::Unlinkable ? "unlinkable" : "corrupt";
        detail = std::move(why);
    }
    log(event ? event : "miss", slot, detail);
    return std::nullopt;
}

void disk_cache_store(const DiskCacheSlot& slot, const frontend::Resolver& resolver,
                      const std::vector<const frontend::TemplateInfo*>& recorded_templates,
                      const codegen::CompiledCpuKernel& code, const DispatchFacts& facts) {
    if (slot.path.empty() || code.object.empty()) return;
    auto* recorded = dynamic_cast<const RecordingResolver*>(&resolver);
    if (!recorded) return;
    Writer payload;
    if (!write_names(payload, *recorded)) return;
    for (auto* t : recorded_templates)
        if (!write_template_names(payload, *t)) return;
    // Entries of one key differ by these bindings (closures of one text).
    uint32_t bindings = static_cast<uint32_t>(XXH3_64bits(payload.bytes().data(), payload.bytes().size()));
    payload.u8(facts.result_type.has_value());
    if (facts.result_type) payload.u8(static_cast<uint8_t>(*facts.result_type));
    payload.u32(static_cast<uint32_t>(facts.written.size()));
    for (int p : facts.written) payload.u32(static_cast<uint32_t>(p));
    payload.u32(static_cast<uint32_t>(facts.atomic_targets.size()));
    for (auto [p, size] : facts.atomic_targets) {
        payload.u32(static_cast<uint32_t>(p));
        payload.u32(static_cast<uint32_t>(size));
    }
    payload.str(code.entry_names.count);
    payload.str(code.entry_names.body);
    payload.str(code.entry_names.result);
    payload.str(code.object);

    const std::string& body = payload.bytes();
    std::string file(kMagic, sizeof kMagic);
    Writer header;
    header.u32(kFormat);
    header.u32(bindings);
    header.u64(body.size());
    header.u64(XXH3_64bits(body.data(), body.size()));
    file += header.bytes();
    file.append(reinterpret_cast<const char*>(slot.key.data()), slot.key.size());
    file += body;

    std::string folder = slot.path.substr(0, slot.path.rfind('/'));
    std::string error;
    if (!make_folders(folder)) {
        log("unwritable", slot, folder + ": " + std::strerror(errno));
        return;
    }
    if (!ensure_marker(folder, &error)) {
        log("unwritable", slot, error);
        return;
    }
    remember_served(slot.key, bindings);
    std::string path = choose_candidate(slot, bindings);
    if (path.empty()) {
        log("unwritable", slot, slot.path + ": every name is taken by something other than an entry");
        return;
    }
    if (!replace_file(folder, path, file, &error)) {
        log("unwritable", slot, error);
        return;
    }
    log("stored", slot);
    evict_if_needed(slot, folder.substr(0, folder.rfind('/')), size_cap(), file.size(), path);
}

#else

DiskCacheSlot disk_cache_slot(const std::string& kernel, const syntax::Source&, const std::vector<uint32_t>&,
                              const std::vector<const frontend::TemplateInfo*>&) {
    DiskCacheSlot slot;
    slot.kernel = kernel;
    return slot;
}

std::optional<CachedVariant> disk_cache_load(const DiskCacheSlot&, frontend::Resolver&,
                                             const std::vector<const frontend::TemplateInfo*>&) {
    return std::nullopt;
}

void disk_cache_store(const DiskCacheSlot&, const frontend::Resolver&, const std::vector<const frontend::TemplateInfo*>&,
                      const codegen::CompiledCpuKernel&, const DispatchFacts&) {}

#endif

}  // namespace tack::runtime
