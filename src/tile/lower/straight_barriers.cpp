#include "tile/lower/straight_barriers.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "ir/traverse.h"
#include "tack/tile/ir.h"

namespace tack::tile::lower {

namespace {

using ir::Block;
using ir::ExprPtr;
using ir::StmtKind;
using ir::StmtPtr;

bool has_barrier(const ir::Stmt& s) {
  if (s.kind == StmtKind::Barrier) return true;
  bool found = false;
  ir::for_each_child(
      s, [](const ExprPtr&) {},
      [&](const Block& b) {
        for (const StmtPtr& c : b) found = found || has_barrier(*c);
      });
  return found;
}

class Straightener {
 public:
  explicit Straightener(ir::Kernel& kernel) : k_(kernel) {}

  // `in` with every barrier at its top level or inside a loop at its top
  // level (and so on down each loop's body).
  Block block(Block in) {
    Block out;
    for (StmtPtr& s : in) {
      if (!has_barrier(*s)) {
        out.push_back(std::move(s));
      } else if (auto* f = s->as<ir::For>()) {
        f->body = block(std::move(f->body));
        out.push_back(std::move(s));
      } else if (auto* w = s->as<ir::While>()) {
        w->body = block(std::move(w->body));
        out.push_back(std::move(s));
      } else if (auto* branch = s->as<ir::If>()) {
        straighten(*branch, out);
      } else {
        out.push_back(std::move(s));  // a barrier
      }
    }
    return out;
  }

 private:
  ir::Kernel& k_;

  ExprPtr ref(int var) const {
    auto r = std::make_unique<ir::VarRef>();
    r->var = var;
    r->type = k_.vars[size_t(var)].type;
    return r;
  }
  // `taken`, or `not taken`.
  ExprPtr when(int taken, bool value) const {
    if (value) return ref(taken);
    auto n = std::make_unique<ir::Unary>();
    n->op = ir::UnOp::Not;
    n->operand = ref(taken);
    n->type = DType::I32;
    return n;
  }
  int new_var(const char* name, std::optional<DType> type) {
    int v = k_.add_var(name, ir::VarRole::Temp);
    k_.vars[size_t(v)].type = type;
    return v;
  }
  static StmtPtr assign(int var, ExprPtr value, ir::Span span) {
    auto a = std::make_unique<ir::Assign>();
    a->span = span;
    a->var = var;
    a->value = std::move(value);
    return a;
  }
  static StmtPtr if_else(ExprPtr cond, Block then, Block otherwise, ir::Span span) {
    auto s = std::make_unique<ir::If>();
    s->span = span;
    s->cond = std::move(cond);
    s->then_body = std::move(then);
    s->else_body = std::move(otherwise);
    return s;
  }

  // A straightened block cut at its top-level barriers.
  static std::vector<Block> cut(Block b) {
    std::vector<Block> pieces(1);
    for (StmtPtr& s : b) {
      if (s->kind == StmtKind::Barrier) pieces.emplace_back();
      else pieces.back().push_back(std::move(s));
    }
    return pieces;
  }

  void straighten(ir::If& s, Block& out) {
    k_.barriers_out_of_branches = true;
    const ir::Span span = s.span;
    const int taken = new_var("taken", s.cond->type);
    out.push_back(assign(taken, std::move(s.cond), span));
    std::vector<Block> then = cut(block(std::move(s.then_body)));
    std::vector<Block> otherwise = cut(block(std::move(s.else_body)));
    const size_t pieces = std::max(then.size(), otherwise.size());
    for (size_t i = 0; i < pieces; ++i) {
      if (i > 0) {
        auto b = std::make_unique<ir::Barrier>();
        b->span = span;
        out.push_back(std::move(b));
      }
      guarded(taken, i < then.size() ? std::move(then[i]) : Block{},
              i < otherwise.size() ? std::move(otherwise[i]) : Block{}, span, out);
    }
  }

  // The statements of a piece from its first loop with barriers on.
  static Block from_first_loop(Block& piece) {
    auto first = std::find_if(piece.begin(), piece.end(), [](const StmtPtr& s) { return has_barrier(*s); });
    Block rest;
    for (auto it = first; it != piece.end(); ++it) rest.push_back(std::move(*it));
    piece.erase(first, piece.end());
    return rest;
  }

  // `then` where `taken`, `otherwise` where not; their barriers are inside
  // loops only. Their statements before their first such loop share one
  // `if`; what follows runs under the variable, a loop at a time.
  void guarded(int taken, Block then, Block otherwise, ir::Span span, Block& out) {
    Block then_rest = from_first_loop(then), otherwise_rest = from_first_loop(otherwise);
    if (!then.empty() || !otherwise.empty())
      out.push_back(if_else(when(taken, true), std::move(then), std::move(otherwise), span));
    only(taken, true, std::move(then_rest), span, out);
    only(taken, false, std::move(otherwise_rest), span, out);
  }

  void only(int taken, bool value, Block b, ir::Span span, Block& out) {
    Block run;
    auto flush = [&] {
      if (!run.empty()) out.push_back(if_else(when(taken, value), std::move(run), {}, span));
      run.clear();
    };
    for (StmtPtr& s : b) {
      if (!has_barrier(*s)) {
        run.push_back(std::move(s));
        continue;
      }
      flush();
      loop_only(taken, value, std::move(s), out);
    }
    flush();
  }

  // A loop with barriers that runs only where `taken` is `value`: every
  // lane passes it, with no iteration where not.
  void loop_only(int taken, bool value, StmtPtr s, Block& out) {
    if (auto* w = s->as<ir::While>()) {
      auto both = std::make_unique<ir::Logical>();
      both->op = ir::LogicOp::And;
      both->lhs = when(taken, value);
      both->rhs = std::move(w->cond);
      both->type = DType::I32;
      w->cond = std::move(both);
      out.push_back(std::move(s));
      return;
    }
    auto* f = s->as<ir::For>();
    if (!f || !f->start->type || !is_int(*f->start->type))
      throw Error("compile @" + k_.name + ": internal: a barrier in a branch outside a counted loop.");
    // The bounds, evaluated in their order where the branch was taken; an
    // empty range (0, 0, 1) where not.
    const int start = new_var("start", f->start->type), end = new_var("end", f->end->type),
              step = new_var("step", f->step->type);
    Block bounds, empty;
    for (auto [var, bound] : {std::pair{start, &f->start}, std::pair{end, &f->end}, std::pair{step, &f->step}}) {
      auto constant = std::make_unique<ir::IntConst>();
      constant->bits = var == step ? 1 : 0;
      constant->type = k_.vars[size_t(var)].type;
      empty.push_back(assign(var, std::move(constant), s->span));
      bounds.push_back(assign(var, std::move(*bound), s->span));
      *bound = ref(var);
    }
    out.push_back(if_else(when(taken, value), std::move(bounds), std::move(empty), s->span));
    out.push_back(std::move(s));
  }
};

}  // namespace

void straighten_barriers(ir::Kernel& kernel) { kernel.body = Straightener(kernel).block(std::move(kernel.body)); }

}  // namespace tack::tile::lower
