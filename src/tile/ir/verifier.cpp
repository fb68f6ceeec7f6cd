#include "tack/tile/verifier.h"

#include <unordered_map>
#include <unordered_set>

#include "tack/tile/printer.h"

namespace tack::tile {

namespace {

struct Rejected {
  std::string message;
};

// What the enclosing operations impose on an operation being checked.
struct Context {
  const Region* combiner = nullptr;        // innermost custom combiner region
  const Operation* reduce_body = nullptr;  // innermost reduce whose body holds us
  const Operation* constrained = nullptr;  // innermost parallel with an exec level
};

bool is_int(Scalar s) { return s == Scalar::i32 || s == Scalar::i64; }

class Verifier {
 public:
  Verifier(const Kernel& k, const Target* target) : kernel_(k), target_(target), names_(k) {}

  void run() {
    if (kernel_.region().num_blocks() != 1)
      reject("kernel @" + kernel_.name() + ": its body has " + std::to_string(kernel_.region().num_blocks()) +
             " blocks; a region holds exactly one block");
    index(kernel_.body());
    for (unsigned i = 0; i < kernel_.num_params(); ++i)
      if (!kernel_.param(i)->type().is_view())
        reject("kernel @" + kernel_.name() + ": parameter " + names_(kernel_.param(i)) + " has type " +
               to_string(kernel_.param(i)->type()) + "; kernel parameters are views");
    for (Operation& op : kernel_.body()) {
      if (op.kind() == OpKind::yield) reject(describe(op) + " is outside any loop body or combiner");
      check(op, Context{});
    }
    for (const Value* v : values_) check_uses(v);
  }

 private:
  [[noreturn]] void reject(std::string message) { throw Rejected{std::move(message)}; }
  std::string describe(const Operation& op) const { return names_.describe(op); }
  std::string operand(const Operation& op, unsigned i) const {
    return "operand #" + std::to_string(i) + " (" + names_(op.operand(i)) + ")";
  }
  [[noreturn]] void reject_operand(const Operation& op, unsigned i, const std::string& what) {
    reject(describe(op) + ": " + operand(op, i) + " " + what);
  }

  void index(const Block& block) {
    blocks_.insert(&block);
    for (unsigned a = 0; a < block.num_arguments(); ++a) values_.push_back(block.argument(a));
    size_t pos = 0;
    for (Operation& op : block) {
      position_[&op] = pos++;
      for (unsigned r = 0; r < op.num_results(); ++r) values_.push_back(op.result(r));
      for (unsigned r = 0; r < op.num_regions(); ++r)
        for (unsigned b = 0; b < op.region(r).num_blocks(); ++b) index(op.region(r).block(b));
    }
  }

  // A use whose owner is not in the kernel is left over from an operation
  // that was detached without dropping its operands.
  void check_uses(const Value* v) {
    for (Use* u = v->first_use(); u; u = u->next_use())
      if (!position_.count(u->owner()))
        reject("value " + names_(v) + " has a dangling use: operand #" + std::to_string(u->operand_index()) + " of '" +
               std::string(u->owner()->name()) + "', which is not in the kernel");
  }

  bool visible(const Value* v, const Operation& user) const {
    if (const Block* b = v->owner_block()) {
      for (const Operation* o = &user; o; o = o->parent_op())
        if (o->parent_block() == b) return true;
      return false;
    }
    const Operation* def = v->defining_op();
    for (const Operation* o = &user; o; o = o->parent_op())
      if (o->parent_block() == def->parent_block()) return position_.at(def) < position_.at(o);
    return false;
  }

  static bool inside(const Region& region, const Block* block) {
    while (block) {
      if (block->parent() == &region) return true;
      const Operation* op = block->parent_op();
      block = op ? op->parent_block() : nullptr;
    }
    return false;
  }

  void check_defined(const Operation& op, const Context& ctx) {
    for (unsigned i = 0; i < op.num_operands(); ++i) {
      const Value* v = op.operand(i);
      if (!v) reject_operand(op, i, "is missing");
      const Block* home = v->owner_block();
      if (const Operation* def = v->defining_op()) {
        if (!position_.count(def))
          reject_operand(op, i, "is defined by " + describe(*def) + ", which is not in the kernel (a dangling use)");
        home = def->parent_block();
      } else if (!blocks_.count(home)) {
        reject_operand(op, i, "is an argument of a block that is not in the kernel (a dangling use)");
      }
      if (!visible(v, op)) reject_operand(op, i, "is used before its definition or outside its region");
      if (ctx.combiner && !inside(*ctx.combiner, home))
        reject_operand(op, i, "is defined outside the reduce combiner that reads it; combiners read only their arguments");
    }
  }

