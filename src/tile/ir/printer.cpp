#include "tack/tile/printer.h"

#include <charconv>
#include <cmath>

#include "text_format.h"

namespace tack::tile {

// ---------------------------------------------------------------------------
// Value names

ValueNames::ValueNames(const Kernel& kernel) {
  for (unsigned i = 0; i < kernel.num_params(); ++i) ids_.emplace(kernel.param(i), unsigned(ids_.size()));
  for (Operation& op : kernel.body()) number(op);
}

// Results first, then each region's arguments and operations: the order in
// which print() writes definitions.
void ValueNames::number(Operation& op) {
  for (unsigned i = 0; i < op.num_results(); ++i) ids_.emplace(op.result(i), unsigned(ids_.size()));
  for (unsigned r = 0; r < op.num_regions(); ++r)
    for (unsigned b = 0; b < op.region(r).num_blocks(); ++b) {
      Block& block = op.region(r).block(b);
      for (unsigned a = 0; a < block.num_arguments(); ++a) ids_.emplace(block.argument(a), unsigned(ids_.size()));
      for (Operation& inner : block) number(inner);
    }
}

std::string ValueNames::operator()(const Value* v) const {
  auto it = ids_.find(v);
  std::string s = "%";
  s += it == ids_.end() ? std::string("?") : std::to_string(it->second);
  return s;
}

std::string ValueNames::describe(const Operation& op) const {
  std::string s = "'";
  s.append(op.name()).append("'");
  if (op.num_results() > 0) s.append(" ").append((*this)(op.result(0)));
  return s;
}

std::string format_number(const Attrs& attrs, Scalar elem) {
  if (!is_float(elem)) return std::to_string(attrs.integer);
  double v = attrs.number;
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto res = elem == Scalar::f32 ? std::to_chars(buf, buf + sizeof buf, float(v)) : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// ---------------------------------------------------------------------------
// Printer

namespace {

class Printer {
 public:
  explicit Printer(const Kernel& k) : names_(k) {}

  std::string kernel(const Kernel& k) {
    out_ += "kernel @" + k.name() + "(";
    for (unsigned i = 0; i < k.num_params(); ++i) {
      if (i) out_ += ", ";
      out_ += names_(k.param(i)) + ": " + to_string(k.param(i)->type());
    }
    out_ += ") {\n";
    ops(k.body(), 1, false);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  void line(int indent) { out_.append(size_t(indent) * 2, ' '); }

  std::string list(const std::vector<Value*>& values, size_t from = 0) {
    std::string s;
    for (size_t i = from; i < values.size(); ++i) s += (i > from ? ", " : "") + names_(values[i]);
    return s;
  }

  // Loop bodies elide an empty trailing yield; the parser restores it.
  void ops(const Block& block, int indent, bool elide_empty_yield) {
    for (const Operation& op : block) {
      if (elide_empty_yield && &op == block.back() && op.kind() == OpKind::yield && op.num_operands() == 0) break;
      operation(op, indent);
    }
  }

  void operation(const Operation& op, int indent) {
    line(indent);
    if (op.num_results() > 0) {
      for (unsigned i = 0; i < op.num_results(); ++i) out_ += (i ? ", " : "") + names_(op.result(i));
      out_ += " = ";
    }
    out_ += op.name();
    std::vector<Value*> operands = op.operand_values();
    const Attrs& a = op.attrs();
    switch (op_format(op.kind())) {
      case OpFormat::constant:
        out_ += " " + format_number(a, result_elem(op));
        break;
      case OpFormat::axis:
        if (!operands.empty()) out_ += " " + list(operands);
        out_ += " axis " + std::to_string(a.axis);
        break;
      case OpFormat::unary:
      case OpFormat::binary:
      case OpFormat::compare:
      case OpFormat::generic:
        if (!operands.empty()) out_ += " " + list(operands);
        break;
      case OpFormat::view: {
        out_.append(" ").append(operands.empty() ? std::string("%?") : names_(operands[0])).append("[");
        for (size_t i = 1; i < operands.size(); ++i) {
          out_.append(i > 1 ? ", " : "").append(names_(operands[i]));
          if (i - 1 < a.extents.size() && a.extents[i - 1] != kIndexed) out_.append(":").append(std::to_string(a.extents[i - 1]));
        }
        out_ += "]";
        break;
      }
      case OpFormat::load:
        out_ += " " + list(operands) + " pad " + format_number(a, result_elem(op));
        break;
      case OpFormat::stage:
        if (!a.name.empty()) out_ += " \"" + a.name + "\"";
        break;
      case OpFormat::loop:
        loop(op, indent);
        return;
    }
    if (op.num_results() > 0) out_ += " : " + to_string(op.result(0)->type());
    out_ += "\n";
  }

  static Scalar result_elem(const Operation& op) {
    return op.num_results() > 0 ? op.result(0)->type().elem() : Scalar::f32;
  }

  void loop(const Operation& op, int indent) {
    std::vector<Value*> operands = op.operand_values();
    const Attrs& a = op.attrs();
    const Block* body = op.num_regions() > 0 && op.region(0).num_blocks() > 0 ? &op.region(0).block(0) : nullptr;
    auto arg = [&](unsigned i) { return body && i < body->num_arguments() ? names_(body->argument(i)) : "%?"; };
    out_ += " " + arg(0) + " < " + (operands.empty() ? std::string("%?") : names_(operands[0]));
    switch (op.kind()) {
      case OpKind::parallel:
        if (!a.name.empty()) out_ += " exec " + a.name;
        break;
      case OpKind::serial:
      case OpKind::pipeline:
        if (operands.size() > 1) {
          out_ += " iter(";
          for (size_t i = 1; i < operands.size(); ++i) out_ += (i > 1 ? ", " : "") + arg(unsigned(i)) + " = " + names_(operands[i]);
          out_ += ")";
        }
        break;
      case OpKind::reduce: {
        out_ += " " + std::string(policy_name(a.policy)) + " init(" + list(operands, 1) + ") merge(";
        for (size_t i = 0; i < a.merges.size(); ++i) {
          out_ += i ? ", " : "";
          out_ += a.merges[i].region ? "#" + std::to_string(a.merges[i].region) : std::string(op_name(a.merges[i].op));
        }
        out_ += ")";
        break;
      }
      default: break;
    }
    out_ += " {\n";
    for (unsigned r = 0; r < op.num_regions(); ++r) {
      const Region& region = op.region(r);
      if (r > 0) {
        line(indent);
        out_ += "} combiner #" + std::to_string(r);
        Laws laws = r - 1 < a.laws.size() ? a.laws[r - 1] : Laws{};
        if (laws.associative) out_ += " associative";
        if (laws.commutative) out_ += " commutative";
        out_ += " (";
        if (region.num_blocks() > 0)
          for (unsigned i = 0; i < region.block(0).num_arguments(); ++i) {
            Value* v = region.block(0).argument(i);
            out_ += (i ? ", " : "") + names_(v) + ": " + to_string(v->type());
          }
        out_ += ") {\n";
      }
      for (unsigned b = 0; b < region.num_blocks(); ++b) {
        if (b > 0) {
          line(indent);
          out_ += "} {\n";
        }
        ops(region.block(b), indent + 1, r == 0);
      }
    }
    line(indent);
    out_ += "}\n";
  }

  ValueNames names_;
  std::string out_;
};

}  // namespace

std::string print(const Kernel& kernel) { return Printer(kernel).kernel(kernel); }

}  // namespace tack::tile
