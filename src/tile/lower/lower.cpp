#include "tile/lower/lower.h"

#include "analysis/infer_types.h"
#include "ir/verify.h"
#include "tack/tile/verifier.h"
#include "tile/lower/emitter.h"
#include "tile/lower/launch_nest.h"

namespace tack::tile::lower {

std::unique_ptr<ir::Kernel> lower_to_kernel_ir(const Kernel& kernel, const CompileOptions& options) {
  if (auto problem = verify(kernel)) throw Error("compile @" + kernel.name() + ": the kernel is malformed: " + *problem);
  LaunchNest nest = find_launch_nest(kernel);
  std::unique_ptr<ir::Kernel> k = Emitter(kernel, options).run(nest);
  ir::verify(*k, ir::Stage::Lowered, "lower_tile");
  // Every constant is cast to its type, so no literal is weak and the
  // fallback precision decides nothing.
  analysis::infer_types(*k, DType::F32);
  ir::verify(*k, ir::Stage::Typed, "lower_tile");
  return k;
}

}  // namespace tack::tile::lower
