// Vectors and matrices: values made of scalar components that exist only
// in the frontend. Every operation is the corresponding scalar operation on
// each component, so types, promotion and exceptional values follow the
// scalar rules; generated code never sees a vector.
//
// A vector Value keeps its components as pure expressions (constants, locals
// and operators over them) and a prelude holding every evaluation with an
// effect or a load, in source order. Consumers run the prelude first, so
// operands evaluate once, left to right, whatever components they read.
#include <map>

#include "frontend/lowerer.h"
#include "ir/build.h"

namespace tack::frontend {

using namespace syntax;
using ir::ExprPtr;

namespace {

bool is_pure(const ir::Expr& e) {
    bool pure = true;
    auto& m = const_cast<ir::Expr&>(e);
    ir::visit(m, [&](ir::Expr& x) {
        switch (x.kind) {
            case ir::ExprKind::Load:
            case ir::ExprKind::Atomic:
            case ir::ExprKind::StmtExpr:
            case ir::ExprKind::Logical:  // may skip evaluation: keep as a temporary
            case ir::ExprKind::Select: pure = false; break;
            default: break;
        }
    }, [](ir::Stmt&) {});
    return pure;
}

int component_count(const std::vector<int>& shape) {
    int n = 1;
    for (int s : shape) n *= s;
    return n;
}

}  // namespace

ir::BinOp lower_binop(syntax::BinaryOp op);

std::string Lowerer::shape_name(const std::vector<int>& shape) {
    if (shape.size() == 1) return "vec" + std::to_string(shape[0]);
    return "mat" + std::to_string(shape[0]) + "x" + std::to_string(shape[1]);
}

ExprPtr Lowerer::pure(ExprPtr e, ir::Block& prelude) {
    if (is_pure(*e)) return e;
    Span span = e->span;
    int t = temp("c");
    prelude.push_back(assign_stmt(t, std::move(e), span));
    return var_ref(t, span);
}

ExprPtr Lowerer::with_prelude(ir::Block prelude, ExprPtr e) {
    if (prelude.empty()) return e;
    auto se = std::make_unique<ir::StmtExpr>();
    se->span = e->span;
    se->stmts = std::move(prelude);
    se->value = std::move(e);
    return se;
}

Value Lowerer::make_vector(std::vector<ExprPtr> comps, std::vector<int> shape, ir::Block prelude, Span span) {
    Value v;
    v.kind = Value::Kind::Vector;
    v.shape = std::move(shape);
    v.prelude = std::move(prelude);
    v.span = span;
    for (auto& c : comps) v.elts.push_back(Value::scalar(pure(std::move(c), v.prelude), span));
    return v;
}

// The components of `v`, moving its prelude to `prelude`. A scalar stands
// for `count` equal components (evaluated once).
std::vector<ExprPtr> Lowerer::components(Value v, ir::Block& prelude, int count) {
    std::vector<ExprPtr> out;
    if (v.kind == Value::Kind::Vector) {
        for (auto& s : v.prelude) prelude.push_back(std::move(s));
        for (auto& e : v.elts) out.push_back(std::move(e.expr));
        return out;
    }
    ExprPtr s = pure(scalar(std::move(v), "a number or vector"), prelude);
    for (int i = 0; i < count; ++i) out.push_back(ir::clone(*s));
    return out;
}

std::vector<int> Lowerer::common_shape(const std::vector<const Value*>& values, const char* what, Span span) {
    std::vector<int> shape;
    for (const Value* v : values) {
        if (v->kind != Value::Kind::Vector) continue;
        if (!shape.empty() && shape != v->shape)
            fail(ErrorKind::Type, span,
                 std::string(what) + " have different shapes: " + shape_name(shape) + " and " + shape_name(v->shape),
                 "vector shape");
        shape = v->shape;
    }
    return shape;
}

// ------------------------------------------------------------ operators

Value Lowerer::vector_unary(ir::UnOp op, Value v, Span span) {
    ir::Block pre;
    auto shape = v.shape;
    auto comps = components(std::move(v), pre);
    for (auto& c : comps) {
        auto u = std::make_unique<ir::Unary>();
        u->op = op;
        u->operand = std::move(c);
        u->span = span;
        c = std::move(u);
    }
    return make_vector(std::move(comps), shape, std::move(pre), span);
}

Value Lowerer::vector_binary(syntax::BinaryOp op, Value a, Value b, Span span) {
    if (op == syntax::BinaryOp::MatMul) return matmul(std::move(a), std::move(b), span);
    std::vector<int> shape = common_shape({&a, &b}, "operands", span);
    int n = component_count(shape);
    ir::Block pre;
    auto ac = components(std::move(a), pre, n);
    auto bc = components(std::move(b), pre, n);
    std::vector<ExprPtr> out;
    for (int i = 0; i < n; ++i) out.push_back(ir::binary(lower_binop(op), std::move(ac[i]), std::move(bc[i]), span));
    return make_vector(std::move(out), shape, std::move(pre), span);
}

// lo <= v < hi: every link is evaluated and combined per component with and.
Value Lowerer::vector_compare(const syntax::Compare& c, std::vector<Value> operands) {
    std::vector<const Value*> all;
    for (auto& o : operands) all.push_back(&o);
    std::vector<int> shape = common_shape(all, "compared values", c.span);
    int n = component_count(shape);
    ir::Block pre;
    std::vector<std::vector<ExprPtr>> comps;
    for (auto& o : operands) comps.push_back(components(std::move(o), pre, n));
    std::vector<ExprPtr> out;
    for (int i = 0; i < n; ++i) {
        ExprPtr acc;
        for (size_t k = 0; k < c.ops.size(); ++k) {
            ExprPtr cmp = ir::compare(lower_cmpop(c.ops[k]), ir::clone(*comps[k][i]), ir::clone(*comps[k + 1][i]), c.span);
            acc = acc ? ir::binary(ir::BinOp::BitAnd, std::move(acc), std::move(cmp), c.span) : std::move(cmp);
        }
        out.push_back(std::move(acc));
    }
    return make_vector(std::move(out), shape, std::move(pre), c.span);
}

// and / or over masks act per component and evaluate every operand.
Value Lowerer::vector_logical(ir::LogicOp op, std::vector<Value> operands, Span span) {
    std::vector<const Value*> all;
    for (auto& o : operands) all.push_back(&o);
    std::vector<int> shape = common_shape(all, "masks", span);
    int n = component_count(shape);
    ir::Block pre;
    std::vector<std::vector<ExprPtr>> comps;
    for (auto& o : operands) comps.push_back(components(std::move(o), pre, n));
    std::vector<ExprPtr> out;
    for (int i = 0; i < n; ++i) {
        auto truth = [&](ExprPtr e) { return ir::compare(ir::CmpOp::Ne, std::move(e), adopting_const(0, span), span); };
        ExprPtr acc = truth(std::move(comps[0][i]));
        for (size_t k = 1; k < comps.size(); ++k)
            acc = ir::binary(op == ir::LogicOp::And ? ir::BinOp::BitAnd : ir::BinOp::BitOr, std::move(acc),
                        truth(std::move(comps[k][i])), span);
        out.push_back(std::move(acc));
    }
    return make_vector(std::move(out), shape, std::move(pre), span);
}

// `a if cond else b` with vector arms: the condition is evaluated once and
// only the selected arm runs.
Value Lowerer::vector_select(ExprPtr cond, Value a, Value b, Span span) {
    std::vector<int> shape = common_shape({&a, &b}, "the arms", span);
    int n = component_count(shape);
    std::vector<int> result;
    for (int i = 0; i < n; ++i) result.push_back(temp("sel"));
    auto node = std::make_unique<ir::If>();
    node->span = span;
    node->cond = std::move(cond);
    auto arm = [&](Value v, ir::Block& out) {
        auto comps = components(std::move(v), out, n);
        for (int i = 0; i < n; ++i) out.push_back(assign_stmt(result[i], std::move(comps[i]), span));
    };
    arm(std::move(a), node->then_body);
    arm(std::move(b), node->else_body);
    ir::Block pre;
    pre.push_back(std::move(node));
    std::vector<ExprPtr> comps;
    for (int v : result) comps.push_back(var_ref(v, span));
    return make_vector(std::move(comps), shape, std::move(pre), span);
}

// a @ b: each entry is the sum of its products in index order.
Value Lowerer::matmul(Value a, Value b, Span span) {
    if (a.kind != Value::Kind::Vector || b.kind != Value::Kind::Vector)
        fail(ErrorKind::Type, span, "'@' multiplies vectors and matrices", "@ operator", "use * for numbers");
    auto as = a.shape, bs = b.shape;
    ir::Block pre;
    auto ac = components(std::move(a), pre);
    auto bc = components(std::move(b), pre);
    int ar = as.size() == 2 ? as[0] : 1, ak = as.size() == 2 ? as[1] : as[0];
    int bk = bs[0], bcn = bs.size() == 2 ? bs[1] : 1;
    if (ak != bk)
        fail(ErrorKind::Type, span, "'@' shapes do not agree: " + shape_name(as) + " @ " + shape_name(bs), "@ operator");
    std::vector<ExprPtr> out;
    for (int i = 0; i < ar; ++i) {
        for (int j = 0; j < bcn; ++j) {
            ExprPtr acc;
            for (int k = 0; k < ak; ++k) {
                ExprPtr p = ir::binary(ir::BinOp::Mul, ir::clone(*ac[i * ak + k]), ir::clone(*bc[k * bcn + j]), span);
                acc = acc ? ir::binary(ir::BinOp::Add, std::move(acc), std::move(p), span) : std::move(p);
            }
            out.push_back(std::move(acc));
        }
    }
    bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec && b_vec) return Value::scalar(with_prelude(std::move(pre), std::move(out[0])), span);
    std::vector<int> shape = a_vec ? std::vector<int>{bcn} : b_vec ? std::vector<int>{ar} : std::vector<int>{ar, bcn};
    return make_vector(std::move(out), shape, std::move(pre), span);
}

