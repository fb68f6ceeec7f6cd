// The checks a debug variant compiles in, as every code generator numbers
// them: a failing check reports its index, and the driver turns the index
// back into a message with the source position.
#pragma once

#include <cstdint>

#include "ir/ir.h"

namespace tack::codegen {

// One check debug mode compiled in: an array access's indices against the
// extents, or an integer division's divisor against zero.
struct DebugAccess {
    enum class Check : uint8_t { Bounds, ZeroDivisor };
    int array = -1;
    ir::Span span;
    int index_count = 0;
    Check check = Check::Bounds;
};

}  // namespace tack::codegen
