// Text form of TileIR, for tests and debugging. parse(print(k)) rebuilds an
// equivalent kernel, and printing it again gives the same text.
//
//   kernel @axpy(%0: view<?xf32>, %1: view<?xf32>) {
//     %2 = dim %0 axis 0 : i64
//     parallel %3 < %2 exec block {
//       %4 = view %0[%3] : view<f32>
//       %5 = load %4 pad 0.0 : f32
//       ...
//     }
//   }
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "tack/tile/ir.h"

namespace tack::tile {

std::string print(const Kernel& kernel);

// Throws Error("line L, column C: ...") on malformed text. The result is not
// verified; call verify() to check it.
Kernel parse(std::string_view text);

// Numbers values in the order print() defines them, so diagnostics name
// values exactly as the printed kernel does. A value outside the kernel (a
// dangling reference) is named "%?".
class ValueNames {
 public:
  explicit ValueNames(const Kernel& kernel);
  std::string operator()(const Value* v) const;
  // "'add' %7", or "'store'" for an operation without results.
  std::string describe(const Operation& op) const;

 private:
  void number(Operation& op);
  std::unordered_map<const Value*, unsigned> ids_;
};

}  // namespace tack::tile