// Applies `make` to each component; scalar arguments serve every component.
Value Lowerer::componentwise(std::vector<Value> args, const std::function<ExprPtr(std::vector<ExprPtr>)>& make,
                             Span span) {
    std::vector<const Value*> all;
    for (auto& a : args) all.push_back(&a);
    std::vector<int> shape = common_shape(all, "arguments", span);
    int n = component_count(shape);
    ir::Block pre;
    std::vector<std::vector<ExprPtr>> comps;
    for (auto& a : args) comps.push_back(components(std::move(a), pre, n));
    std::vector<ExprPtr> out;
    for (int i = 0; i < n; ++i) {
        std::vector<ExprPtr> row;
        for (auto& c : comps) row.push_back(std::move(c[i]));
        out.push_back(make(std::move(row)));
    }
    return make_vector(std::move(out), shape, std::move(pre), span);
}

// ------------------------------------------------------------ components

// comps[k] for a runtime k; an index outside [0, n) reads the last component.
ExprPtr Lowerer::select_by_index(std::vector<ExprPtr> comps, const ir::Expr& k, Span span) {
    ExprPtr acc = std::move(comps.back());
    for (int c = static_cast<int>(comps.size()) - 2; c >= 0; --c) {
        auto sel = std::make_unique<ir::Select>();
        sel->joins_all = true;
        sel->cond = ir::compare(ir::CmpOp::Eq, ir::clone(k), adopting_const(c, span), span);
        sel->if_true = std::move(comps[c]);
        sel->if_false = std::move(acc);
        sel->span = span;
        acc = std::move(sel);
    }
    return acc;
}

