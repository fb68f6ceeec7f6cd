// The checks a debug variant compiles in, as every code generator numbers
// them: a failing check reports its index, and the driver turns the index
// back into a message with the source position.
#pragma once

#include <cstdint>

#include "ir/ir.h"

namespace tack::codegen {

// One check debug mode compiled in: an array access's indices against the
// extents, an integer division's divisor against zero, or (Race) an access
// the race detector records in the shadow (runtime/race_shadow.h).
struct DebugAccess {
    enum class Check : uint8_t { Bounds, ZeroDivisor, Race };
    // How a Race site uses its element; the runtime reads the same numbers
    // (runtime::RaceUse).
    enum class RaceUse : uint8_t { Read = 0, Write = 1, Atomic = 2 };
    int array = -1;
    ir::Span span;
    int index_count = 0;
    Check check = Check::Bounds;
    RaceUse use = RaceUse::Read;
    // Race sites: the load or the store of an augmented store (a[i] += v),
    // which reads and writes without being atomic.
    bool augmented = false;
};

}  // namespace tack::codegen
