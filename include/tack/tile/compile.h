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
  // On a backend with workgroups (the GPU backends), where each iteration
  // of the launch's parallel nest runs: in one workgroup, its tiles in the
  // group's shared memory and each operation's elements spread over the
  // group's lanes, with a barrier between operations (docs/tile/compile.md,
  // "Workgroups"); or on one lane, its tiles private. `fill` takes the
  // workgroup where the kernel's largest tile has an element for every lane
  // (matrix products, wide copies), `always` wherever it can, `never`
  // nowhere. A kernel whose tiles do not fit the shared memory, or whose
  // barriers would stand under control that differs between lanes, runs on
  // one lane. The CPU ignores it.
  enum class Workgroups { fill, always, never };
  Workgroups workgroups = Workgroups::fill;
  // How the launch's parallel nest (its directly nested parallel regions,
  // level 0 outermost) binds to the launch (docs/tile/compile.md,
  // "Binding"): three remaps of its iteration space, in this order.
  //   nest_split  per level, a factor f: the level, of extent E, becomes
  //               two parts, ceil(E / f) outer and f inner, its index
  //               outer * f + inner, the points past E running nothing;
  //               0 or 1, or no entry, keeps the level whole.
  //   nest_order  the parts (the levels where none is split; a split
  //               level's outer part before its inner one) as the launch's
  //               dimensions run them, outermost first (empty: in order).
  //   nest_fuse   consecutive dimensions fused into one, the last fastest,
  //               as counts outermost first that add up to the parts
  //               ({2} fuses matmul's two levels; empty: none fused).
  // The CPU runs whole SIMD groups only within one row of the innermost
  // dimension, so a nest whose innermost extent is narrower than a group
  // runs its iterations one at a time unless a wider part goes innermost
  // or the dimensions are fused. A binding is taken only where the layout
  // prover proves it a bijection onto the split space; options that do not
  // fit the nest (an order that is not one of its parts, counts that do not
  // add up to them, a factor below 0 or past its levels) are an Error.
  std::vector<int64_t> nest_split;
  std::vector<int> nest_order;
  std::vector<int> nest_fuse;
};

// What a lowering is for: a target without workgroups (the CPU), or one
// whose parallel iterations run in workgroups of `workgroup_lanes` lanes
// sharing `shared_bytes` of memory.
struct LoweringTarget {
  int workgroup_lanes = 0;
  int64_t shared_bytes = 0;
};

// The C-family backends' target (OpenCL, CUDA, HIP, Metal): groups of 256
// lanes, 32 KiB of shared memory (what OpenCL guarantees every device).
inline LoweringTarget workgroup_target() { return LoweringTarget{256, 32 * 1024}; }

// Compiles `kernel` for `device` ("cpu"): plans and lowers it now; the
// device's code is made at the first launch, for the arguments' strides (on
// the CPU one variant per pattern of unit-strided last axes). Throws Error
// when the device is unknown or unavailable, its backend compiles no tile
// kernels, or a construct has no lowering.
std::unique_ptr<CompiledKernel> compile(std::string_view device, const Kernel& kernel,
                                        const CompileOptions& options = {});

// The kernel IR `kernel` lowers to for `target`, as text (what the backend
// compiles), after a comment line that says how it runs: in workgroups, or
// one iteration per lane and why.
std::string lowered_kernel_ir(const Kernel& kernel, const CompileOptions& options = {}, const LoweringTarget& target = {});

}  // namespace tack::tile