Value Lowerer::vector_component(Value v, const syntax::Expr& index, Span span) {
    auto shape = v.shape;
    ir::Block pre;
    auto comps = components(std::move(v), pre);
    return select_components(shape, index, std::move(pre), span, [&](int k) { return std::move(comps[k]); });
}

// The components `index` selects of a value of `shape` whose flat component
// k is component(k), taken at most once each (after `pre`): a literal
// position picks its own, a runtime one chooses among them by Select, so
// that only the component chosen is evaluated.
Value Lowerer::select_components(const std::vector<int>& shape, const syntax::Expr& index, ir::Block pre, Span span,
                                 const std::function<ExprPtr(int)>& component) {
    auto literal = [&](const syntax::Expr& e, int extent, int64_t* out) -> bool {
        *out = component_position(e, extent, shape);
        return *out >= 0;
    };
    auto run = [&](int first, int count) {
        std::vector<ExprPtr> comps;
        for (int c = 0; c < count; ++c) comps.push_back(component(first + c));
        return comps;
    };
    if (shape.size() == 2) {
        auto* t = index.as<syntax::Tuple>();
        if (t && t->elts.size() == 2) {
            int64_t i, j;
            if (literal(*t->elts[0], shape[0], &i) && literal(*t->elts[1], shape[1], &j))
                return Value::scalar(with_prelude(std::move(pre), component(static_cast<int>(i * shape[1] + j))), span);
            // Runtime row and column: the column chosen in each row, then
            // the row (each index compared in its own type, never mixed
            // with the other's).
            ExprPtr row = pure(scalar(*t->elts[0], "a row index"), pre);
            ExprPtr col = pure(scalar(*t->elts[1], "a column index"), pre);
            std::vector<ExprPtr> rows;
            for (int r = 0; r < shape[0]; ++r) rows.push_back(select_by_index(run(r * shape[1], shape[1]), *col, span));
            return Value::scalar(with_prelude(std::move(pre), select_by_index(std::move(rows), *row, span)), span);
        }
        int64_t r;
        if (literal(index, shape[0], &r))
            return make_vector(run(static_cast<int>(r) * shape[1], shape[1]), {shape[1]}, std::move(pre), span);
        fail(ErrorKind::Type, index.span, "a matrix row is selected by a literal index", "matrix index");
    }
    int64_t k;
    if (literal(index, shape[0], &k)) return Value::scalar(with_prelude(std::move(pre), component(static_cast<int>(k))), span);
    // A runtime index must lie in [0, n); outside it the last component is read.
    ExprPtr idx = pure(scalar(index, "a component index"), pre);
    return Value::scalar(with_prelude(std::move(pre), select_by_index(run(0, shape[0]), *idx, span)), span);
}

