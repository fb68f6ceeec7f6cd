// Prints one typed kernel variant as CUDA, HIP, OpenCL C or MSL source.
//
// The translation unit holds the helpers the kernel uses (prelude.h) and
// the three entry points of abi.h, which share the argument list `slots`:
//
//   for each kernel parameter, in order (local arrays and device-class
//   objects contribute nothing; their leaves are parameters of their own):
//     array or texture snapshot: Data (pointer to its dtype), and when the
//       code reads the array: Extent for every dimension, Stride for every
//       dimension of a non-contiguous array, ComponentStride for a
//       structure-of-arrays element layout; each 64 bits
//     scalar: its value in the carrier of its dtype: i8/i16/i32 as a 32-bit
//       int, u8/u16/u32 as a 32-bit unsigned int (only the low bits are
//       read), i64/u64/f32/f64 in their own type
//   then Count (int64), Out (pointer to kOutWords int64), in a debug
//   variant Debug (pointer to kDebugWords int64), and in a kernel that
//   prints, Print (pointer to the print buffer).
//
// CUDA, HIP and OpenCL take the slots as kernel arguments in that order.
// MSL takes the Data slots as members of one argument buffer struct at
// [[buffer(0)]] (member k has [[id(k)]]), and every other slot as its own
// buffer argument, [[buffer(1)]] onwards in slot order; a kernel without
// arrays still leaves buffer 0 unused.
//
// Every launch uses work groups of kGroupSize; count and result run as one
// work item. Printed code computes each integer operation bit for bit as
// the LLVM emitter does; floats use the target's ordinary operations at
// the annotated precision.
#pragma once

#include <string>
#include <vector>

#include "codegen/cfamily/abi.h"
#include "codegen/cfamily/dialect.h"
#include "codegen/debug_access.h"
#include "ir/ir.h"

namespace tack::codegen::cfamily {

struct EmitOptions {
    // Check every index against its extent and every integer divisor
    // against zero; the first failure goes to the Debug slot (abi.h) and a
    // failing access is skipped (a load gives 0).
    bool debug = false;
};

struct CSource {
    Dialect dialect = Dialect::OpenCL;
    std::string text;                         // the whole translation unit
    EntryPoints entries;                      // entry_symbol(kernel, "count" / "body" / "result")
    std::vector<ArgSlot> slots;               // the shared argument list, in order
    std::vector<std::string> compile_options; // what the runtime passes to the device compiler
    std::vector<DebugAccess> debug_accesses;  // debug variants: the checks, by report index
    std::vector<PrintFormat> prints;          // the print statements, by record index (abi.h)
    // The count entry reads an array element (or updates one, or prints): it
    // must run after the launches queued before it. When false it reads only
    // scalars and extents, and a runtime may run it beside them.
    bool count_reads_memory = false;
    // The kernel uses a workgroup primitive: its body runs in groups of
    // exactly kGroupSize lanes. With a barrier or block reduction
    // (full_groups) every group must be complete: the runtime refuses a
    // launch whose count is not a multiple of kGroupSize.
    bool workgroups = false;
    bool full_groups = false;
    // A barrier or block reduction inside an `if`, or after a `continue`
    // that ends the iteration (uniform, as the participation proof
    // requires), or taken out of such branches by the tile lowering
    // (ir::Kernel::barriers_out_of_branches). PoCL 3.1's work-group code
    // gave wrong values for a kernel whose barriers sat under such a
    // branch, taken or not, and the right ones built without optimization;
    // with the barriers taken out it gives the right ones either way, but
    // its optimizer takes up to 160 times as long (a random tile program
    // with 55 barriers: 78 s against 0.5). Its device builds these kernels
    // unoptimized (gpu::Device::branched_barrier_options).
    bool barrier_under_branch = false;
};

// Checks that `typed` is legal for the dialect, then prints it. Throws
// syntax::CompileError (ErrorKind::Type, through ir::Kernel::fail) naming
// the kernel, the target, the construct and the reason for: an atomic
// outside the target's domain (CUDA/HIP: i32, u32, i64, u64, f32, f64;
// OpenCL and Metal: i32, u32, f32) or on storage that is not a global
// array; any f64 value, array or parameter on Metal; and (ErrorKind::Value)
// a barrier or block reduction the participation proof does not accept
// (analysis/uniformity.h).
CSource emit_c(const ir::Kernel& typed, Dialect dialect, const EmitOptions& options = {});

// The legality check alone.
void check_legal(const ir::Kernel& typed, Dialect dialect);

}  // namespace tack::codegen::cfamily
