// Shared by the printer and the parser.
#pragma once

#include <string>

#include "tack/tile/ir.h"

namespace tack::tile {

// A constant or pad value of element type `elem`, spelled so that reading it
// back as that type gives the same bits (except NaN payloads): shortest
// round-trip digits, always with a '.', 'e', "inf" or "nan" for floats.
std::string format_number(const Attrs& attrs, Scalar elem);

}  // namespace tack::tile
