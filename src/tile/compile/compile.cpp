// The public path from a tile kernel to a device: find the backend, ask its
// tile-kernel factory. The backend chooses the lowering.
#include "tack/tile/compile.h"

#include <cstdlib>

#include "backends/registry.h"
#include "driver/code_store.h"
#include "driver/source_dump.h"
#include "tile/lower/lower.h"

namespace tack::tile {

std::unique_ptr<CompiledKernel> compile(std::string_view device, const Kernel& kernel, const CompileOptions& options) {
  std::string why_not;
  backends::Backend* backend = backends::find_backend(std::string(device), &why_not);
  if (!backend) throw Error("compile @" + kernel.name() + ": " + why_not + ".");
  // Its code is kept in the disk cache, so another process's first launch
  // links it instead of compiling (docs/caching.md).
  std::unique_ptr<CompiledKernel> compiled = backend->create_tile_kernel(kernel, options, driver::disk_code_store());
  // Like every Python kernel variant, its GPU sources for the device
  // compilers' check (driver/source_dump.h, tools/gpu_compile_check).
  // Both lowerings: one iteration per lane, and in workgroups.
  if (std::getenv("TACK_EMIT_SOURCES")) {
    driver::dump_sources(*lower::lower_to_kernel_ir(kernel, options), false);
    if (lower::Lowered grouped = lower::lower(kernel, options, workgroup_target()); grouped.workgroups)
      driver::dump_sources(*grouped.kernel, false);
  }
  return compiled;
}

static_assert(ir::kWorkgroupLanes == 256, "workgroup_target() names the group size");

std::string lowered_kernel_ir(const Kernel& kernel, const CompileOptions& options, const LoweringTarget& target) {
  lower::Lowered lowered = lower::lower(kernel, options, target);
  return lowered.plan + ir::print(*lowered.kernel);
}

}  // namespace tack::tile