Value Lowerer::vector_attribute(Value v, const std::string& attr, Span span) {
    static const std::string names = "xyzw";
    auto pos = names.find(attr);
    if (attr.size() != 1 || pos == std::string::npos || v.shape.size() != 1)
        fail(ErrorKind::Type, span, "a " + shape_name(v.shape) + " has no attribute '" + attr + "'", "attribute");
    if (static_cast<int>(pos) >= v.shape[0])
        fail(ErrorKind::Type, span, "a " + shape_name(v.shape) + " has no component '" + attr + "'", "component");
    ir::Block pre;
    auto comps = components(std::move(v), pre);
    return Value::scalar(with_prelude(std::move(pre), std::move(comps[pos])), span);
}

// ------------------------------------------------------------- assignment

// Every component of the right side is evaluated before any is assigned.
void Lowerer::assign_vector(const std::string& name, Value v, ir::Block& out, Span span) {
    auto& names = frame().names;
    auto it = names.find(name);
    std::vector<int> ids;
    if (it != names.end() && it->second.kind == Binding::Kind::Vector) {
        if (it->second.shape != v.shape)
            fail(ErrorKind::Type, span,
                 "'" + name + "' holds a " + shape_name(it->second.shape) + "; it cannot take a " + shape_name(v.shape),
                 "vector shape");
        ids = it->second.ids;
    } else if (it != names.end() && it->second.kind == Binding::Kind::Var && it->second.carried) {
        fail_carried(name, it->second, "a " + shape_name(v.shape),
                     "assign '" + name + "' a " + shape_name(v.shape) + " before the loop");
    } else if (it != names.end() && it->second.kind == Binding::Kind::Var && it->second.id >= 0 &&
               k_.vars[it->second.id].role == ir::VarRole::Param) {
        fail(ErrorKind::Type, span, "scalar parameter '" + name + "' cannot take a vector", "vector assignment");
    } else {
        int n = component_count(v.shape);
        for (int i = 0; i < n; ++i) ids.push_back(k_.add_var(name + "." + std::to_string(i), ir::VarRole::Local));
        Binding b;
        b.kind = Binding::Kind::Vector;
        b.ids = ids;
        b.shape = v.shape;
        names[name] = b;
    }
    assign_together(ids, components(std::move(v), out), out, span);
}

// ids[k] = values[k] for every k, each value evaluated (into a temporary)
// before any local is assigned: `m[1] = tack.vec2(m[1, 1], m[1, 0])` swaps.
void Lowerer::assign_together(const std::vector<int>& ids, std::vector<ExprPtr> values, ir::Block& out, Span span) {
    std::vector<int> held;
    for (auto& c : values) {
        int t = temp("v");
        out.push_back(assign_stmt(t, std::move(c), span));
        held.push_back(t);
    }
    for (size_t i = 0; i < ids.size(); ++i) out.push_back(assign_stmt(ids[i], var_ref(held[i], span), span));
}

// The position `attr` names among a vector's components of `shape` (x, y,
// z, w), or -1 where it names none.
int Lowerer::component_named(const std::string& attr, const std::vector<int>& shape) {
    static const std::string names = "xyzw";
    auto pos = names.find(attr);
    if (attr.size() != 1 || pos == std::string::npos || shape.size() != 1 || static_cast<int>(pos) >= shape[0]) return -1;
    return static_cast<int>(pos);
}

// v[c] = s, m[i, j] = s, v.x = s on a vector local.
void Lowerer::assign_component(const syntax::Expr& target, Value v, ir::Block& out, Span span) {
    const syntax::Expr* base = nullptr;
    if (auto* s = target.as<Subscript>()) base = s->value.get();
    if (auto* a = target.as<Attribute>()) base = a->value.get();
    auto* n = base ? base->as<Name>() : nullptr;
    auto it = n ? frame().names.find(n->id) : frame().names.end();
    if (it == frame().names.end() || it->second.kind != Binding::Kind::Vector)
        fail(ErrorKind::Unsupported, target.span, "assignment to a component of a value that is not a vector local",
             "component assignment");
    Binding b = it->second;
    auto* s = target.as<Subscript>();
    if (int r = s ? row_of(*s->index, b.shape) : -1; r >= 0) {
        // m[r] = w: every entry of the row is evaluated before any is assigned.
        int cols = b.shape[1];
        std::vector<int> row(b.ids.begin() + r * cols, b.ids.begin() + (r + 1) * cols);
        assign_together(row, row_values(std::move(v), b.shape, out, span), out, span);
        return;
    }
    ExprPtr value = scalar(std::move(v), "a number");
    if (auto* a = target.as<Attribute>()) {
        int pos = component_named(a->attr, b.shape);
        if (pos < 0)
            fail(ErrorKind::Type, target.span, "a " + shape_name(b.shape) + " has no component '" + a->attr + "'");
        out.push_back(assign_stmt(b.ids[pos], std::move(value), span));
        return;
    }
    // The value is evaluated before the index.
    int t = temp();
    out.push_back(assign_stmt(t, std::move(value), span));
    store_component(*target.as<Subscript>()->index, b.shape, out, span,
                    [&](int k, ir::Block& at) { at.push_back(assign_stmt(b.ids[k], var_ref(t, span), span)); });
}

