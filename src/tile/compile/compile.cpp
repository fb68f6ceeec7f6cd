// The public path from a tile kernel to a device: find the backend, ask its
// tile-kernel factory. The backend chooses the lowering.
#include "tack/tile/compile.h"

#include "backends/registry.h"
#include "tile/lower/lower.h"

namespace tack::tile {

std::unique_ptr<CompiledKernel> compile(std::string_view device, const Kernel& kernel, const CompileOptions& options) {
  std::string why_not;
  backends::Backend* backend = backends::find_backend(std::string(device), &why_not);
  if (!backend) throw Error("compile @" + kernel.name() + ": " + why_not + ".");
  return backend->create_tile_kernel(kernel, options);
}

std::string lowered_kernel_ir(const Kernel& kernel) { return ir::print(*lower::lower_to_kernel_ir(kernel)); }

}  // namespace tack::tile