  void expect_counts(const Operation& op, unsigned operands, unsigned results) {
    if (op.num_operands() != operands)
      reject(describe(op) + " has " + std::to_string(op.num_operands()) + " operands; expected " + std::to_string(operands));
    if (op.num_results() != results)
      reject(describe(op) + " has " + std::to_string(op.num_results()) + " results; expected " + std::to_string(results));
    if (!is_loop(op.kind()) && op.num_regions() != 0) reject(describe(op) + " has regions; only loops own regions");
  }

  const Type& tile_operand(const Operation& op, unsigned i) {
    const Type& t = op.operand(i)->type();
    if (!t.is_tile()) reject_operand(op, i, "has type " + to_string(t) + "; expected a tile");
    return t;
  }

  const Type& view_operand(const Operation& op, unsigned i) {
    const Type& t = op.operand(i)->type();
    if (!t.is_view()) reject_operand(op, i, "has type " + to_string(t) + "; expected a view");
    return t;
  }

  void expect_operand(const Operation& op, unsigned i, const Type& expected) {
    if (!(op.operand(i)->type() == expected))
      reject_operand(op, i, "has type " + to_string(op.operand(i)->type()) + "; expected " + to_string(expected));
  }

  void expect_result(const Operation& op, unsigned i, const Type& expected) {
    if (!(op.result(i)->type() == expected))
      reject(describe(op) + ": result " + names_(op.result(i)) + " has type " + to_string(op.result(i)->type()) +
             "; expected " + to_string(expected));
  }

