// The disk cache as a backends::CodeStore: compiled code kept under a text
// key that names everything it depends on (tile kernels' TileIR and
// options, backends/tile_kernel.h). An entry's key adds the backend, its
// target and Tack's version and build, as every disk-cache entry's does
// (driver/disk_cache.h); such an entry records no resolved names.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace tack::driver {

// The store over the disk cache (nothing is kept when the cache is off:
// TACK_DISABLE_DISK_CACHE=1, or no cache folder).
std::shared_ptr<backends::CodeStore> disk_code_store();

}  // namespace tack::driver
