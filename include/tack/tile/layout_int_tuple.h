// IntTuple: the nested integer tuples that spell a layout's shape and stride.
//
// A tuple is a leaf or an ordered list of tuples. A leaf is static (its
// integer is known when the layout is built), dynamic (a symbol id that
// stands for an integer known only at run time, optionally carrying that
// runtime value once it is bound) or symbolic: an integer coefficient times a
// product of dynamic leaves, such as the stride 16*?1*?2 that follows the
// extents 16, ?1 and ?2 in a compact layout. The algebra's operations reason
// only with static leaves; the prover also reasons with symbolic ones, as
// monomials over symbols that are each at least 1. A bound runtime value is
// used by evaluation and by the finite checker, never by an operation or a
// proof, because it is not known when the kernel is compiled.
//
// The representation is a plain runtime tree rather than template
// metaprogramming: layouts are built and transformed by the compiler at run
// time, and the whole layer must compile quickly.
//
// Notation (CuTe): a leaf prints as its integer ("4"), a tuple as
// "(a,b,...)"; a dynamic leaf prints as "?3" (symbol 3) or "?3=8" (symbol 3,
// bound to 8); a symbolic leaf as its factors joined by '*', the coefficient
// first unless it is 1 ("16*?3*?4=2").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tack/tile/layout_result.h"

namespace tack::tile {

using SymbolId = std::uint32_t;

// A symbol id never returned before in this process.
SymbolId fresh_symbol();

class IntTuple {
 public:
  // A static leaf.
  IntTuple(std::int64_t value);  // NOLINT: implicit so that tuples read as literals

  // A dynamic leaf: symbol `symbol`, optionally bound to `runtime_value`.
  static IntTuple dynamic(SymbolId symbol, std::optional<std::int64_t> runtime_value = std::nullopt);

  // coefficient * the product of `factors`, each a dynamic or symbolic leaf,
  // in its simplest form: a static leaf when the coefficient is 0 or there
  // are no factors, the dynamic leaf itself for 1 * one factor, else a
  // symbolic leaf whose factors are sorted by symbol. Throws
  // std::invalid_argument for a factor that is static or a tuple.
  static IntTuple symbolic(std::int64_t coefficient, std::vector<IntTuple> factors);

  // A tuple of `children`. Precondition: children is not empty.
  static IntTuple tuple(std::vector<IntTuple> children);

  bool is_leaf() const { return kind_ != Kind::tuple; }
  bool is_tuple() const { return kind_ == Kind::tuple; }
  bool is_static_leaf() const { return kind_ == Kind::static_leaf; }
  bool is_dynamic_leaf() const { return kind_ == Kind::dynamic_leaf; }
  bool is_symbolic_leaf() const { return kind_ == Kind::symbolic_leaf; }

  // The integer of a static leaf. Precondition: is_static_leaf().
  std::int64_t value() const;
  // The symbol of a dynamic leaf. Precondition: is_dynamic_leaf().
  SymbolId symbol() const;
  // A leaf's integer for evaluation: the static value, the runtime value
  // bound to a dynamic leaf, or a symbolic leaf's product of them; nullopt
  // for a tuple, an unbound symbol, or a product past 64 bits.
  std::optional<std::int64_t> runtime_value() const;
  // A leaf as coefficient * factors: (value, none) for a static leaf, (1,
  // itself) for a dynamic one. Precondition: is_leaf().
  std::int64_t coefficient() const;
  std::vector<IntTuple> factors() const;

  // Number of top-level entries; 1 for a leaf.
  std::size_t rank() const { return is_tuple() ? children_.size() : 1; }
  // Precondition: is_tuple() and i < rank().
  const IntTuple& operator[](std::size_t i) const { return children_[i]; }
  // Empty for a leaf.
  const std::vector<IntTuple>& children() const { return children_; }

  bool operator==(const IntTuple& other) const;
  bool operator!=(const IntTuple& other) const { return !(*this == other); }

 private:
  enum class Kind : std::uint8_t { static_leaf, dynamic_leaf, symbolic_leaf, tuple };
  IntTuple() = default;

  Kind kind_ = Kind::static_leaf;
  bool bound_ = false;
  SymbolId symbol_ = 0;
  // static value, the runtime value of a bound dynamic leaf, or a symbolic
  // leaf's coefficient
  std::int64_t value_ = 0;
  std::vector<IntTuple> children_;  // a tuple's entries
  std::vector<IntTuple> factors_;   // a symbolic leaf's dynamic leaves, by symbol
};

// True when every leaf is static.
bool is_static(const IntTuple& t);
// 0 for a leaf, 1 for a flat tuple, and so on.
int depth(const IntTuple& t);
// The leaves in order (depth-first, left to right).
std::vector<IntTuple> leaves(const IntTuple& t);
// Same tree shape (leaves where the other has leaves).
bool congruent(const IntTuple& a, const IntTuple& b);
// Product of the leaves; unknown when a leaf is dynamic, inadmissible on overflow.
Result<std::int64_t> product(const IntTuple& t);
// The product of the leaves as one leaf, static or symbolic: product((4,?1,?2))
// is 4*?1*?2. Inadmissible when the coefficient overflows 64 bits.
Result<IntTuple> symbolic_product(const IntTuple& t);
// Binds the runtime value of every dynamic leaf whose symbol is in `values`.
IntTuple bind(const IntTuple& t, const std::map<SymbolId, std::int64_t>& values);

std::string to_string(const IntTuple& t);
// Parses the notation above; whitespace is ignored and CuTe's static marker
// "_" before an integer is accepted ("_4" reads as 4).
Result<IntTuple> parse_int_tuple(std::string_view text);

}  // namespace tack::tile