  void check(const Operation& op, const Context& ctx) {
    check_defined(op, ctx);
    const Attrs& a = op.attrs();
    switch (op.kind()) {
      case OpKind::constant: {
        expect_counts(op, 0, 1);
        const Type& t = op.result()->type();
        if (!t.is_tile() || !t.is_static()) reject(describe(op) + " must define a tile of static shape");
        break;
      }
      case OpKind::iota: {
        expect_counts(op, 0, 1);
        const Type& t = op.result()->type();
        if (!t.is_tile() || !is_int(t.elem()) || a.axis < 0 || a.axis >= t.rank())
          reject(describe(op) + " must define an integer tile with axis " + std::to_string(a.axis) + " in range");
        break;
      }
      case OpKind::dim: {
        expect_counts(op, 1, 1);
        const Type& v = view_operand(op, 0);
        if (a.axis < 0 || a.axis >= v.rank()) reject(describe(op) + ": axis " + std::to_string(a.axis) + " is out of range");
        expect_result(op, 0, Type::tile(Scalar::i64));
        break;
      }
      case OpKind::extract: {
        expect_counts(op, 2, 1);
        const Type& t = tile_operand(op, 0);
        expect_operand(op, 1, Type::tile(Scalar::i64));
        if (a.axis < 0 || a.axis >= t.rank()) reject(describe(op) + ": axis " + std::to_string(a.axis) + " is out of range");
        expect_result(op, 0, t.with_shape(t.shape().drop(a.axis)));
        break;
      }
      case OpKind::neg:
      case OpKind::abs:
      case OpKind::exp:
      case OpKind::log:
      case OpKind::sqrt:
      case OpKind::logical_not: {
        expect_counts(op, 1, 1);
        const Type& t = tile_operand(op, 0);
        bool ok = op.kind() == OpKind::logical_not ? t.elem() == Scalar::i1
                  : (op.kind() == OpKind::neg || op.kind() == OpKind::abs) ? t.elem() != Scalar::i1
                                                                          : is_float(t.elem());
        if (!ok) reject_operand(op, 0, "has type " + to_string(t) + ", which '" + std::string(op.name()) + "' does not accept");
        expect_result(op, 0, t);
        break;
      }
      case OpKind::add:
      case OpKind::sub:
      case OpKind::mul:
      case OpKind::div:
      case OpKind::rem:
      case OpKind::min:
      case OpKind::max:
      case OpKind::logical_and:
      case OpKind::logical_or:
      case OpKind::eq:
      case OpKind::ne:
      case OpKind::lt:
      case OpKind::le:
      case OpKind::gt:
      case OpKind::ge: {
        expect_counts(op, 2, 1);
        const Type& t = tile_operand(op, 0);
        expect_operand(op, 1, t);
        bool logical = op.kind() == OpKind::logical_and || op.kind() == OpKind::logical_or;
        bool equality = op.kind() == OpKind::eq || op.kind() == OpKind::ne;
        if (!equality && (t.elem() == Scalar::i1) != logical)
          reject_operand(op, 0, "has type " + to_string(t) + ", which '" + std::string(op.name()) + "' does not accept");
        expect_result(op, 0, op_format(op.kind()) == OpFormat::compare ? t.with_elem(Scalar::i1) : t);
        break;
      }
      case OpKind::select: {
        expect_counts(op, 3, 1);
        const Type& c = tile_operand(op, 0);
        const Type& t = tile_operand(op, 1);
        if (!(c == t.with_elem(Scalar::i1))) reject_operand(op, 0, "has type " + to_string(c) + "; expected " + to_string(t.with_elem(Scalar::i1)));
        expect_operand(op, 2, t);
        expect_result(op, 0, t);
        break;
      }
      case OpKind::cast: {
        expect_counts(op, 1, 1);
        const Type& t = tile_operand(op, 0);
        expect_result(op, 0, t.with_elem(op.result()->type().elem()));
        break;
      }
      case OpKind::broadcast: {
        expect_counts(op, 1, 1);
        const Type& t = tile_operand(op, 0);
        const Type& r = op.result()->type();
        bool ok = r.is_tile() && r.elem() == t.elem() && r.rank() >= t.rank() && r.is_static();
        for (int i = 0; ok && i < t.rank(); ++i) {
          int64_t from = t.shape()[t.rank() - 1 - i], to = r.shape()[r.rank() - 1 - i];
          ok = from == to || from == 1;
        }
        if (!ok) reject(describe(op) + ": cannot broadcast " + operand(op, 0) + " of type " + to_string(t) + " to " + to_string(r));
        break;
      }
      case OpKind::reshape: {
        expect_counts(op, 1, 1);
        const Type& t = tile_operand(op, 0);
        const Type& r = op.result()->type();
        if (!r.is_tile() || r.elem() != t.elem() || !r.is_static() || r.shape().num_elements() != t.shape().num_elements())
          reject(describe(op) + ": cannot reshape " + operand(op, 0) + " of type " + to_string(t) + " to " + to_string(r));
        break;
      }
      case OpKind::mma: {
        expect_counts(op, 3, 1);
        const Type& x = tile_operand(op, 0);
        const Type& y = tile_operand(op, 1);
        const Type& acc = tile_operand(op, 2);
        if (x.rank() != 2 || x.elem() == Scalar::i1) reject_operand(op, 0, "has type " + to_string(x) + "; expected a numeric rank-2 tile");
        if (y.rank() != 2 || y.elem() != x.elem() || y.shape()[0] != x.shape()[1])
          reject_operand(op, 1, "has type " + to_string(y) + ", which does not multiply " + operand(op, 0) + " of type " + to_string(x));
        expect_operand(op, 2, x.with_shape({x.shape()[0], y.shape()[1]}));
        expect_result(op, 0, acc);
        break;
      }
      case OpKind::view: {
        if (op.num_operands() < 1 || op.num_results() != 1) reject(describe(op) + " needs a view operand and one result");
        const Type& parent = view_operand(op, 0);
        if (op.num_operands() != unsigned(parent.rank()) + 1 || a.extents.size() != size_t(parent.rank()))
          reject(describe(op) + " has " + std::to_string(op.num_operands() - 1) + " coordinates for " + operand(op, 0) +
                 " of rank " + std::to_string(parent.rank()));
        Shape spans;
        for (unsigned i = 1; i < op.num_operands(); ++i) {
          expect_operand(op, i, Type::tile(Scalar::i64));
          if (a.extents[i - 1] != kIndexed) {
            if (a.extents[i - 1] < 0) reject(describe(op) + ": a span extent is negative");
            spans.push_back(a.extents[i - 1]);
          }
        }
        expect_result(op, 0, Type::view(parent.elem(), spans));
        break;
      }
      case OpKind::load: {
        expect_counts(op, 1, 1);
        const Type& v = view_operand(op, 0);
        if (!v.is_static()) reject_operand(op, 0, "has dynamic extents; load a view of static extents");
        expect_result(op, 0, Type::tile(v.elem(), v.shape()));
        break;
      }
      case OpKind::store: {
        expect_counts(op, 2, 0);
        const Type& v = view_operand(op, 0);
        if (!v.is_static()) reject_operand(op, 0, "has dynamic extents; store to a view of static extents");
        expect_operand(op, 1, Type::tile(v.elem(), v.shape()));
        if (ctx.reduce_body)
          reject(describe(op) + " writes memory inside the body of " + describe(*ctx.reduce_body) +
                 "; reduce contributions must be free of memory writes");
        break;
      }
      case OpKind::stage: {
        expect_counts(op, 0, 0);
        const Operation* parent = op.parent_op();
        if (!parent || parent->kind() != OpKind::pipeline)
          reject(describe(op) + " must sit directly in the body of a 'pipeline'");
        break;
      }
      case OpKind::yield:
        if (op.num_results() != 0 || op.num_regions() != 0) reject(describe(op) + " has results or regions");
        if (op.next()) reject(describe(op) + " is not the last operation of its block");
        break;
      case OpKind::parallel:
      case OpKind::serial:
      case OpKind::pipeline:
      case OpKind::reduce:
        check_loop(op, ctx);
        return;
    }
  }

