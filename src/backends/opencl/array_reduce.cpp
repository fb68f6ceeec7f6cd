#include "backends/opencl/array_reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "codegen/cfamily/abi.h"

namespace tack::backends::opencl {

namespace {

// Zero ties and NaNs follow the contract: min prefers -0.0, max +0.0, and
// any NaN wins. Sums add in f32; their order is unspecified.
const char* kSource = R"(#pragma OPENCL FP_CONTRACT OFF
static inline float tk_combine(int op, float a, float b) {
    if (op == 0) return a + b;
    if (isnan(a) || isnan(b)) return NAN;
    if (a == b) return (signbit(a) != 0) == (op == 1) ? a : b;
    return (op == 1) == (a < b) ? a : b;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void tk_reduce_f32(__global const char* base, long offset, long n, int op, float identity, __global uint* out) {
    __global const float* x = (__global const float*)(base + offset);
    __local float lanes[256];
    int lane = (int)get_local_id(0);
    float acc = identity;
    long stride = (long)get_num_groups(0) * 256;
    for (long i = (long)get_group_id(0) * 256 + lane; i < n; i += stride) acc = tk_combine(op, acc, x[i]);
    lanes[lane] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int width = 128; width > 0; width >>= 1) {
        if (lane < width) lanes[lane] = tk_combine(op, lanes[lane], lanes[lane + width]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane != 0) return;
    volatile __global atomic_uint* target = (volatile __global atomic_uint*)out;
    uint old = atomic_load_explicit(target, memory_order_relaxed, memory_scope_device);
    while (!atomic_compare_exchange_weak_explicit(target, &old, as_uint(tk_combine(op, as_float(old), lanes[0])),
                                                  memory_order_relaxed, memory_order_relaxed, memory_scope_device)) {
    }
}
)";

// The most groups one reduction launches; each loops over its share.
constexpr uint64_t kMaxGroups = 1024;

struct Program {
    std::once_flag once;
    ClKernel kernel;
    ClBuffer out;
    std::mutex running;
};

Program& program(ClDevice& device) {
    static Program p;
    std::call_once(p.once, [&] {
        ClProgram built = device.build(kSource, "-cl-std=CL3.0");
        p.kernel = device.kernel(built, "tk_reduce_f32");
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
    int32_t code = op == ReduceOp::Sum ? 0 : op == ReduceOp::Min ? 1 : 2;
    float identity = op == ReduceOp::Sum   ? 0.0f
                     : op == ReduceOp::Min ? std::numeric_limits<float>::infinity()
                                           : -std::numeric_limits<float>::infinity();
    device.write(p.out, 0, &identity, sizeof identity);
    int64_t offset = a.byte_offset(), n = a.size();
    ClLaunch args;
    args.buffer(storage).value(offset).value(n).value(code).value(identity).buffer(p.out);
    uint64_t groups = std::min<uint64_t>((static_cast<uint64_t>(n) + 255) / 256, kMaxGroups);
    device.launch(p.kernel, args, groups * codegen::cfamily::kGroupSize, codegen::cfamily::kGroupSize);
    float result;
    device.read(p.out, 0, &result, sizeof result);
    return static_cast<double>(result);
}

}  // namespace tack::backends::opencl
