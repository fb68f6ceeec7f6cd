// HIP spells its helpers as CUDA does.
#pragma once
#include "host_cuda_shim.h"
