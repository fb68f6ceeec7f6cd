// MSL's prelude on the host: the syntax-check shim, with `metal` opened as
// `using namespace metal;` opens it in printed sources.
#pragma once
#include "metal_shim.h"
using namespace metal;
