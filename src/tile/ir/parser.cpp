#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "tack/tile/printer.h"
#include "text_format.h"

namespace tack::tile {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Kernel kernel() {
    keyword("kernel");
    expect('@');
    Kernel k(identifier("a kernel name"));
    expect('(');
    if (!accept(')')) {
      do {
        std::string name = value_name();
        expect(':');
        define(name, k.body().add_argument(type()));
      } while (accept(','));
      expect(')');
    }
    expect('{');
    Builder b(k.body());
    while (!accept('}')) {
      if (peek() == '\0') fail("expected '}'");
      operation(b);
    }
    skip();
    if (pos_ != text_.size()) fail("expected the end of the text after the kernel");
    return k;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    int line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') line++, col = 1;
      else col++;
    }
    throw Error("line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + what + ".");
  }

  void skip() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) pos_++;
      else if (text_.substr(pos_, 2) == "//") {
        while (pos_ < text_.size() && text_[pos_] != '\n') pos_++;
      } else break;
    }
  }

  char peek() {
    skip();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  bool accept(char c) {
    if (peek() != c) return false;
    pos_++;
    return true;
  }

  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }

  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

  std::string identifier(const char* what) {
    skip();
    size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) pos_++;
    if (start == pos_) fail(std::string("expected ") + what);
    return std::string(text_.substr(start, pos_ - start));
  }

  bool accept_keyword(std::string_view word) {
    skip();
    if (text_.substr(pos_, word.size()) != word) return false;
    size_t end = pos_ + word.size();
    if (end < text_.size() && ident_char(text_[end])) return false;
    pos_ = end;
    return true;
  }

  void keyword(std::string_view word) {
    if (!accept_keyword(word)) fail("expected '" + std::string(word) + "'");
  }

  int64_t integer() {
    skip();
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
    if (ec != std::errc()) fail("expected an integer");
    pos_ = size_t(ptr - text_.data());
    return v;
  }

  // A number in the spelling of format_number, read as element type `elem`.
  void number(Scalar elem, Attrs& attrs) {
    skip();
    size_t start = pos_;
    while (pos_ < text_.size() && (ident_char(text_[pos_]) || text_[pos_] == '-' || text_[pos_] == '+')) pos_++;
    std::string token(text_.substr(start, pos_ - start));
    if (token.empty()) fail("expected a number");
    char* end = nullptr;
    if (is_float(elem)) {
      double v = elem == Scalar::f32 ? double(std::strtof(token.c_str(), &end)) : std::strtod(token.c_str(), &end);
      if (*end) fail("'" + token + "' is not a number");
      attrs.number = v;
    } else {
      long long v = std::strtoll(token.c_str(), &end, 10);
      if (*end) fail("'" + token + "' is not an integer");
      attrs.integer = v;
    }
  }

  Scalar scalar(const std::string& name) {
    for (Scalar s : {Scalar::i1, Scalar::i32, Scalar::i64, Scalar::f32, Scalar::f64})
      if (scalar_name(s) == name) return s;
    fail("unknown element type '" + name + "'");
  }

  Type type() {
    skip();
    bool tile = accept_keyword("tile");
    bool view = !tile && accept_keyword("view");
    if (!tile && !view) return Type::tile(scalar(identifier("a type")));
    expect('<');
    Shape shape;
    while (true) {
      skip();
      if (pos_ < text_.size() && text_[pos_] == '?') {
        pos_++;
        shape.push_back(kDynamic);
      } else if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        size_t start = pos_;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) pos_++;
        shape.push_back(std::stoll(std::string(text_.substr(start, pos_ - start))));
      } else {
        break;
      }
      if (pos_ >= text_.size() || text_[pos_] != 'x') fail("expected 'x' after an extent");
      pos_++;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) pos_++;
    Scalar elem = scalar(std::string(text_.substr(start, pos_ - start)));
    expect('>');
    return tile ? Type::tile(elem, shape) : Type::view(elem, shape);
  }

  std::string value_name() {
    expect('%');
    size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) pos_++;
    if (start == pos_) fail("expected a value name after '%'");
    return std::string(text_.substr(start, pos_ - start));
  }

  Value* value() {
    skip();
    size_t at = pos_;
    std::string name = value_name();
    auto it = values_.find(name);
    if (it == values_.end()) {
      pos_ = at;
      fail("value %" + name + " is not defined");
    }
    return it->second;
  }

  std::vector<Value*> value_list() {
    std::vector<Value*> out;
    if (peek() != '%') return out;
    do out.push_back(value());
    while (accept(','));
    return out;
  }

  void define(const std::string& name, Value* v) {
    if (!values_.emplace(name, v).second) fail("value %" + name + " is defined twice");
  }

  void operation(Builder& b) {
    std::vector<std::string> results;
    if (peek() == '%') {
      do results.push_back(value_name());
      while (accept(','));
      expect('=');
    }
    skip();
    size_t at = pos_;
    std::string name = identifier("an operation name");
    std::optional<OpKind> kind = op_from_name(name);
    if (!kind) {
      pos_ = at;
      fail("unknown operation '" + name + "'");
    }
    if (op_format(*kind) == OpFormat::loop) return loop(b, *kind, results);

    Attrs attrs;
    std::vector<Value*> operands;
    bool pad = false;
    switch (op_format(*kind)) {
      case OpFormat::constant:
        break;  // the number's type comes after ':'
      case OpFormat::axis:
        operands = value_list();
        keyword("axis");
        attrs.axis = int(integer());
        break;
      case OpFormat::view: {
        operands.push_back(value());
        expect('[');
        if (!accept(']')) {
          do {
            operands.push_back(value());
            attrs.extents.push_back(accept(':') ? integer() : kIndexed);
          } while (accept(','));
          expect(']');
        }
        break;
      }
      case OpFormat::load:
        operands = value_list();
        keyword("pad");
        pad = true;
        break;
      case OpFormat::stage:
        skip();
        if (accept('"')) {
          size_t start = pos_;
          while (pos_ < text_.size() && text_[pos_] != '"') pos_++;
          attrs.name = std::string(text_.substr(start, pos_ - start));
          expect('"');
        }
        break;
      default:
        operands = value_list();
        break;
    }
    // Constants and pads are read after the result type is known.
    size_t number_at = pos_;
    if (op_format(*kind) == OpFormat::constant || pad) {
      skip();
      while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) pos_++;
    }
    std::vector<Type> types;
    if (!results.empty()) {
      if (results.size() != 1) fail("'" + name + "' defines one value, not " + std::to_string(results.size()));
      expect(':');
      types.push_back(type());
    }
    if (op_format(*kind) == OpFormat::constant || pad) {
      if (types.empty()) fail("'" + name + "' needs a result type");
      size_t end = pos_;
      pos_ = number_at;
      number(types[0].elem(), attrs);
      pos_ = end;
    }
    Operation* op = b.create(*kind, operands, types, std::move(attrs));
    for (size_t i = 0; i < results.size(); ++i) define(results[i], op->result(unsigned(i)));
  }

  void loop(Builder& b, OpKind kind, const std::vector<std::string>& results) {
    std::string index = value_name();
    expect('<');
    Value* extent = value();
    Attrs attrs;
    std::vector<Value*> operands{extent};
    std::vector<std::string> carried;
    if (kind == OpKind::parallel) {
      if (accept_keyword("exec")) attrs.name = identifier("an exec level");
    } else if (kind == OpKind::reduce) {
      std::string policy = identifier("a reduction policy");
      auto p = policy_from_name(policy);
      if (!p) fail("unknown reduction policy '" + policy + "'");
      attrs.policy = *p;
      keyword("init");
      expect('(');
      for (Value* v : value_list()) operands.push_back(v);
      expect(')');
      keyword("merge");
      expect('(');
      if (!accept(')')) {
        do {
          Merge m;
          if (accept('#')) {
            m.region = unsigned(integer());
          } else {
            std::string op = identifier("a merge");
            auto merge_kind = op_from_name(op);
            if (!merge_kind) fail("unknown merge '" + op + "'");
            m.op = *merge_kind;
          }
          attrs.merges.push_back(m);
        } while (accept(','));
        expect(')');
      }
    } else if (accept_keyword("iter")) {
      expect('(');
      do {
        carried.push_back(value_name());
        expect('=');
        operands.push_back(value());
      } while (accept(','));
      expect(')');
    }
    std::vector<Type> types;
    for (size_t i = 1; i < operands.size(); ++i) types.push_back(operands[i]->type());
    if (results.size() != types.size())
      fail("'" + std::string(op_name(kind)) + "' defines " + std::to_string(types.size()) + " values, not " +
           std::to_string(results.size()));
    Operation* op = b.create(kind, operands, types, std::move(attrs), 1);
    for (size_t i = 0; i < results.size(); ++i) define(results[i], op->result(unsigned(i)));

    Block& body = op->region(0).add_block();
    define(index, body.add_argument(Type::tile(Scalar::i64)));
    for (size_t i = 0; i < carried.size(); ++i) define(carried[i], body.add_argument(operands[i + 1]->type()));
    expect('{');
    region_body(body, true);
    while (kind == OpKind::reduce && accept_keyword("combiner")) {
      expect('#');
      if (integer() != int64_t(op->num_regions())) fail("combiner regions must be numbered in order from #1");
      Laws laws;
      while (true) {
        if (accept_keyword("associative")) laws.associative = true;
        else if (accept_keyword("commutative")) laws.commutative = true;
        else break;
      }
      op->attrs().laws.push_back(laws);
      Block& combiner = op->add_region().add_block();
      expect('(');
      if (!accept(')')) {
        do {
          std::string arg = value_name();
          expect(':');
          define(arg, combiner.add_argument(type()));
        } while (accept(','));
        expect(')');
      }
      expect('{');
      region_body(combiner, false);
    }
  }

  // Parses operations up to the closing brace; a loop body without a
  // terminator gets the empty yield that the printer elides.
  void region_body(Block& block, bool loop_body) {
    Builder inner(block);
    while (!accept('}')) {
      if (peek() == '\0') fail("expected '}'");
      operation(inner);
    }
    if (loop_body && (block.empty() || block.back()->kind() != OpKind::yield)) inner.create(OpKind::yield, {}, {});
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::unordered_map<std::string, Value*> values_;
};

}  // namespace

Kernel parse(std::string_view text) { return Parser(text).kernel(); }

}  // namespace tack::tile