// A literal position along an axis of `extent` of a value of `shape`
// (v[1], m[1], m[0, 1]); -1 where `e` is no literal; one outside the
// axis is refused.
int Lowerer::component_position(const syntax::Expr& e, int extent, const std::vector<int>& shape) {
    return literal_position(e, extent,
                            "component index " + to_source(e) + " is out of range for a " + shape_name(shape),
                            "component index");
}

// The row `index` names of a matrix of `shape` (m[1] = w), by a literal
// position; -1 where `index` names no row (an entry m[r, c], or `shape` is
// a vector's).
int Lowerer::row_of(const syntax::Expr& index, const std::vector<int>& shape) {
    if (shape.size() != 2 || index.as<syntax::Tuple>()) return -1;
    int r = component_position(index, shape[0], shape);
    if (r < 0) fail(ErrorKind::Type, index.span, "a matrix row is selected by a literal index", "matrix index");
    return r;
}

// The entries a row of a matrix of `shape` takes from `v`: a vector of the
// row's length, component by component, or a number, in every entry;
// evaluated in order into `out`.
std::vector<ExprPtr> Lowerer::row_values(Value v, const std::vector<int>& shape, ir::Block& out, Span span) {
    const std::vector<int> row{shape[1]};
    if (v.kind == Value::Kind::Vector && v.shape != row)
        fail(ErrorKind::Type, span,
             "a row of a " + shape_name(shape) + " takes a " + shape_name(row) + " or a number, not a " +
                 shape_name(v.shape),
             "matrix row");
    auto entries = components(std::move(v), out, shape[1]);
    for (auto& e : entries) e = pure(std::move(e), out);
    return entries;
}

void Lowerer::store_component(const syntax::Expr& index, const std::vector<int>& shape, ir::Block& out, Span span,
                              const std::function<void(int, ir::Block&)>& store) {
    auto literal = [&](const syntax::Expr& e, int extent) { return component_position(e, extent, shape); };
    std::vector<const syntax::Expr*> parts;
    if (shape.size() == 2) {
        auto* t = index.as<syntax::Tuple>();
        if (!t || t->elts.size() != 2) fail(ErrorKind::Type, index.span, "a matrix entry takes a row and a column");
        parts = {t->elts[0].get(), t->elts[1].get()};
    } else {
        parts = {&index};
    }
    // Each index is a literal position or a runtime value; a runtime one
    // outside the value's extent matches no component, so nothing is stored.
    std::vector<int> fixed;
    std::vector<ExprPtr> runtime;
    for (size_t d = 0; d < parts.size(); ++d) {
        fixed.push_back(literal(*parts[d], shape[d]));
        const char* what = parts.size() == 1 ? "a component index" : d == 0 ? "a row index" : "a column index";
        runtime.push_back(fixed[d] < 0 ? pure(scalar(*parts[d], what), out) : nullptr);
    }
    std::function<void(size_t, int, ir::Block&)> select = [&](size_t d, int flat, ir::Block& at) {
        if (d == parts.size()) {
            store(flat, at);
            return;
        }
        int stride = d + 1 < shape.size() ? shape[d + 1] : 1;
        if (fixed[d] >= 0) {
            select(d + 1, flat + fixed[d] * stride, at);
            return;
        }
        for (int i = 0; i < shape[d]; ++i) {
            auto node = std::make_unique<ir::If>();
            node->cond = ir::compare(ir::CmpOp::Eq, ir::clone(*runtime[d]), adopting_const(i, span), span);
            node->span = span;
            select(d + 1, flat + i * stride, node->then_body);
            at.push_back(std::move(node));
        }
    };
    select(0, 0, out);
}

// --------------------------------------------------- constructors, methods

bool Lowerer::is_vector_builtin(const std::string& n) const {
    return n == "vec2" || n == "vec3" || n == "vec4" || n == "mat2" || n == "mat3" || n == "mat4" || n == "mat" ||
           n == "identity" || n == "any" || n == "all" || n == "select";
}

