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

uint64_t size_cap() {
    const char* v = std::getenv("TACK_CACHE_MAX_BYTES");
    if (v && *v) {
        char* end = nullptr;
        unsigned long long cap = std::strtoull(v, &end, 10);
        if (end && *end == '\0') return cap;
    }
    return uint64_t{256} << 20;
}

// ---- Files

constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'V', 'A', 'R', '\n'};
constexpr uint32_t kFormat = 1;
// magic, format, unused, payload size, payload checksum, key
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 8 + 16;

bool read_file(const std::string& path, std::string* out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && st.st_size >= 0;
    if (ok) {
        out->resize(static_cast<size_t>(st.st_size));
        size_t done = 0;
        while (ok && done < out->size()) {
            ssize_t got = ::read(fd, out->data() + done, out->size() - done);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                out->resize(done);  // shorter than it said: the checks below reject it
                break;
            }
            done += static_cast<size_t>(got);
        }
    }
    ::close(fd);
    return ok;
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

bool is_entry(const char* name) {
    size_t n = std::strlen(name);
    return n > 3 && name[0] != '.' && std::strcmp(name + n - 3, ".tk") == 0;
}

// Deletes the least recently used entries of every version's folder until
// the cache fits its cap, never `keep`. Temporary files of writers that died
// are removed once they are an hour old.
// Returns the cache's size afterwards.
uint64_t evict(const DiskCacheSlot& slot, const std::string& root, uint64_t cap) {
    struct File {
        std::string path;
        uint64_t size;
        timespec used;
    };
    std::vector<File> entries;
    uint64_t total = 0;
    time_t now = std::time(nullptr);
    DIR* top = ::opendir(root.c_str());
    if (!top) return 0;
    while (dirent* d = ::readdir(top)) {
        if (d->d_name[0] != 'v') continue;
        std::string folder = root + "/" + d->d_name;
        DIR* sub = ::opendir(folder.c_str());
        if (!sub) continue;
        while (dirent* f = ::readdir(sub)) {
            std::string path = folder + "/" + f->d_name;
            struct stat st;
            if (f->d_name[0] == '.' && std::strstr(f->d_name, ".tmp.")) {
                if (::stat(path.c_str(), &st) == 0 && now - st.st_mtim.tv_sec > 3600) ::unlink(path.c_str());
                continue;
            }
            if (!is_entry(f->d_name) || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
            entries.push_back(File{path, static_cast<uint64_t>(st.st_size), st.st_mtim});
            total += static_cast<uint64_t>(st.st_size);
        }
        ::closedir(sub);
    }
    ::closedir(top);
    if (total <= cap) return total;
    std::sort(entries.begin(), entries.end(), [](const File& a, const File& b) {
        if (a.used.tv_sec != b.used.tv_sec) return a.used.tv_sec < b.used.tv_sec;
        return a.used.tv_nsec < b.used.tv_nsec;
    });
    for (auto& e : entries) {
        if (total <= cap) break;
        if (e.path == slot.path) continue;
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
void evict_if_needed(const DiskCacheSlot& slot, const std::string& root, uint64_t cap, uint64_t written) {
    static std::mutex mutex;
    static bool listed = false;
    static uint64_t estimate = 0;
    static int stores = 0;
    std::lock_guard<std::mutex> lock(mutex);
    estimate += written;
    if (!listed || estimate > cap || ++stores >= 256) {
        estimate = evict(slot, root, cap);
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

std::string disk_cache_root() {
    if (const char* dir = std::getenv("TACK_CACHE_DIR"); dir && *dir) return dir;
    // The XDG base directory rules ignore a relative XDG_CACHE_HOME.
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return std::string(xdg) + "/tack";
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
        if (passwd* pw = getpwuid(getuid())) home = pw->pw_dir;
    }
    if (!home || !*home) return {};
    return std::string(home) + "/.cache/tack";
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

std::optional<CachedVariant> disk_cache_load(const DiskCacheSlot& slot, frontend::Resolver& resolver,
                                             const std::vector<const frontend::TemplateInfo*>& templates) {
    if (slot.path.empty()) return std::nullopt;
    std::string bytes;
    if (!read_file(slot.path, &bytes)) {
        log("miss", slot);
        return std::nullopt;
    }
    auto corrupt = [&](const char* why) -> std::optional<CachedVariant> {
        log("corrupt", slot, why);
        return std::nullopt;
    };
    if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        return corrupt("no entry header");
    Reader header(std::string_view(bytes).substr(sizeof kMagic, kHeaderSize - sizeof kMagic));
    uint32_t format = header.u32();
    header.u32();
    uint64_t size = header.u64();
    uint64_t checksum = header.u64();
    if (format != kFormat) return corrupt("another entry format");
    if (size != bytes.size() - kHeaderSize) return corrupt("truncated or extended");
    if (std::memcmp(bytes.data() + kHeaderSize - 16, slot.key.data(), 16) != 0) return corrupt("another entry's key");
    std::string_view payload = std::string_view(bytes).substr(kHeaderSize);
    if (XXH3_64bits(payload.data(), payload.size()) != checksum) return corrupt("checksum mismatch");

    Reader in(payload);
    std::string why;
    switch (check_names(in, resolver, 0, &why)) {
        case Check::Same: break;
        case Check::Different: log("stale", slot, why); return std::nullopt;
        case Check::Corrupt: return corrupt("unreadable names");
    }
    for (auto* t : templates) {
        switch (check_template_names(in, *t, 0, &why)) {
            case Check::Same: break;
            case Check::Different: log("stale", slot, why); return std::nullopt;
            case Check::Corrupt: return corrupt("unreadable method names");
        }
    }
    CachedVariant out;
    if (in.u8()) {
        uint8_t t = in.u8();
        if (t >= kNumDTypes) return corrupt("unknown result type");
        out.facts.result_type = static_cast<DType>(t);
    }
    uint32_t count = in.u32();
    for (uint32_t i = 0; i < count && in.ok(); ++i) out.facts.written.push_back(static_cast<int>(in.u32()));
    count = in.u32();
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
        int param = static_cast<int>(in.u32());
        out.facts.atomic_targets.emplace_back(param, static_cast<int>(in.u32()));
    }
    codegen::EntryNames names;
    names.count = in.str();
    names.body = in.str();
    names.result = in.str();
    std::string object = in.str();
    if (!in.ok() || !in.at_end()) return corrupt("malformed payload");

    std::string error;
    auto code = codegen::load_object(std::move(object), names, &error);
    if (!code) {
        log("unlinkable", slot, error);
        return std::nullopt;
    }
    out.code = std::move(*code);
    out.code.result_type = out.facts.result_type;
    // The modification time orders eviction: a hit makes the entry the newest.
    ::utimensat(AT_FDCWD, slot.path.c_str(), nullptr, 0);
    log("hit", slot);
    return out;
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
    header.u32(0);
    header.u64(body.size());
    header.u64(XXH3_64bits(body.data(), body.size()));
    file += header.bytes();
    file.append(reinterpret_cast<const char*>(slot.key.data()), slot.key.size());
    file += body;

    std::string folder = slot.path.substr(0, slot.path.rfind('/'));
    if (!make_folders(folder)) {
        log("unwritable", slot, folder + ": " + std::strerror(errno));
        return;
    }
    // A private temporary in the same folder, renamed over the entry: readers
    // see the old entry or the new one, never a part of either.
    static std::atomic<uint64_t> counter{0};
    std::string temporary = folder + "/." + hex(slot.key.data(), slot.key.size()) + ".tmp." +
                            std::to_string(::getpid()) + "." + std::to_string(counter++);
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        log("unwritable", slot, temporary + ": " + std::strerror(errno));
        return;
    }
    bool written = write_all(fd, file);
    written = ::close(fd) == 0 && written;
    if (!written || ::rename(temporary.c_str(), slot.path.c_str()) != 0) {
        log("unwritable", slot, slot.path + ": " + std::strerror(errno));
        ::unlink(temporary.c_str());
        return;
    }
    log("stored", slot);
    evict_if_needed(slot, folder.substr(0, folder.rfind('/')), size_cap(), file.size());
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
