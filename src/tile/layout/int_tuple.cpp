#include "tack/tile/layout_int_tuple.h"

#include "layout_internal.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <stdexcept>

namespace tack::tile {

SymbolId fresh_symbol() {
  // Symbols start at 1 so that a default-initialized id never aliases one.
  static std::atomic<SymbolId> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

IntTuple::IntTuple(std::int64_t value) : kind_(Kind::static_leaf), value_(value) {}

IntTuple IntTuple::dynamic(SymbolId symbol, std::optional<std::int64_t> runtime_value) {
  IntTuple t;
  t.kind_ = Kind::dynamic_leaf;
  t.symbol_ = symbol;
  t.bound_ = runtime_value.has_value();
  t.value_ = runtime_value.value_or(0);
  return t;
}

IntTuple IntTuple::symbolic(std::int64_t coefficient, std::vector<IntTuple> factors) {
  std::vector<IntTuple> symbols;
  for (const IntTuple& f : factors) {
    if (f.is_dynamic_leaf()) {
      symbols.push_back(f);
    } else if (f.is_symbolic_leaf()) {
      if (__builtin_mul_overflow(coefficient, f.value_, &coefficient))
        throw std::invalid_argument("IntTuple::symbolic: the coefficient overflows 64 bits.");
      symbols.insert(symbols.end(), f.factors_.begin(), f.factors_.end());
    } else {
      throw std::invalid_argument("IntTuple::symbolic: the factor " + to_string(f) + " is not a dynamic leaf.");
    }
  }
  if (coefficient == 0 || symbols.empty()) return IntTuple(coefficient);
  if (coefficient == 1 && symbols.size() == 1) return symbols.front();
  std::stable_sort(symbols.begin(), symbols.end(),
                   [](const IntTuple& a, const IntTuple& b) { return a.symbol_ < b.symbol_; });
  IntTuple t;
  t.kind_ = Kind::symbolic_leaf;
  t.value_ = coefficient;
  t.factors_ = std::move(symbols);
  return t;
}

IntTuple IntTuple::tuple(std::vector<IntTuple> children) {
  if (children.empty()) throw std::invalid_argument("IntTuple::tuple: a tuple needs at least one entry.");
  IntTuple t;
  t.kind_ = Kind::tuple;
  t.children_ = std::move(children);
  return t;
}

std::int64_t IntTuple::value() const {
  if (kind_ != Kind::static_leaf) throw std::logic_error("IntTuple::value: " + to_string(*this) + " is not a static leaf.");
  return value_;
}

SymbolId IntTuple::symbol() const {
  if (kind_ != Kind::dynamic_leaf) throw std::logic_error("IntTuple::symbol: " + to_string(*this) + " is not a dynamic leaf.");
  return symbol_;
}

std::optional<std::int64_t> IntTuple::runtime_value() const {
  if (kind_ == Kind::static_leaf || (kind_ == Kind::dynamic_leaf && bound_)) return value_;
  if (kind_ != Kind::symbolic_leaf) return std::nullopt;
  std::int64_t v = value_;
  for (const IntTuple& f : factors_) {
    std::optional<std::int64_t> x = f.runtime_value();
    if (!x || __builtin_mul_overflow(v, *x, &v)) return std::nullopt;
  }
  return v;
}

std::int64_t IntTuple::coefficient() const {
  if (kind_ == Kind::tuple) throw std::logic_error("IntTuple::coefficient: " + to_string(*this) + " is a tuple.");
  return kind_ == Kind::dynamic_leaf ? 1 : value_;
}

std::vector<IntTuple> IntTuple::factors() const {
  if (kind_ == Kind::tuple) throw std::logic_error("IntTuple::factors: " + to_string(*this) + " is a tuple.");
  if (kind_ == Kind::dynamic_leaf) return {*this};
  return factors_;
}

bool IntTuple::operator==(const IntTuple& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::static_leaf: return value_ == other.value_;
    case Kind::dynamic_leaf:
      return symbol_ == other.symbol_ && bound_ == other.bound_ && (!bound_ || value_ == other.value_);
    case Kind::symbolic_leaf: return value_ == other.value_ && factors_ == other.factors_;
    case Kind::tuple: return children_ == other.children_;
  }
  return false;
}

bool is_static(const IntTuple& t) {
  if (t.is_leaf()) return t.is_static_leaf();
  for (const IntTuple& c : t.children())
    if (!is_static(c)) return false;
  return true;
}

int depth(const IntTuple& t) {
  if (t.is_leaf()) return 0;
  int d = 0;
  for (const IntTuple& c : t.children()) d = std::max(d, depth(c));
  return d + 1;
}

namespace {
void collect_leaves(const IntTuple& t, std::vector<IntTuple>& out) {
  if (t.is_leaf()) {
    out.push_back(t);
    return;
  }
  for (const IntTuple& c : t.children()) collect_leaves(c, out);
}
}  // namespace

std::vector<IntTuple> leaves(const IntTuple& t) {
  std::vector<IntTuple> out;
  out.reserve(t.is_leaf() ? 1 : 2 * t.rank());
  collect_leaves(t, out);
  return out;
}

bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.rank() != b.rank()) return false;
  for (std::size_t i = 0; i < a.rank(); ++i)
    if (!congruent(a[i], b[i])) return false;
  return true;
}

Result<std::int64_t> product(const IntTuple& t) {
  if (t.is_leaf()) {
    if (!t.is_static_leaf()) return unknown("product: the extent " + to_string(t) + " is dynamic.");
    return t.value();
  }
  std::int64_t p = 1;
  for (const IntTuple& c : t.children()) {
    Result<std::int64_t> q = product(c);
    if (!q) return q;
    if (__builtin_mul_overflow(p, *q, &p))
      return inadmissible("product: the product of " + to_string(t) + " overflows 64 bits.");
  }
  return p;
}

