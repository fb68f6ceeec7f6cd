// The runtime side of print() in kernels: formats one line and writes it to
// standard output in one write, so lines from parallel iterations never
// interleave within a line.
#pragma once

#include <cstdint>

extern "C" {
// kinds[i] is a DType index, with 0x40 set where a vector's bracketed list
// opens and 0x80 where it closes; values[i] holds an integer sign- or
// zero-extended to 64 bits, or a float widened to a double's bits.
void tack_rt_print(int32_t n, const uint8_t* kinds, const uint64_t* values);
}
