// The public path from a tile kernel to a device: find the backend, ask its
// tile-kernel factory. The backend chooses the lowering.
#include "tack/tile/compile.h"

#include <cstdlib>

#include "backends/registry.h"
#include "driver/source_dump.h"
#include "tile/lower/lower.h"

namespace tack::tile {

std::unique_ptr<CompiledKernel> compile(std::string_view device, const Kernel& kernel, const CompileOptions& options) {
  std::string why_not;
  backends::Backend* backend = backends::find_backend(std::string(device), &why_not);
  if (!backend) throw Error("compile @" + kernel.name() + ": " + why_not + ".");
  std::unique_ptr<CompiledKernel> compiled = backend->create_tile_kernel(kernel, options);
  // Like every Python kernel variant, its GPU sources for the device
  // compilers' check (driver/source_dump.h, tools/gpu_compile_check).
  if (std::getenv("TACK_EMIT_SOURCES")) driver::dump_sources(*lower::lower_to_kernel_ir(kernel), false);
  return compiled;
}

std::string lowered_kernel_ir(const Kernel& kernel, const CompileOptions& options) {
  return ir::print(*lower::lower_to_kernel_ir(kernel, options));
}

}  // namespace tack::tile
