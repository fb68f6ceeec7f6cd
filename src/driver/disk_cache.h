// The disk cache: compiled kernel variants shared across processes.
//
// One entry holds one variant: its backend's name and compiled code, the facts dispatch reads
// from the typed IR, and every name lowering resolved with the answer it got
// (device functions' own names too, recursively). Its key is a 128-bit
// XXH3 hash of what the code depends on besides those answers: Tack's
// version and build, the backend and its target (Backend::target_description),
// the kernel's
// name, source text and position in its file, and the variant key (each
// argument's facts, debug mode, and whatever joins the key later).
//
// An entry is used only if every recorded name still resolves to the same
// answer through the kernel's resolver, so a changed tack.constant, device
// function or import compiles afresh and replaces the entry. Closures of one
// kernel text share a key but not those answers: a key has several names
// (<key>.tk, <key>-1.tk, ...), and entries whose answers a kernel of this
// process uses are kept when a sibling is stored.
//
// A device-class instance argument joins the key by its signature's content
// (TemplateInfo::content: classes by module and qualified name, attribute
// layout, constants by bit pattern, method sources); the names its methods
// resolve are recorded like a device function's and checked through the
// instance's methods in the new process. Entries are
// written to a temporary file and renamed into place, carry a checksum that
// catches corruption and truncation, and are evicted least recently used
// first once the folder passes its size cap. Every failure of the cache
// (unreadable folder, corrupt entry, full disk) falls back to compiling.
// Anything but a regular file in an entry's place counts as absent and is
// left alone, and a file is read only as far as its header promises.
//
// The root folder may be shared with the user's files: each version folder
// carries a marker (CACHEDIR.TAG naming Tack and the entry format), and
// eviction deletes only files whose name and header are an entry's, in
// marked folders (python/tack/_cache.py's clear_cache() too).
//
// Environment: TACK_CACHE_DIR (the root folder), TACK_CACHE_MAX_BYTES (the
// cap: bytes, optionally with a K, M or G suffix; default 256 MiB),
// TACK_DISABLE_DISK_CACHE=1, TACK_CACHE_LOG=1 (one line per lookup, store
// and eviction on stderr). docs/caching.md has more.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "frontend/resolver.h"
#include "frontend/template.h"
#include "syntax/source.h"

namespace tack::driver {

// Wraps a kernel's resolver so that the disk cache learns every name it
// answers, and the answer. Device functions it returns carry recording
// resolvers of their own. The first answer for a path is kept, as the
// kernel's own resolver keeps it.
std::shared_ptr<frontend::Resolver> recording_resolver(std::shared_ptr<frontend::Resolver> inner);

// A copy of an instance description whose functions resolve through
// recording resolvers; lowering reads it in place of the original.
std::shared_ptr<frontend::TemplateInfo> recording_template(const frontend::TemplateInfo& info);

// What dispatch reads from a variant's typed IR, which a cache hit never
// builds. A new fact of this kind must join the entry.
struct DispatchFacts {
    std::optional<DType> result_type;
    std::vector<int> written;                         // array parameters the kernel may store to
    std::vector<std::pair<int, int>> atomic_targets;  // parameter, element size
};

// One variant's place in the cache.
struct DiskCacheSlot {
    std::string kernel;  // the kernel's name, for the log
    std::string path;    // the key's first entry name; empty when the cache is off
    std::array<uint8_t, 16> key{};
};

// The slot of a kernel variant. `variant_key` is the dispatcher's key, so
// every fact that selects a variant selects an entry too; `templates` are
// the instance arguments in order, whose ids in the key are process-local
// and are replaced by their contents.
DiskCacheSlot disk_cache_slot(backends::Backend& backend, const std::string& kernel, const syntax::Source& source,
                              const std::vector<uint32_t>& variant_key,
                              const std::vector<const frontend::TemplateInfo*>& templates = {});

struct CachedVariant {
    std::unique_ptr<backends::Executable> code;  // loaded by the slot's backend
    DispatchFacts facts;
};

// The slot's entry, loaded by `backend`, if it is intact and every
// name it recorded resolves through `resolver` (and the instances' methods)
// as it did when it was stored.
std::optional<CachedVariant> disk_cache_load(const DiskCacheSlot& slot, backends::Backend& backend,
                                             frontend::Resolver& resolver,
                                             const std::vector<const frontend::TemplateInfo*>& templates = {});

// Stores freshly compiled code (the backend's serialized executable) with every name `resolver` (made by
// recording_resolver) and the instances' methods (made by
// recording_template) have answered. Failures are silent: the cache only
// saves time.
void disk_cache_store(const DiskCacheSlot& slot, const frontend::Resolver& resolver,
                      const std::vector<const frontend::TemplateInfo*>& recorded_templates,
                      const backends::Backend& backend, const backends::Executable& code,
                      const DispatchFacts& facts);

// $TACK_CACHE_DIR, else the first absolute one of $XDG_CACHE_HOME/tack,
// $HOME/.cache/tack and the password database's home/.cache/tack; empty
// (the cache is off) when there is none. tack.cache_dir() follows the same
// rule. Entries live in one subfolder per entry format, Tack version and
// LLVM major version (disk_cache_folder()).
std::string disk_cache_root();
std::string disk_cache_folder();
// Tack's version and this build's identity (its GNU build ID), which every
// entry's key includes: what else Tack keeps on disk keys on it too.
const std::string& build_identity_key();

}  // namespace tack::driver