Result<IntTuple> symbolic_product(const IntTuple& t) {
  std::int64_t coefficient = 1;
  std::vector<IntTuple> factors;
  for (const IntTuple& leaf : leaves(t)) {
    if (__builtin_mul_overflow(coefficient, leaf.coefficient(), &coefficient))
      return inadmissible("symbolic_product: the coefficient of " + to_string(t) + " overflows 64 bits.");
    if (!leaf.is_static_leaf())
      for (IntTuple& f : leaf.factors()) factors.push_back(std::move(f));
  }
  return IntTuple::symbolic(coefficient, std::move(factors));
}

IntTuple bind(const IntTuple& t, const std::map<SymbolId, std::int64_t>& values) {
  if (t.is_tuple()) {
    std::vector<IntTuple> children;
    children.reserve(t.rank());
    for (const IntTuple& c : t.children()) children.push_back(bind(c, values));
    return IntTuple::tuple(std::move(children));
  }
  if (t.is_dynamic_leaf()) {
    auto it = values.find(t.symbol());
    if (it != values.end()) return IntTuple::dynamic(t.symbol(), it->second);
  }
  if (t.is_symbolic_leaf()) {
    std::vector<IntTuple> factors;
    for (const IntTuple& f : t.factors()) factors.push_back(bind(f, values));
    return IntTuple::symbolic(t.coefficient(), std::move(factors));
  }
  return t;
}

std::string to_string(const IntTuple& t) {
  if (t.is_static_leaf()) return std::to_string(t.value());
  if (t.is_dynamic_leaf()) {
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "?" + to_string(..).
    std::string s = "?";
    s += std::to_string(t.symbol());
    if (auto v = t.runtime_value()) {
      s += '=';
      s += std::to_string(*v);
    }
    return s;
  }
  if (t.is_symbolic_leaf()) {
    std::string s = t.coefficient() == 1 ? "" : std::to_string(t.coefficient());
    for (const IntTuple& f : t.factors()) {
      if (!s.empty()) s += '*';
      s += to_string(f);
    }
    return s;
  }
  std::string s = "(";
  for (std::size_t i = 0; i < t.rank(); ++i) {
    if (i) s += ",";
    s += to_string(t[i]);
  }
  return s + ")";
}

namespace {

// Recursive descent over the tuple notation; `pos` is the read cursor.
class TupleParser {
 public:
  explicit TupleParser(std::string_view text) : text_(text) {}

  Result<IntTuple> parse_tuple() {
    skip_space();
    if (at('(')) {
      ++pos_;
      std::vector<IntTuple> children;
      while (true) {
        Result<IntTuple> child = parse_tuple();
        if (!child) return child;
        children.push_back(std::move(child).value());
        skip_space();
        if (at(',')) {
          ++pos_;
          continue;
        }
        if (at(')')) {
          ++pos_;
          break;
        }
        return error("expected ',' or ')'");
      }
      return IntTuple::tuple(std::move(children));
    }
    // A leaf: one term, or terms joined by '*' (a symbolic leaf).
    Result<IntTuple> first = parse_term();
    if (!first) return first;
    skip_space();
    if (!at('*')) return first;
    std::int64_t coefficient = 1;
    std::vector<IntTuple> factors;
    auto take = [&](const IntTuple& term) {
      if (term.is_static_leaf()) return !__builtin_mul_overflow(coefficient, term.value(), &coefficient);
      factors.push_back(term);
      return true;
    };
    if (!take(*first)) return error("the coefficient overflows 64 bits");
    while (at('*')) {
      ++pos_;
      Result<IntTuple> term = parse_term();
      if (!term) return term;
      if (!take(*term)) return error("the coefficient overflows 64 bits");
      skip_space();
    }
    return IntTuple::symbolic(coefficient, std::move(factors));
  }

  Result<IntTuple> parse_term() {
    skip_space();
    if (at('?')) {
      ++pos_;
      auto symbol = parse_integer();
      if (!symbol || *symbol < 0) return error("expected a symbol number after '?'");
      if (at('=')) {
        ++pos_;
        auto value = parse_integer();
        if (!value) return error("expected an integer after '='");
        return IntTuple::dynamic(static_cast<SymbolId>(*symbol), *value);
      }
      return IntTuple::dynamic(static_cast<SymbolId>(*symbol));
    }
    if (at('_')) ++pos_;
    auto value = parse_integer();
    if (!value) return error("expected an integer, '?' or '('");
    return IntTuple(*value);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool done() {
    skip_space();
    return pos_ == text_.size();
  }
  std::size_t pos() const { return pos_; }
  void advance() { ++pos_; }

  Failure error(const std::string& what) const {
    return inadmissible("parse: " + what + " at offset " + std::to_string(pos_) + " of \"" + std::string(text_) + "\".");
  }

 private:
  std::optional<std::int64_t> parse_integer() {
    skip_space();
    bool negative = false;
    if (at('-')) {
      negative = true;
      ++pos_;
    }
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) return std::nullopt;
    std::int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v)) return std::nullopt;
      ++pos_;
    }
    return negative ? -v : v;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Result<IntTuple> parse_int_tuple(std::string_view text) {
  TupleParser parser(text);
  Result<IntTuple> t = parser.parse_tuple();
  if (!t) return t;
  if (!parser.done()) return parser.error("unexpected trailing text");
  return t;
}

namespace detail {
Result<IntTuple> parse_int_tuple_prefix(std::string_view text, std::size_t& consumed) {
  TupleParser parser(text);
  Result<IntTuple> t = parser.parse_tuple();
  parser.skip_space();
  consumed = parser.pos();
  return t;
}
}  // namespace detail

}  // namespace tack::tile
