// Writes the GPU source of every freshly specialized variant to a folder, so
// that the device compilers can check what the test suites actually print
// (tools/gpu_compile_check).
//
// With TACK_EMIT_SOURCES=<folder> set, dump_sources prints `typed` in each
// C-family dialect and writes the text to
//   <folder>/<dialect>/<xxh64 of the text, 16 hex digits>.<cu|hip|cl|metal>
// unless that file exists; a dialect whose legality check rejects the kernel
// gets nothing. Any other exception from the printer is an emitter defect,
// recorded as <folder>/<dialect>/<xxh64 of the printed IR>.error holding its
// message, and the caller carries on. Without the variable it does nothing
// (the environment is read once per process).
#pragma once

#include "ir/ir.h"

namespace tack::driver {

void dump_sources(const ir::Kernel& typed, bool debug);

}  // namespace tack::driver
