// What a disk cache entry means: the names a variant's lowering resolved,
// recorded and checked again in a later process; the variant's key (Tack's
// build, the target, the kernel, its variant key); the payload and header;
// the choice among a key's names for closures of one text; and the
// TACK_CACHE_LOG lines. The folders and files that hold entries are
// cache_folder.cpp's; disk_cache.h describes the whole cache.
#include "driver/disk_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <map>

#include "driver/cache_folder.h"
#include "driver/pipeline.h"
#include "support/byte_codec.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#ifndef TACK_VERSION
#define TACK_VERSION "unknown"
#endif

namespace tack::driver {

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

namespace {

using support::ByteReader;
using support::ByteWriter;

// Everything in an answer that lowering reads, as bytes: equal bytes, equal
// lowering. A device function's own names are compared separately.
std::string fingerprint(const Resolution& r) {
    using K = Resolution::Kind;
    ByteWriter w;
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
bool write_names(ByteWriter& w, const RecordingResolver& r) {
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
bool write_template_names(ByteWriter& w, const frontend::TemplateInfo& t) {
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

Check check_names(ByteReader& in, frontend::Resolver& resolver, int depth, std::string* why) {
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

Check check_template_names(ByteReader& in, const frontend::TemplateInfo& t, int depth, std::string* why) {
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

// ---- Entries

// Far beyond any entry; a header that promises more is not an entry's, and
// nothing that large is ever read into memory.
constexpr uint64_t kMaxPayload = uint64_t{1} << 30;
// Names one key's entries may take: closures of one kernel text share the
// key but resolve names differently, and each keeps an entry of its own.
constexpr int kCandidates = 8;

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
    ByteReader fields(head.substr(sizeof kMagic, kHeaderSize - sizeof kMagic));
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

}  // namespace

DiskCacheSlot disk_cache_slot(backends::Backend& backend, const std::string& kernel, const syntax::Source& source,
                              const std::vector<uint32_t>& variant_key,
                              const std::vector<const frontend::TemplateInfo*>& templates) {
    DiskCacheSlot slot;
    slot.kernel = kernel;
    if (env_flag("TACK_DISABLE_DISK_CACHE")) return slot;
    std::string root = disk_cache_root();
    if (root.empty()) return slot;
    // The position in the file joins the key because messages baked into
    // code (bounds reports, print) may name it.
    ByteWriter w;
    w.str("tack disk cache key");
    w.u32(kFormat);
    w.str(identity());
    w.str(backend.name());
    w.str(backend.target_description());
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
Found use_entry(std::string_view payload, uint64_t checksum, backends::Backend& backend, frontend::Resolver& resolver,
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
    ByteReader in(payload);
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
    std::string backend_name = in.str();
    std::string code = in.str();
    if (!in.ok() || !in.at_end()) return corrupt("malformed payload");
    if (backend_name != backend.name()) return corrupt("another backend's code");

    out->code = backend.load(code, why);
    return out->code ? Found::Hit : Found::Unlinkable;
}

}  // namespace

std::optional<CachedVariant> disk_cache_load(const DiskCacheSlot& slot, backends::Backend& backend,
                                             frontend::Resolver& resolver,
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
        if (found == Found::Hit) found = use_entry(payload, checksum, backend, resolver, templates, &out, &bindings, &why);
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
                      const backends::Backend& backend, const backends::Executable& code,
                      const DispatchFacts& facts) {
    if (slot.path.empty()) return;
    std::string bytes = code.serialize();
    if (bytes.empty()) return;
    auto* recorded = dynamic_cast<const RecordingResolver*>(&resolver);
    if (!recorded) return;
    ByteWriter payload;
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
    payload.str(backend.name());
    payload.str(bytes);

    const std::string& body = payload.bytes();
    std::string file(kMagic, sizeof kMagic);
    ByteWriter header;
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
    evict_if_needed(folder.substr(0, folder.rfind('/')), file.size(), path,
                    [&](const std::string& evicted) { log("evicted", slot, evicted); });
}


const std::string& build_identity_key() { return identity(); }

}  // namespace tack::driver
