// The calling convention between a GPU-style runtime and the kernels the
// C-family emitter prints (CUDA, HIP, OpenCL C, Metal).
//
// A variant is three entry points that take one argument list, the same for
// all three, so a runtime sets the arguments once per launch:
//
//   count   one work item: runs the prologue and writes the launch's
//           iteration count, or a refusal, to `out` (CountRecord below).
//   body    one work item per flat iteration index i in [0, count): the
//           prologue again (it only binds locals and loads arrays), then
//           the iteration. Work items with i >= count return at once.
//   result  one work item: prologue and epilogue, then the return value's
//           bits to out[0] (low bytes). Printed only for kernels that
//           return a value.
//
// The argument list is `slots`, in order: for each kernel parameter, its
// pieces (an array's data pointer, then the extents and strides its code
// reads, as 64-bit integers; a scalar's value in its dtype's carrier; a
// hardware texture's object handle), then
// the trailing slots Count (a 64-bit count, read by body) and Out (a pointer
// to a buffer of at least kOutWords 64-bit words). A debug variant adds a
// Debug slot: a pointer to DebugRecord words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "tack/dtype.h"

namespace tack::codegen::cfamily {

struct ArgSlot {
    enum class Kind : uint8_t {
        Data,             // param's storage: a device pointer (Metal: an argument-buffer entry)
        ByteOffset,       // param's first element, in bytes past Data, int64 (follows Data)
        Extent,           // param's extent along `dim`, int64
        Stride,           // param's stride along `dim`, in scalars, int64
        ComponentStride,  // param's component stride, in scalars, int64
        Scalar,           // param's value, `dtype`'s carrier (32 bits at least, see `bytes`)
        Count,            // the launch's iteration count, int64
        Out,              // pointer to kOutWords int64 words
        Debug,            // pointer to kDebugWords int64 words (debug variants)
        Print,            // pointer to the print buffer (kernels that print; see PrintRecord)
        Image,            // param's texture object (a hardware texture), 64-bit handle
    };
    Kind kind = Kind::Scalar;
    int param = -1;  // kernel parameter index (Data .. Scalar)
    int dim = 0;     // Extent, Stride
    DType dtype = DType::I64;
    int bytes = 8;   // the argument's size as the runtime passes it
};

// out[0]: the count (>= 0), or -1 when refused; then the refusal's fields
// in codegen::LaunchRefusal's order from out[1] (reason, dim, step, ndims,
// then low and high words of each dimension's trip count).
inline constexpr int kOutWords = 1 + 4 + 2 * 8;

// Debug records: word 0 is set to 1 by the first failing access (atomic
// compare-exchange), word 1 is the access index, words 2.. the 16 values
// of runtime::DebugState.
inline constexpr int kDebugWords = 2 + 16;

// The print buffer, 64-bit words: word 0 (its low 32 bits, atomically) counts
// the words claimed after the two header words, word 1 is the capacity in
// words. A print claims 1 + n words: the statement's index into
// CSource::prints, then each value: an integer sign- or zero-extended to
// 64 bits, a float's bits (f32 in the low 32). Claims past the capacity
// write nothing, so word 0 above the capacity says lines were lost.
inline constexpr int kPrintHeaderWords = 2;

// One print statement's values as runtime/print.h's tack_rt_print reads
// them: each a DType index, with 0x40 where a vector's list opens and 0x80
// where it closes.
struct PrintFormat {
    std::vector<uint8_t> kinds;
};

// The work-group size every launch uses.
inline constexpr int kGroupSize = ir::kWorkgroupLanes;

struct EntryPoints {
    std::string count, body, result;  // result is empty when the kernel returns nothing
};

}  // namespace tack::codegen::cfamily
