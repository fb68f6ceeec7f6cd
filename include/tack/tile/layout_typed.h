// Typed layouts: layouts between named coordinate spaces.
//
// A Dim is a fresh logical dimension: its identity is a counter-based id and
// two Dims are the same only if one was copied from the other. The label is
// for diagnostics only; two Dims labelled "k" are still different dimensions,
// which is what stops a kernel from composing maps over unrelated spaces that
// merely share a name.
//
// A TypedLayout names the Dim of each top-level mode of its domain and the
// Dims of the space its integer values index (its codomain), in the order the
// codomain linearizes them. Composition A o B is admitted only when B's
// codomain is A's domain, Dim for Dim.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tack/tile/layout.h"

namespace tack::tile {

class Dim {
 public:
  // A dimension distinct from every Dim created before.
  static Dim fresh(std::string label);

  std::uint64_t id() const { return id_; }
  const std::string& label() const { return *label_; }

  bool operator==(const Dim& other) const { return id_ == other.id_; }
  bool operator!=(const Dim& other) const { return id_ != other.id_; }

 private:
  Dim(std::uint64_t id, std::shared_ptr<const std::string> label) : id_(id), label_(std::move(label)) {}
  std::uint64_t id_;
  std::shared_ptr<const std::string> label_;
};

struct TypedLayout {
  Layout layout;
  std::vector<Dim> domain;    // one Dim per top-level mode of layout
  std::vector<Dim> codomain;  // the space layout's values index
};

// @pre   domain.size() == rank(layout), codomain not empty, no Dim repeated
//        within the domain or within the codomain.
// Example: make_typed_layout((4,8):(8,1), {m, n}, {addr})
Result<TypedLayout> make_typed_layout(Layout layout, std::vector<Dim> domain, std::vector<Dim> codomain);

// A o B between typed spaces.
// @pre   B.codomain == A.domain (the same Dims in the same order), and
//        composition(A.layout, B.layout) admissible.
// @post  result.domain == B.domain, result.codomain == A.codomain,
//        result.layout == composition(A.layout, B.layout), kept as one mode
//        per B mode (a leaf B whose composition has several modes becomes a
//        single grouped mode).
// Example: A : (m,n) -> (addr) = (4,8):(8,1), B : (t) -> (m,n) = 32:1 gives
//          (t) -> (addr) = ((4,8)):((8,1)); with B : (t) -> (k,n) it is
//          rejected, naming the labels k and m.
Result<TypedLayout> compose(const TypedLayout& a, const TypedLayout& b);

// "(m,n) -> (addr) : (4,8):(8,1)"; labels, not ids.
std::string to_string(const TypedLayout& t);

}  // namespace tack::tile
