#include "codegen/cfamily/dialect.h"

namespace tack::codegen::cfamily {

const char* to_string(Dialect d) {
    switch (d) {
        case Dialect::Cuda: return "cuda";
        case Dialect::Hip: return "hip";
        case Dialect::OpenCL: return "opencl";
        case Dialect::Metal: return "metal";
    }
    return "?";
}

std::optional<Dialect> dialect_named(std::string_view name) {
    for (Dialect d : {Dialect::Cuda, Dialect::Hip, Dialect::OpenCL, Dialect::Metal})
        if (name == to_string(d)) return d;
    return std::nullopt;
}

namespace {

// Type order follows TACK_DTYPES: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64.
#define TACK_CUDA_TYPES                                                                                     \
    {"signed char", "short", "int", "long long", "unsigned char", "unsigned short", "unsigned int",           \
     "unsigned long long", "float", "double"}
#define TACK_CL_TYPES {"char", "short", "int", "long", "uchar", "ushort", "uint", "ulong", "float", "double"}

// CUDA contracts a multiply and an add where the source does (--fmad=true)
// but never flushes denormals or approximates division and square root.
const DialectTable kCuda{
    Dialect::Cuda,
    TACK_CUDA_TYPES,
    "LL",
    "ULL",
    "static __device__ __forceinline__",
    "static __device__ __noinline__",
    "extern \"C\" __global__",
    "",
    "(long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x",
    "f",
    "",
    {"--ftz=false", "--prec-div=true", "--prec-sqrt=true", "--fmad=true"},
    true,
    true,
    false,
    "__shared__ ",
    "",
    "(int)threadIdx.x",
    "__syncthreads()",
    "__syncthreads()",
    "__launch_bounds__(256)",
    "tex3D<float>",
    {"__fmul_rn", "__dmul_rn"},
};

// hipRTC's default contraction (fast) fuses across statements; `on` keeps
// fusion inside one expression, as the contract permits.
const DialectTable kHip{
    Dialect::Hip,
    TACK_CUDA_TYPES,
    "LL",
    "ULL",
    "static __device__ __forceinline__",
    "static __device__ __noinline__",
    "extern \"C\" __global__",
    "",
    "(long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x",
    "f",
    "#if !defined(__HIPCC_RTC__)\n#include <hip/hip_runtime.h>\n#endif\n",
    {"-ffp-contract=on"},
    true,
    true,
    false,
    "__shared__ ",
    "",
    "(int)threadIdx.x",
    "__syncthreads()",
    "__syncthreads()",
    "__launch_bounds__(256)",
    nullptr,
    {nullptr, nullptr},
};

// get_global_id wraps at 2^32 on some devices, so the index is built from
// the group number. FP_CONTRACT is off: PoCL fuses across statements when it
// is on, and contraction is permitted, never required.
const DialectTable kOpenCL{
    Dialect::OpenCL,
    TACK_CL_TYPES,
    "L",
    "UL",
    "static inline",
    "__attribute__((noinline)) static",
    "__kernel",
    "__global ",
    "(long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0)",
    "",
    "#pragma OPENCL FP_CONTRACT OFF\n",
    {"-cl-std=CL3.0", "-cl-fp32-correctly-rounded-divide-sqrt"},
    false,
    true,
    true,
    "__local ",
    "__local ",
    "(int)get_local_id(0)",
    "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
    "barrier(CLK_LOCAL_MEM_FENCE)",
    "__attribute__((reqd_work_group_size(256, 1, 1)))",
    nullptr,
    {nullptr, nullptr},
};

// MSL has no f64; its `double` spelling is never printed (emit_c rejects
// f64 first). Safe math is a pipeline option, recorded for the runtime.
const DialectTable kMetal{
    Dialect::Metal,
    {"char", "short", "int", "long", "uchar", "ushort", "uint", "ulong", "float", "double"},
    "L",
    "UL",
    "static inline",
    "__attribute__((noinline)) static",
    "kernel",
    "device ",
    "",
    "",
    "#include <metal_stdlib>\nusing namespace metal;\n",
    {"fastMathEnabled=false"},
    false,
    false,
    false,
    "threadgroup ",
    "threadgroup ",
    "(int)tk_lane",
    "threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device)",
    "threadgroup_barrier(mem_flags::mem_threadgroup)",
    "",
    nullptr,
    {nullptr, nullptr},
};

#undef TACK_CUDA_TYPES
#undef TACK_CL_TYPES

}  // namespace

const DialectTable& table(Dialect d) {
    switch (d) {
        case Dialect::Cuda: return kCuda;
        case Dialect::Hip: return kHip;
        case Dialect::OpenCL: return kOpenCL;
        case Dialect::Metal: return kMetal;
    }
    return kCuda;
}

}  // namespace tack::codegen::cfamily