Value Lowerer::vector_builtin(const std::string& bname, const syntax::Call& c) {
    Span span = c.span;
    if (bname == "identity") {
        auto* l = c.args.size() == 1 ? c.args[0]->as<IntLit>() : nullptr;
        if (!l || l->value < 2 || l->value > 4)
            fail(ErrorKind::Type, span, "tack.identity(n) takes a literal n of 2, 3 or 4", bname);
        int n = static_cast<int>(l->value);
        std::vector<ExprPtr> comps;
        for (int i = 0; i < n * n; ++i) comps.push_back(int_const(i / n == i % n ? 1 : 0, span));
        return make_vector(std::move(comps), {n, n}, {}, span);
    }
    // A matrix of one list (or tuple) takes its elements as the rows:
    // tack.mat([[a, b], [c, d]]) and tack.mat([w0, w1]), as NumPy's and
    // Taichi's matrix constructors do.
    const std::vector<syntax::ExprPtr>* given = &c.args;
    if (bname.rfind("mat", 0) == 0 && c.args.size() == 1) {
        if (auto* l = c.args[0]->as<List>()) given = &l->elts;
        if (auto* t = c.args[0]->as<syntax::Tuple>()) given = &t->elts;
    }
    std::vector<Value> args;
    for (auto& a : *given) args.push_back(expr(*a));
    if (bname == "any" || bname == "all") {
        if (args.size() != 1 || args[0].kind != Value::Kind::Vector)
            fail(ErrorKind::Type, span, bname + "() takes one vector mask", bname);
        ir::Block pre;
        auto comps = components(std::move(args[0]), pre);
        ExprPtr acc;
        for (auto& x : comps) {
            ExprPtr ne = ir::compare(ir::CmpOp::Ne, std::move(x), adopting_const(0, span), span);
            acc = acc ? ir::binary(bname == "any" ? ir::BinOp::BitOr : ir::BinOp::BitAnd, std::move(acc), std::move(ne), span)
                      : std::move(ne);
        }
        return Value::scalar(with_prelude(std::move(pre), std::move(acc)), span);
    }
    if (bname == "select") {
        if (args.size() != 3) fail(ErrorKind::Type, span, "tack.select(mask, a, b) takes three arguments", bname);
        std::vector<int> shape = common_shape({&args[0], &args[1], &args[2]}, "tack.select()'s mask and values", span);
        if (shape.empty()) fail(ErrorKind::Type, span, "tack.select() needs a vector mask or vector values", bname);
        int n = component_count(shape);
        ir::Block pre;
        auto m = components(std::move(args[0]), pre, n);
        auto a = components(std::move(args[1]), pre, n);
        auto b = components(std::move(args[2]), pre, n);
        std::vector<ExprPtr> out;
        for (int i = 0; i < n; ++i) {
            out.push_back(ir::select(std::move(m[i]), std::move(a[i]), std::move(b[i]), span));
        }
        return make_vector(std::move(out), shape, std::move(pre), span);
    }
    ir::Block pre;
    if (bname[0] == 'v') {
        int n = bname[3] - '0';
        std::vector<ExprPtr> comps;
        if (args.size() == 1 && args[0].kind == Value::Kind::Vector) {
            if (args[0].shape != std::vector<int>{n})
                fail(ErrorKind::Type, span, "tack." + bname + "() takes a " + bname + ", not a " + shape_name(args[0].shape));
            comps = components(std::move(args[0]), pre);
        } else if (args.size() == 1) {
            comps = components(std::move(args[0]), pre, n);
        } else if (static_cast<int>(args.size()) == n) {
            for (auto& a : args) comps.push_back(pure(scalar(std::move(a), "a component"), pre));
        } else if (args.empty()) {
            // The zero vector, f32 unless it meets f64 (a float literal's rule).
            for (int i = 0; i < n; ++i) {
                auto zero = std::make_unique<ir::FloatConst>();
                zero->span = span;
                comps.push_back(std::move(zero));
            }
        } else {
            fail(ErrorKind::Type, span,
                 "tack." + bname + "() takes " + std::to_string(n) + " numbers, one number, a " + bname +
                     " or nothing (the zero vector)");
        }
        return make_vector(std::move(comps), {n}, std::move(pre), span);
    }
    // Matrices: rows as vectors (or lists), or N*N numbers in row-major order.
    std::vector<ExprPtr> comps;
    int rows = 0, cols = 0;
    bool all_vectors = !args.empty();
    for (auto& a : args) all_vectors = all_vectors && a.kind == Value::Kind::Vector && a.shape.size() == 1;
    if (all_vectors) {
        rows = static_cast<int>(args.size());
        cols = args[0].shape[0];
        for (auto& a : args) {
            if (a.shape[0] != cols) fail(ErrorKind::Type, span, "matrix rows have different lengths", bname);
            for (auto& x : components(std::move(a), pre)) comps.push_back(std::move(x));
        }
    } else {
        int n = bname == "mat" ? 0 : bname[3] - '0';
        if (n == 0 || static_cast<int>(args.size()) != n * n)
            fail(ErrorKind::Type, span, "tack." + bname + "() takes rows or " + std::to_string(n * n) + " numbers", bname);
        rows = cols = n;
        for (auto& a : args) comps.push_back(pure(scalar(std::move(a), "an entry"), pre));
    }
    if (bname != "mat" && (rows != bname[3] - '0' || cols != rows))
        fail(ErrorKind::Type, span, "tack." + bname + "() takes " + std::string(1, bname[3]) + " rows of " +
                                        std::string(1, bname[3]) + " entries", bname);
    if (rows < 1 || rows > 4 || cols < 1 || cols > 4) fail(ErrorKind::Type, span, "matrices are at most 4x4", bname);
    return make_vector(std::move(comps), {rows, cols}, std::move(pre), span);
}

