// How often a fragment occurs in printed text (TileIR, kernel IR, LLVM IR),
// for tests that count operations in what the compiler printed.
#pragma once

#include <cstddef>
#include <string>

namespace tack::tile {

// The occurrences of `what` in `text`, overlapping ones included.
inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace tack::tile
