// The four C-family targets and what each spells differently. One printer
// serves them all (emit_c.h); a dialect is this table plus the few hooks in
// prelude.cpp that differ in body (bit casts, atomics, the negation
// workarounds the contract names).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tack/dtype.h"

namespace tack::codegen::cfamily {

enum class Dialect { Cuda, Hip, OpenCL, Metal };

const char* to_string(Dialect d);  // "cuda", "hip", "opencl", "metal"
std::optional<Dialect> dialect_named(std::string_view name);

struct DialectTable {
    Dialect dialect;
    // The scalar type of each dtype, indexed by DType.
    const char* type[kNumDTypes];
    // Integer literal suffixes of the 64-bit carriers ("L"/"UL" where long
    // is 64 bits, "LL"/"ULL" where it is not guaranteed).
    const char* i64_suffix;
    const char* u64_suffix;
    // `static inline` or its equivalent, before every helper; the noinline
    // form for the helpers the contract keeps out of line.
    const char* helper;
    const char* helper_noinline;
    // Before an entry's return type, and before an array pointer's element type.
    const char* kernel;
    const char* global;
    // The launch's 64-bit flat work-item index, for CUDA, HIP and OpenCL
    // (Metal reads its thread position argument instead).
    const char* flat_index;
    // f32 math functions take this suffix (CUDA's sqrtf); the f64 names are bare.
    const char* f32_math_suffix;
    // Lines before the helpers: pragmas, includes.
    const char* preamble;
    // What the runtime must pass to the device compiler.
    std::vector<std::string> compile_options;
    // 64-bit atomics exist on the target (CUDA and HIP, through 64-bit CAS).
    bool atomics64;
    bool has_f64;
    // Arrays arrive as a buffer and a byte offset to their first element
    // (OpenCL's cl_mem has no interior pointers); elsewhere the runtime
    // passes the first element's address.
    bool byte_offsets;
    // Workgroups: the qualifier of a workgroup-shared array declaration
    // and of a pointer to one, the lane's index in its group (Metal reads
    // its thread-position argument), a user barrier (shared and global
    // memory) and the narrower barrier inside a block reduction (shared
    // memory only).
    const char* shared;
    const char* shared_pointer;
    const char* lane_index;
    const char* barrier;
    const char* shared_barrier;
    // Before a body entry that uses workgroup primitives: fixes its group
    // at kGroupSize lanes where the dialect can say so.
    const char* group_size_attribute;
    // Hardware textures: the function that samples a 3D f32 texture object
    // at normalized coordinates with the object's filtering, or null where
    // textures reach code as snapshots in memory.
    const char* texture_sample;
    // A float product that is rounded on its own, never fused into a later
    // addition (f32, f64), or null where statements never fuse. nvcc's
    // --fmad=true contracts a product and an addition across statements,
    // so a product bound to a name is computed with these (the language
    // keeps fusion inside one expression).
    const char* rounded_product[2];
};

const DialectTable& table(Dialect d);

// The C spelling of a dtype in dialect `d`.
inline const char* type_name(const DialectTable& t, DType dt) { return t.type[static_cast<int>(dt)]; }

}  // namespace tack::codegen::cfamily
