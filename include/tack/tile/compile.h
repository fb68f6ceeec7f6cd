// Compiling a tile kernel for a device.
//
//   Kernel k = lib::softmax();
//   auto compiled = compile("cpu", k);
//   compiled->launch({host_tensor(x.data(), {17, 65}), host_tensor(y.data(), {17, 65})});
//
// A compiled kernel takes the same arguments as interpret(): one HostTensor
// per parameter (data, element type, shape, strides and offset in elements),
// so a test runs both on the same memory. On the CPU a HostTensor may be any
// host memory, Tack arrays' storage included.
//
// compile() asks the device's backend for its tile-kernel factory; a backend
// without one refuses with an Error naming it. Lowering fails closed: a
// construct it cannot lower exactly is an Error naming the kernel and the
// operation, never different code. docs/tile/compile.md lists what lowers how.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tack/tile/interpreter.h"
#include "tack/tile/ir.h"

namespace tack::tile {

class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  virtual const std::string& name() const = 0;
  // The device name it runs on ("cpu").
  virtual const std::string& device() const = 0;
  // Runs the kernel once. Throws Error when the arguments do not match the
  // parameters (count, element type, rank, negative extents).
  virtual void launch(const std::vector<HostTensor>& args) const = 0;
};

// Choices among equivalent lowerings: how the parallel iterations bind to
// the target, and whether pipeline stages overlap. None changes a result.
struct CompileOptions {
  // On the CPU: consecutive iterations run in the lanes of SIMD registers
  // where the backend finds that the lanes pay (right for kernels of small
  // tiles, such as matrix products and element-wise sorts), or one
  // iteration at a time, whose loops over contiguous tile elements LLVM
  // vectorizes (right for kernels that walk long rows: normalizations,
  // scans, gathers). Backends without SIMD lanes ignore it.
  bool simd_lanes = true;
  // A pipeline region whose stages may legally overlap runs stage j of
  // iteration k - j beside stage 0 of iteration k, each value that crosses
  // stages in as many versions as its dependence distance plus one
  // (docs/tile/compile.md, "Pipelines"); otherwise, or where the overlap
  // is not legal, the stages of one iteration run before the next's.
  bool overlap_stages = false;
  // The rows and columns of the register block in which mma accumulates
  // (each block's results held in locals over all of k); 0: the device's
  // (on the CPU from its vector registers: 4x4 with AVX-512's 32, 4x2 with
  // AVX's or SSE's 16; 4x4 elsewhere). A tile whose extents the block does
  // not divide runs unblocked. Changes speed, never a result.
  int mma_block[2] = {0, 0};
};

// Compiles `kernel` for `device` ("cpu"): plans and lowers it now; the
// device's code is made at the first launch, for the arguments' strides (on
// the CPU one variant per pattern of unit-strided last axes). Throws Error
// when the device is unknown or unavailable, its backend compiles no tile
// kernels, or a construct has no lowering.
std::unique_ptr<CompiledKernel> compile(std::string_view device, const Kernel& kernel,
                                        const CompileOptions& options = {});

// The kernel IR `kernel` lowers to, as text (what the CPU backend compiles).
std::string lowered_kernel_ir(const Kernel& kernel, const CompileOptions& options = {});

}  // namespace tack::tile
