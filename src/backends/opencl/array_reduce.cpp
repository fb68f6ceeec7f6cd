#include "backends/opencl/array_reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "codegen/cfamily/abi.h"
#include "codegen/cfamily/dialect.h"
#include "codegen/cfamily/prelude.h"

namespace tack::backends::opencl {

namespace {

// One kernel per reduction, printed over the C-family prelude's combining
// and block-reduction helpers (the rules of block_min/block_max: any NaN
// wins, min prefers -0.0, max +0.0; sums add in f32 in an unspecified
// order). Each group folds its share of the elements lane by lane, reduces
// its lanes, and its lane 0 combines the group's result into `out` by
// compare-and-swap.
std::string reduction_source() {
    using codegen::cfamily::Prelude;
    Prelude prelude(codegen::cfamily::Dialect::OpenCL);
    std::string kernels;
    for (auto op : {ir::BlockOp::Sum, ir::BlockOp::Min, ir::BlockOp::Max}) {
        std::string combine = prelude.block_combine(op), reduce = prelude.block_reduce(op);
        kernels += std::string("\n__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\nvoid tk_reduce_") +
                   ir::to_string(op) +
                   "(__global const char* base, long offset, long n, float identity, __global uint* out) {\n"
                   "    __global const float* x = (__global const float*)(base + offset);\n"
                   "    __local float lanes[256];\n"
                   "    int lane = (int)get_local_id(0);\n"
                   "    float acc = identity;\n"
                   "    long stride = (long)get_num_groups(0) * 256;\n"
                   "    for (long i = (long)get_group_id(0) * 256 + lane; i < n; i += stride) acc = " + combine +
                   "(acc, x[i]);\n"
                   "    float group = " + reduce + "(lanes, lane, acc);\n"
                   "    if (lane != 0) return;\n"
                   "    volatile __global atomic_uint* target = (volatile __global atomic_uint*)out;\n"
                   "    uint old = atomic_load_explicit(target, memory_order_relaxed, memory_scope_device);\n"
                   "    while (!atomic_compare_exchange_weak_explicit(target, &old, as_uint(" + combine +
                   "(as_float(old), group)),\n"
                   "                                                  memory_order_relaxed, memory_order_relaxed, "
                   "memory_scope_device)) {\n"
                   "    }\n"
                   "}\n";
    }
    return codegen::cfamily::table(codegen::cfamily::Dialect::OpenCL).preamble + prelude.text() + kernels;
}

// The most groups one reduction launches; each loops over its share.
constexpr uint64_t kMaxGroups = 1024;

struct Program {
    std::once_flag once;
    ClKernel kernels[3];  // by ReduceOp
    ClBuffer out;
    std::mutex running;
};

Program& program(ClDevice& device) {
    static Program p;
    std::call_once(p.once, [&] {
        ClProgram built = device.build(reduction_source(), "-cl-std=CL3.0");
        p.kernels[static_cast<int>(ReduceOp::Sum)] = device.kernel(built, "tk_reduce_block_sum");
        p.kernels[static_cast<int>(ReduceOp::Min)] = device.kernel(built, "tk_reduce_block_min");
        p.kernels[static_cast<int>(ReduceOp::Max)] = device.kernel(built, "tk_reduce_block_max");
        p.out = device.allocate(sizeof(uint32_t));
    });
    return p;
}

}  // namespace

std::optional<double> reduce_on_device(ClDevice& device, const ClBuffer& storage, const runtime::Array& a,
                                       ReduceOp op) {
    if (a.dtype() != DType::F32 || !a.contiguous() || a.size() == 0) return std::nullopt;
    Program& p = program(device);
    std::lock_guard<std::mutex> hold(p.running);
    float identity = op == ReduceOp::Sum   ? 0.0f
                     : op == ReduceOp::Min ? std::numeric_limits<float>::infinity()
                                           : -std::numeric_limits<float>::infinity();
    device.write(p.out, 0, &identity, sizeof identity);
    int64_t offset = a.byte_offset(), n = a.size();
    gpu::Arguments args;
    args.value(storage.handle()).value(offset).value(n).value(identity).value(p.out.handle());
    uint64_t groups = std::min<uint64_t>((static_cast<uint64_t>(n) + 255) / 256, kMaxGroups);
    device.launch(p.kernels[static_cast<int>(op)], args, groups * codegen::cfamily::kGroupSize, codegen::cfamily::kGroupSize);
    float result;
    device.read(p.out, 0, &result, sizeof result);
    return static_cast<double>(result);
}

}  // namespace tack::backends::opencl