namespace {

// How many arguments each vector and matrix method takes: {fewest, most}.
const std::map<std::string, std::pair<size_t, size_t>>& method_arity() {
    static const std::map<std::string, std::pair<size_t, size_t>> arity = {
        {"norm", {0, 1}},      {"norm_sqr", {0, 0}},      {"sum", {0, 0}},       {"min", {0, 0}},
        {"max", {0, 0}},       {"dot", {1, 1}},           {"cross", {1, 1}},     {"normalized", {0, 0}},
        {"outer_product", {1, 1}}, {"transpose", {0, 0}}, {"trace", {0, 0}},     {"determinant", {0, 0}},
        {"inverse", {0, 0}},
    };
    return arity;
}

}  // namespace

Value Lowerer::vector_method(Value obj, const std::string& name, const syntax::Call& c) {
    Span span = c.span;
    auto shape = obj.shape;
    if (auto it = method_arity().find(name); it != method_arity().end()) {
        auto [fewest, most] = it->second;
        size_t given = c.args.size();
        if (given < fewest || given > most) {
            auto count = [](size_t n) {
                return n == 0 ? std::string("no arguments") : std::to_string(n) + (n == 1 ? " argument" : " arguments");
            };
            std::string takes = fewest == most ? count(most)
                                               : std::to_string(fewest) + " or " + std::to_string(most) + " arguments";
            fail(ErrorKind::Type, span,
                 "method '" + name + "' of a " + shape_name(shape) + " takes " + takes + ", " +
                     std::to_string(given) + " given",
                 "method arguments");
        }
    }
    ir::Block pre;
    auto comps = components(std::move(obj), pre);
    int n = static_cast<int>(comps.size());
    auto comp = [&](int i) { return ir::clone(*comps[i]); };
    auto sum_of = [&](const std::function<ExprPtr(int)>& term, int count) {
        ExprPtr acc = term(0);
        for (int i = 1; i < count; ++i) acc = ir::binary(ir::BinOp::Add, std::move(acc), term(i), span);
        return acc;
    };
    auto scalar_result = [&](ExprPtr e) { return Value::scalar(with_prelude(std::move(pre), std::move(e)), span); };
    auto other = [&]() {
        if (c.args.size() != 1) fail(ErrorKind::Type, span, name + "() takes one vector");
        Value o = expr(*c.args[0]);
        if (o.kind != Value::Kind::Vector || o.shape != shape)
            fail(ErrorKind::Type, c.args[0]->span, name + "() needs another " + shape_name(shape));
        return components(std::move(o), pre);
    };
    bool is_vec = shape.size() == 1;
    if (name == "norm_sqr" || name == "norm") {
        ExprPtr s = sum_of([&](int i) { return ir::binary(ir::BinOp::Mul, comp(i), comp(i), span); }, n);
        if (name == "norm_sqr") return scalar_result(std::move(s));
        if (c.args.size() == 1) s = ir::binary(ir::BinOp::Add, std::move(s), scalar(*c.args[0], "an epsilon"), span);
        std::vector<ExprPtr> a;
        a.push_back(std::move(s));
        return scalar_result(ir::math(ir::MathFn::Sqrt, std::move(a), span));
    }
    if (name == "sum") return scalar_result(sum_of(comp, n));
    if (name == "min" || name == "max") {
        ExprPtr acc = comp(0);
        for (int i = 1; i < n; ++i) acc = ir::binary(name == "min" ? ir::BinOp::Min : ir::BinOp::Max, std::move(acc), comp(i), span);
        return scalar_result(std::move(acc));
    }
    if (is_vec && name == "dot") {
        auto o = other();
        return scalar_result(sum_of([&](int i) { return ir::binary(ir::BinOp::Mul, comp(i), ir::clone(*o[i]), span); }, n));
    }
    if (is_vec && name == "cross") {
        if (n != 3) fail(ErrorKind::Type, span, "cross() takes 3-vectors");
        auto o = other();
        auto cr = [&](int a, int b) {
            return ir::binary(ir::BinOp::Sub, ir::binary(ir::BinOp::Mul, comp(a), ir::clone(*o[b]), span),
                         ir::binary(ir::BinOp::Mul, comp(b), ir::clone(*o[a]), span), span);
        };
        std::vector<ExprPtr> out;
        out.push_back(cr(1, 2));
        out.push_back(cr(2, 0));
        out.push_back(cr(0, 1));
        return make_vector(std::move(out), {3}, std::move(pre), span);
    }
    if (is_vec && name == "normalized") {
        ExprPtr s = sum_of([&](int i) { return ir::binary(ir::BinOp::Mul, comp(i), comp(i), span); }, n);
        std::vector<ExprPtr> a;
        a.push_back(std::move(s));
        ExprPtr len = pure(ir::math(ir::MathFn::Sqrt, std::move(a), span), pre);
        std::vector<ExprPtr> out;
        for (int i = 0; i < n; ++i) out.push_back(ir::binary(ir::BinOp::Div, comp(i), ir::clone(*len), span));
        return make_vector(std::move(out), shape, std::move(pre), span);
    }
    if (is_vec && name == "outer_product") {
        auto o = other();
        std::vector<ExprPtr> out;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) out.push_back(ir::binary(ir::BinOp::Mul, comp(i), ir::clone(*o[j]), span));
        return make_vector(std::move(out), {n, n}, std::move(pre), span);
    }
    if (!is_vec) {
        int r = shape[0], cl = shape[1];
        auto at = [&](int i, int j) { return comp(i * cl + j); };
        if (name == "transpose") {
            std::vector<ExprPtr> out;
            for (int j = 0; j < cl; ++j)
                for (int i = 0; i < r; ++i) out.push_back(at(i, j));
            return make_vector(std::move(out), {cl, r}, std::move(pre), span);
        }
        if (r == cl && name == "trace") return scalar_result(sum_of([&](int i) { return at(i, i); }, r));
        auto det2 = [&](int a, int b, int c2, int d) {
            return ir::binary(ir::BinOp::Sub, ir::binary(ir::BinOp::Mul, comp(a), comp(d), span),
                         ir::binary(ir::BinOp::Mul, comp(b), comp(c2), span), span);
        };
        // 3x3 cofactor C(i, j) of entry (i, j), row-major indices.
        auto cof3 = [&](int i, int j) {
            int r0 = (i + 1) % 3, r1 = (i + 2) % 3, c0 = (j + 1) % 3, c1 = (j + 2) % 3;
            return det2(r0 * 3 + c0, r0 * 3 + c1, r1 * 3 + c0, r1 * 3 + c1);
        };
        if (r == cl && (r == 2 || r == 3) && (name == "determinant" || name == "inverse")) {
            ExprPtr det = r == 2 ? det2(0, 1, 2, 3)
                                 : ir::binary(ir::BinOp::Add,
                                         ir::binary(ir::BinOp::Add, ir::binary(ir::BinOp::Mul, at(0, 0), cof3(0, 0), span),
                                               ir::binary(ir::BinOp::Mul, at(0, 1), cof3(0, 1), span), span),
                                         ir::binary(ir::BinOp::Mul, at(0, 2), cof3(0, 2), span), span);
            if (name == "determinant") return scalar_result(std::move(det));
            // The adjugate divided by the determinant, which is not tested.
            ExprPtr d = pure(std::move(det), pre);
            std::vector<ExprPtr> out;
            if (r == 2) {
                out.push_back(comp(3));
                out.push_back(std::make_unique<ir::Unary>());
                out.push_back(std::make_unique<ir::Unary>());
                out.push_back(comp(0));
                for (int k : {1, 2}) {
                    auto* u = static_cast<ir::Unary*>(out[k].get());
                    u->op = ir::UnOp::Neg;
                    u->operand = comp(k);
                    u->span = span;
                }
            } else {
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) out.push_back(cof3(j, i));
            }
            for (auto& e : out) e = ir::binary(ir::BinOp::Div, std::move(e), ir::clone(*d), span);
            return make_vector(std::move(out), shape, std::move(pre), span);
        }
    }
    fail(ErrorKind::Type, span, "a " + shape_name(shape) + " has no method '" + name + "'", "method");
}

}  // namespace tack::frontend
