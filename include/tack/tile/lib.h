// The reference tile library: kernels captured from the core surface and run
// by the interpreter. None adds an IR entity.
#pragma once

#include "tack/tile/lib/conv.h"
#include "tack/tile/lib/copy.h"
#include "tack/tile/lib/gather.h"
#include "tack/tile/lib/matmul.h"
#include "tack/tile/lib/norm.h"
#include "tack/tile/lib/scan.h"
#include "tack/tile/lib/softmax.h"
#include "tack/tile/lib/sort.h"
#include "tack/tile/lib/topk.h"