  // Region shape: one block ending in a yield, with no yield before it.
  const Block& single_block(const Operation& op, unsigned r, const char* what) {
    const Region& region = op.region(r);
    if (region.num_blocks() != 1)
      reject(describe(op) + ": its " + what + " has " + std::to_string(region.num_blocks()) +
             " blocks; a region holds exactly one block");
    const Block& block = region.block(0);
    if (block.empty() || block.back()->kind() != OpKind::yield) reject(describe(op) + ": its " + what + " does not end in 'yield'");
    return block;
  }

  void expect_yield(const Operation& op, const Block& block, const std::vector<Type>& types, const char* what) {
    const Operation& y = *block.back();
    if (y.num_operands() != types.size())
      reject(describe(op) + ": its " + what + " yields " + std::to_string(y.num_operands()) + " values; expected " +
             std::to_string(types.size()));
    for (unsigned i = 0; i < types.size(); ++i)
      if (!(y.operand(i)->type() == types[i]))
        reject(describe(op) + ": 'yield' operand #" + std::to_string(i) + " (" + names_(y.operand(i)) + ") in its " + what +
               " has type " + to_string(y.operand(i)->type()) + "; expected " + to_string(types[i]));
  }

  void expect_args(const Operation& op, const Block& block, const std::vector<Type>& types, const char* what) {
    if (block.num_arguments() != types.size())
      reject(describe(op) + ": its " + what + " has " + std::to_string(block.num_arguments()) + " arguments; expected " +
             std::to_string(types.size()));
    for (unsigned i = 0; i < types.size(); ++i)
      if (!(block.argument(i)->type() == types[i]))
        reject(describe(op) + ": argument " + names_(block.argument(i)) + " of its " + what + " has type " +
               to_string(block.argument(i)->type()) + "; expected " + to_string(types[i]));
  }

  void check_loop(const Operation& op, const Context& ctx) {
    const Attrs& a = op.attrs();
    if (op.num_operands() < 1) reject(describe(op) + " needs an extent operand");
    expect_operand(op, 0, Type::tile(Scalar::i64));
    unsigned states = op.num_operands() - 1;
    bool reduce = op.kind() == OpKind::reduce;
    if (op.kind() == OpKind::parallel && states != 0) reject(describe(op) + " carries values; parallel iterations are independent");
    if (reduce && states == 0) reject(describe(op) + " has no state to reduce");
    if (op.num_results() != states)
      reject(describe(op) + " has " + std::to_string(op.num_results()) + " results for " + std::to_string(states) + " carried values");
    if (op.num_regions() < 1 || (!reduce && op.num_regions() != 1))
      reject(describe(op) + " has " + std::to_string(op.num_regions()) + " regions; expected " + (reduce ? "a body and its combiners" : "one body"));
    std::vector<Type> carried;
    for (unsigned i = 0; i < states; ++i) {
      carried.push_back(op.operand(i + 1)->type());
      if (!carried.back().is_tile()) reject_operand(op, i + 1, "is not a tile; only tiles are carried");
      expect_result(op, i, carried.back());
    }

    const Block& body = single_block(op, 0, "body");
    std::vector<Type> args{Type::tile(Scalar::i64)};
    if (!reduce) args.insert(args.end(), carried.begin(), carried.end());
    expect_args(op, body, args, "body");
    expect_yield(op, body, carried, "body");

    Context inner = ctx;
    if (reduce) inner.reduce_body = &op;
    if (op.kind() == OpKind::parallel && !a.name.empty() && target_) check_exec(op, ctx);
    if (op.kind() == OpKind::parallel && !a.name.empty()) inner.constrained = &op;
    check_body(body, inner);
    if (reduce) check_merges(op, carried, ctx);
  }

