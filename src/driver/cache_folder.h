// The disk cache's folders and files (cache_folder.cpp), as disk_cache.cpp
// uses them; private to the two. The root folder's rule is declared in
// disk_cache.h.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tack::driver {

constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'V', 'A', 'R', '\n'};
constexpr uint32_t kFormat = 3;
// magic, format, bindings, payload size, payload checksum, key. Every format
// keeps the magic, the format and the key where they are, so that eviction
// and clear_cache() recognise entries of any format.
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 8 + 16;
constexpr size_t kKeyOffset = kHeaderSize - 16;

// A descriptor open for reading on `path`, with its status in `st`, if it
// is a regular file; -1 otherwise. A FIFO in its place never blocks.
int open_regular(const std::string& path, struct stat* st);

// Reads exactly `n` bytes, through interruptions and short reads; false at
// an error or an early end of file.
bool read_exact(int fd, char* out, size_t n);

// The first `n` bytes of a regular file, or fewer if it is shorter; nullopt
// if `path` is not a regular file.
std::optional<std::string> read_head(const std::string& path, size_t n);

// Makes `path` and whichever folders above it are missing; false if one
// cannot be made.
bool make_folders(const std::string& path);

// Writes `bytes` to a private temporary in `folder` and renames it to
// `path`: readers see the old file or the new one, never a part of either.
// False, with `error` saying why, if either step fails.
bool replace_file(const std::string& folder, const std::string& path, const std::string& bytes, std::string* error);

// Marks `folder` as Tack's unless it is already; false if it carries a
// marker that is not Tack's, or none can be written.
bool ensure_marker(const std::string& folder, std::string* error);

// After a store of `written` bytes as `keep`: once the cache under `root`
// may have passed its cap (TACK_CACHE_MAX_BYTES), deletes least recently
// used entries until it fits, never `keep` and never a file Tack did not
// write, and tells `evicted` each path it deleted.
void evict_if_needed(const std::string& root, uint64_t written, const std::string& keep,
                     const std::function<void(const std::string& path)>& evicted);

}  // namespace tack::driver