  void check_body(const Block& body, const Context& ctx) {
    for (Operation& inner : body) check(inner, ctx);
  }

  void check_merges(const Operation& op, const std::vector<Type>& states, const Context& ctx) {
    const Attrs& a = op.attrs();
    if (a.merges.size() != states.size())
      reject(describe(op) + " has " + std::to_string(a.merges.size()) + " merges for " + std::to_string(states.size()) + " states");
    if (a.laws.size() + 1 != op.num_regions())
      reject(describe(op) + " declares laws for " + std::to_string(a.laws.size()) + " combiners but has " +
             std::to_string(op.num_regions() - 1));
    for (unsigned i = 0; i < states.size(); ++i) {
      const Merge& m = a.merges[i];
      if (m.region) {
        if (m.region >= op.num_regions()) reject(describe(op) + ": state #" + std::to_string(i) + " merges with a missing combiner #" + std::to_string(m.region));
        continue;
      }
      std::optional<Laws> laws = builtin_merge_laws(m.op);
      if (!laws) reject(describe(op) + ": '" + std::string(op_name(m.op)) + "' cannot merge reduce states");
      bool logical = m.op == OpKind::logical_and || m.op == OpKind::logical_or;
      if ((states[i].elem() == Scalar::i1) != logical)
        reject(describe(op) + ": merge '" + std::string(op_name(m.op)) + "' does not accept state #" + std::to_string(i) +
               " of type " + to_string(states[i]));
      if (auto why = policy_violation(a.policy, *laws))
        reject(describe(op) + ": merge '" + std::string(op_name(m.op)) + "' of state #" + std::to_string(i) + " is not " +
               (laws->associative ? "commutative" : "associative") + ", and " + *why + "; use left_fold or right_fold");
    }
    for (unsigned r = 1; r < op.num_regions(); ++r) {
      std::vector<Type> group;
      for (unsigned i = 0; i < states.size(); ++i)
        if (a.merges[i].region == r) group.push_back(states[i]);
      if (group.empty()) reject(describe(op) + ": combiner #" + std::to_string(r) + " merges no state");
      std::vector<Type> args = group;
      args.insert(args.end(), group.begin(), group.end());
      const Block& block = single_block(op, r, "combiner");
      expect_args(op, block, args, "combiner");
      expect_yield(op, block, group, "combiner");
      if (auto why = policy_violation(a.policy, a.laws[r - 1]))
        reject(describe(op) + ": combiner #" + std::to_string(r) + " is declared " + laws_text(a.laws[r - 1]) + ", but " + *why);
      Context inner = ctx;
      inner.combiner = &op.region(r);
      inner.reduce_body = &op;
      check_body(block, inner);
    }
  }

  static std::string laws_text(Laws laws) {
    if (laws.associative && laws.commutative) return "associative and commutative";
    if (laws.associative) return "associative only";
    if (laws.commutative) return "commutative only";
    return "with no laws";
  }

  void check_exec(const Operation& op, const Context& ctx) {
    std::string_view level = op.attrs().name;
    if (!target_->knows(level))
      reject(describe(op) + ": exec level '" + std::string(level) + "' is not a level of target " + target_->name());
    if (!ctx.constrained) return;
    std::string_view outer = ctx.constrained->attrs().name;
    if (!target_->encloses(outer, level))
      reject(describe(op) + " is constrained to exec::" + std::string(level) + " inside " + describe(*ctx.constrained) +
             " constrained to exec::" + std::string(outer) + ", but on target " + target_->name() + " " + std::string(outer) +
             " does not contain " + std::string(level) + "; nested bindings must descend");
  }

  const Kernel& kernel_;
  const Target* target_;
  ValueNames names_;
  std::unordered_map<const Operation*, size_t> position_;
  std::unordered_set<const Block*> blocks_;
  std::vector<const Value*> values_;
};

}  // namespace

std::optional<std::string> verify(const Kernel& kernel, const Target* target) {
  try {
    Verifier(kernel, target).run();
  } catch (const Rejected& r) {
    return "verify @" + kernel.name() + ": " + r.message + ".";
  }
  return std::nullopt;
}

}  // namespace tack::tile
