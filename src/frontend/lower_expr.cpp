#include "frontend/lowerer.h"

#include <algorithm>
#include <functional>
#include <set>

namespace tack::frontend {

using namespace syntax;
using ir::ExprPtr;


// A constant's literal: a tack.constant, math.pi, a device-class constant.
ExprPtr constant_literal(const Resolution& r, Span span) {
    ExprPtr e;
    if (r.is_float) {
        auto f = std::make_unique<ir::FloatConst>();
        f->value = r.float_value;
        e = std::move(f);
    } else {
        auto i = std::make_unique<ir::IntConst>();
        i->bits = r.int_bits;
        i->negative = r.int_negative;
        e = std::move(i);
    }
    e->span = span;
    if (!r.has_dtype) return e;
    auto c = std::make_unique<ir::Cast>();
    c->to = r.dtype;
    c->operand = std::move(e);
    c->span = span;
    return c;
}

ir::CmpOp lower_cmpop(syntax::CmpOp op) {
    switch (op) {
        case syntax::CmpOp::Lt: return ir::CmpOp::Lt;
        case syntax::CmpOp::Le: return ir::CmpOp::Le;
        case syntax::CmpOp::Gt: return ir::CmpOp::Gt;
        case syntax::CmpOp::Ge: return ir::CmpOp::Ge;
        case syntax::CmpOp::Eq: return ir::CmpOp::Eq;
        case syntax::CmpOp::Ne: return ir::CmpOp::Ne;
        default: break;
    }
    internal_error("lower", "comparison operator passed validation");
}

ExprPtr Lowerer::scalar(const Expr& e, const char* what) { return scalar(expr(e), what); }

ExprPtr Lowerer::scalar(Value v, const char* what) {
    if (v.is_void)
        fail(ErrorKind::Type, v.span, std::string("a device function that returns nothing is used where ") + what +
                                          " is expected");
    switch (v.kind) {
        case Value::Kind::Scalar: return std::move(v.expr);
        case Value::Kind::Vector:
            if (std::string(what) == "a condition")
                fail(ErrorKind::Type, v.span, "a vector mask is used as a condition", "mask condition",
                     "reduce the mask with any(...) or all(...), or pick values per component with tack.select");
            fail(ErrorKind::Type, v.span, "a " + shape_name(v.shape) + " is used where " + what + " is expected",
                 "vector value", "select a component (v.x, v[0]) or reduce it (v.sum(), v.norm())");
        case Value::Kind::Array: {
            // Host vectors (tack.vec3(...) outside a kernel) are NumPy arrays,
            // so a vector passed as an argument arrives as an array.
            const ir::Param& p = k_.params[v.array];
            bool parameter = p.kind == ir::ParamKind::Array;
            fail(ErrorKind::Type, v.span,
                 (parameter ? "array parameter '" + p.name + "'" : std::string("an array")) + " is used where " + what +
                     " is expected",
                 "array value",
                 parameter ? "index it to read one element ('" + p.name + "[i]'); a call binds every array, NumPy "
                                 "arrays and host vectors such as tack.vec3(...) included, to an array parameter: pass "
                                 "a vector's components as numbers, or an array of vector elements"
                           : "index the array to read one element");
        }
        case Value::Kind::Tuple:
            fail(ErrorKind::Type, v.span, std::string("a tuple is used where ") + what + " is expected", "tuple value");
        case Value::Kind::Object:
            fail(ErrorKind::Type, v.span,
                 "a '" + v.object->class_name + "' instance is used where " + what + " is expected", "instance value",
                 "read one of its attributes or call one of its methods");
    }
    internal_error("lower", "unknown value kind");
}

ExprPtr Lowerer::condition(const Expr& e) { return scalar(e, "a condition"); }

ExprPtr Lowerer::reusable(ExprPtr e, ir::Block& prelude) {
    if (e->as<ir::IntConst>() || e->as<ir::FloatConst>() || e->as<ir::VarRef>()) return e;
    Span span = e->span;
    int t = temp();
    prelude.push_back(assign_stmt(t, std::move(e), span));
    return var_ref(t, span);
}

Value Lowerer::expr(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Name: return name(*e.as<Name>());
        case ExprKind::IntLit: {
            auto& l = *e.as<IntLit>();
            if (l.overflow)
                fail(ErrorKind::Value, e.span, "integer literal " + l.text + " does not fit 64 bits", "integer literal");
            auto c = std::make_unique<ir::IntConst>();
            c->bits = l.value;
            c->span = e.span;
            return Value::scalar(std::move(c), e.span);
        }
        case ExprKind::FloatLit: {
            auto c = std::make_unique<ir::FloatConst>();
            c->value = e.as<FloatLit>()->value;
            c->span = e.span;
            return Value::scalar(std::move(c), e.span);
        }
        case ExprKind::BoolLit: return Value::scalar(int_const(e.as<BoolLit>()->value ? 1 : 0, e.span), e.span);
        case ExprKind::Unary: {
            auto& u = *e.as<syntax::Unary>();
            // A negative integer literal is classified by its complete value.
            if (u.op == UnaryOp::Neg) {
                if (auto* l = u.operand->as<IntLit>()) {
                    if (l->overflow || l->value > (uint64_t{1} << 63))
                        fail(ErrorKind::Value, e.span, "integer literal -" + l->text + " does not fit 64 bits",
                             "integer literal");
                    auto c = std::make_unique<ir::IntConst>();
                    c->bits = ~l->value + 1;
                    c->negative = l->value != 0;
                    c->span = e.span;
                    return Value::scalar(std::move(c), e.span);
                }
            }
            Value inner = expr(*u.operand);
            ir::UnOp op = u.op == UnaryOp::Neg ? ir::UnOp::Neg : u.op == UnaryOp::Not ? ir::UnOp::Not : ir::UnOp::Invert;
            if (inner.kind == Value::Kind::Vector)
                return u.op == UnaryOp::Pos ? std::move(inner) : vector_unary(op, std::move(inner), e.span);
            ExprPtr operand = scalar(std::move(inner));
            if (u.op == UnaryOp::Pos) return Value::scalar(std::move(operand), e.span);
            auto n = std::make_unique<ir::Unary>();
            n->op = op;
            n->operand = std::move(operand);
            n->span = e.span;
            return Value::scalar(std::move(n), e.span);
        }
        case ExprKind::Binary: {
            auto& b = *e.as<syntax::Binary>();
            Value lhs = expr(*b.lhs);
            Value rhs = expr(*b.rhs);
            if (lhs.kind == Value::Kind::Vector || rhs.kind == Value::Kind::Vector)
                return vector_binary(b.op, std::move(lhs), std::move(rhs), e.span);
            if (b.op == syntax::BinaryOp::MatMul)
                fail(ErrorKind::Unsupported, e.span, "'@' on numbers", "@ operator",
                     "@ multiplies vectors and matrices; use * for numbers");
            auto n = std::make_unique<ir::Binary>();
            n->op = lower_binop(b.op);
            n->lhs = scalar(std::move(lhs));
            n->rhs = scalar(std::move(rhs));
            n->span = e.span;
            return Value::scalar(std::move(n), e.span);
        }
        case ExprKind::BoolOp: {
            auto& b = *e.as<BoolOp>();
            // Masks combine per component (every operand evaluated); numbers
            // short-circuit, as each operand's value is code placed under the
            // previous one's test.
            std::vector<Value> operands;
            bool vec = false;
            for (auto& v : b.values) {
                operands.push_back(expr(*v));
                vec = vec || operands.back().kind == Value::Kind::Vector;
            }
            if (vec)
                return vector_logical(b.op == BoolOpKind::And ? ir::LogicOp::And : ir::LogicOp::Or,
                                      std::move(operands), e.span);
            ExprPtr acc = scalar(std::move(operands[0]));
            for (size_t i = 1; i < operands.size(); ++i) {
                auto n = std::make_unique<ir::Logical>();
                n->op = b.op == BoolOpKind::And ? ir::LogicOp::And : ir::LogicOp::Or;
                n->lhs = std::move(acc);
                n->rhs = scalar(std::move(operands[i]));
                n->span = e.span;
                acc = std::move(n);
            }
            return Value::scalar(std::move(acc), e.span);
        }
        case ExprKind::Compare: {
            auto& c = *e.as<syntax::Compare>();
            std::vector<Value> operands;
            operands.push_back(expr(*c.left));
            for (auto& x : c.comparators) operands.push_back(expr(*x));
            bool vec = false;
            for (auto& o : operands) vec = vec || o.kind == Value::Kind::Vector;
            if (vec) return vector_compare(c, std::move(operands));
            return Value::scalar(compare(c, std::move(operands)), e.span);
        }
        case ExprKind::IfExp: {
            auto& i = *e.as<IfExp>();
            ExprPtr cond = condition(*i.cond);
            Value a = expr(*i.then_value);
            Value b = expr(*i.else_value);
            if (a.kind == Value::Kind::Vector || b.kind == Value::Kind::Vector)
                return vector_select(std::move(cond), std::move(a), std::move(b), e.span);
            auto n = std::make_unique<ir::Select>();
            n->cond = std::move(cond);
            n->if_true = scalar(std::move(a));
            n->if_false = scalar(std::move(b));
            n->span = e.span;
            return Value::scalar(std::move(n), e.span);
        }
        case ExprKind::Call: return call(*e.as<syntax::Call>());
        case ExprKind::Attribute: return attribute(*e.as<Attribute>());
        case ExprKind::Subscript: return subscript(*e.as<Subscript>());
        case ExprKind::Tuple: {
            Value v;
            v.kind = Value::Kind::Tuple;
            v.span = e.span;
            for (auto& x : e.as<syntax::Tuple>()->elts) v.elts.push_back(expr(*x));
            return v;
        }
        case ExprKind::List: {
            // A list of numbers written alone is a vector.
            auto& l = *e.as<List>();
            if (l.elts.empty() || l.elts.size() > 4)
                fail(ErrorKind::Type, e.span, "a vector has 1 to 4 components", "list value");
            std::vector<ExprPtr> comps;
            ir::Block pre;
            for (auto& x : l.elts) comps.push_back(pure(scalar(*x, "a vector component"), pre));
            return make_vector(std::move(comps), {static_cast<int>(l.elts.size())}, std::move(pre), e.span);
        }
        default: break;
    }
    internal_error("lower", std::string("expression kind passed validation: ") + to_string(e.kind));
}

// Whether an expression is vector-valued, decided before lowering it, so a
// comparison chain or and/or knows to evaluate every operand.
bool Lowerer::looks_vector(const syntax::Expr& e) {
    switch (e.kind) {
        case ExprKind::Name: {
            auto it = frame().names.find(e.as<Name>()->id);
            return it != frame().names.end() && it->second.kind == Binding::Kind::Vector;
        }
        case ExprKind::List: return true;
        case ExprKind::Unary: return looks_vector(*e.as<syntax::Unary>()->operand);
        case ExprKind::Binary: {
            auto& b = *e.as<syntax::Binary>();
            return looks_vector(*b.lhs) || looks_vector(*b.rhs);
        }
        case ExprKind::Compare: {
            auto& c = *e.as<syntax::Compare>();
            if (looks_vector(*c.left)) return true;
            for (auto& x : c.comparators)
                if (looks_vector(*x)) return true;
            return false;
        }
        case ExprKind::BoolOp:
            for (auto& v : e.as<BoolOp>()->values)
                if (looks_vector(*v)) return true;
            return false;
        case ExprKind::IfExp: return looks_vector(*e.as<IfExp>()->then_value);
        case ExprKind::Call: {
            auto& c = *e.as<syntax::Call>();
            if (auto* a = c.func->as<Attribute>(); a && global_path(*a).empty()) {
                static const std::set<std::string> vector_methods = {"cross", "normalized", "outer_product",
                                                                     "transpose", "inverse"};
                return vector_methods.count(a->attr) > 0;
            }
            Resolution r = resolve_callee(*c.func);
            if (r.kind == Resolution::Kind::Builtin) {
                static const std::set<std::string> makers = {"vec2", "vec3", "vec4", "mat2", "mat3",
                                                             "mat4", "mat", "identity", "select"};
                if (makers.count(r.builtin)) return true;
                for (auto& a : c.args)
                    if (looks_vector(*a)) return true;
            }
            if (r.kind == Resolution::Kind::DType)
                for (auto& a : c.args)
                    if (looks_vector(*a)) return true;
            return false;
        }
        case ExprKind::Subscript: {
            auto& s = *e.as<Subscript>();
            if (element_array(*s.value) >= 0) return true;  // an element of a vector or matrix array
            // A matrix row.
            if (auto* n = s.value->as<Name>()) {
                auto it = frame().names.find(n->id);
                return it != frame().names.end() && it->second.kind == Binding::Kind::Vector &&
                       it->second.shape.size() == 2 && !s.index->as<syntax::Tuple>();
            }
            return false;
        }
        default: return false;
    }
}

Value Lowerer::name(const Name& n) {
    Frame& f = frame();
    auto it = f.names.find(n.id);
    if (it != f.names.end()) {
        switch (it->second.kind) {
            case Binding::Kind::Var: return Value::scalar(var_ref(it->second.id, n.span), n.span);
            case Binding::Kind::Array: return Value::of_array(it->second.id, n.span);
            case Binding::Kind::Object: return Value::of_object(it->second.object, it->second.id, n.span);
            case Binding::Kind::Vector: {
                std::vector<ExprPtr> comps;
                for (int id : it->second.ids) comps.push_back(var_ref(id, n.span));
                return make_vector(std::move(comps), it->second.shape, {}, n.span);
            }
            case Binding::Kind::EndedLoopVar:
                fail(ErrorKind::Name, n.span, "loop variable '" + n.id + "' is read after its loop ended", "",
                     "copy the value to another name inside the loop");
        }
    }
    // A local assigned later in program text: a value carried around a
    // sequential loop that assigns it. Anywhere else no assignment can have
    // run before the read (each parallel iteration starts from the values
    // bound before the parallel loop), where Python raises UnboundLocalError.
    if (f.locals.count(n.id)) {
        bool carried = std::any_of(f.loop_assigned.begin(), f.loop_assigned.end(),
                                   [&](const std::unordered_set<std::string>& names) { return names.count(n.id) > 0; });
        if (!carried)
            fail(ErrorKind::Name, n.span, "local variable '" + n.id + "' is read before it is assigned", "",
                 "assign it earlier on every path to this read (each parallel iteration starts from the values "
                 "bound before the parallel loop)");
        int var = local_var(n.id);
        Binding& b = f.names[n.id];
        if (!b.carried) {
            b.carried = true;
            b.carried_read = n.span;
        }
        return Value::scalar(var_ref(var, n.span), n.span);
    }

    Resolution r = f.resolver->resolve({n.id});
    switch (r.kind) {
        case Resolution::Kind::Constant: return constant_value(r, n.span);
        case Resolution::Kind::Unbound:
            fail(ErrorKind::Name, n.span, "name '" + n.id + "' is not defined", "",
                 "kernels read parameters, locals and tack.constant values; pass other values as arguments");
        case Resolution::Kind::DeviceFunction:
        case Resolution::Kind::Builtin:
        case Resolution::Kind::DType:
            fail(ErrorKind::Type, n.span, "'" + n.id + "' is a function; it can only be called", "function value");
        case Resolution::Kind::Module:
            fail(ErrorKind::Type, n.span, "module '" + n.id + "' is not a value", "module value");
        case Resolution::Kind::Other:
            fail(ErrorKind::Name, n.span,
                 "'" + n.id + "' is " + r.description + ", which kernels cannot capture", "",
                 "pass numbers as arguments or declare them with tack.constant");
    }
    internal_error("lower", "unknown resolution");
}

Value Lowerer::constant_value(const Resolution& r, Span span) {
    if (r.shape.empty()) return Value::scalar(constant_literal(r, span), span);
    std::vector<ExprPtr> comps;
    for (auto& c : r.components) comps.push_back(constant_literal(c, span));
    return make_vector(std::move(comps), r.shape, {}, span);
}

int Lowerer::literal_position(const Expr& e, int extent, const std::string& out_of_range, const char* construct) {
    const Expr* x = &e;
    bool negative = false;
    if (auto* u = e.as<syntax::Unary>(); u && u->op == UnaryOp::Neg) {
        x = u->operand.get();
        negative = true;
    }
    auto* lit = x->as<IntLit>();
    if (!lit) return -1;
    int64_t k = negative ? -static_cast<int64_t>(lit->value) : static_cast<int64_t>(lit->value);
    if (k < 0) k += extent;
    if (lit->overflow || k < 0 || k >= extent) fail(ErrorKind::Type, e.span, out_of_range, construct);
    return static_cast<int>(k);
}

std::vector<std::string> Lowerer::global_path(const Expr& e) {
    if (auto* n = e.as<Name>()) {
        Frame& f = frame();
        if (f.names.count(n->id) || f.locals.count(n->id)) return {};
        return {n->id};
    }
    if (auto* a = e.as<Attribute>()) {
        auto p = global_path(*a->value);
        if (!p.empty()) p.push_back(a->attr);
        return p;
    }
    return {};
}

Value Lowerer::attribute(const Attribute& a) {
    auto path = global_path(a);
    if (path.empty()) {
        if (Value picked; selected_components(a, &picked)) return picked;
        Value base = expr(*a.value);
        if (base.kind == Value::Kind::Vector) return vector_attribute(std::move(base), a.attr, a.span);
        if (base.kind == Value::Kind::Object) return member(base, a.attr, a.span);
        if (base.kind == Value::Kind::Array && a.attr == "shape")
            fail(ErrorKind::Type, a.span, "an array's shape is read one extent at a time", "shape",
                 "write a.shape[k] with a literal k");
        fail(ErrorKind::Unsupported, a.span, "attribute '" + a.attr + "' of a value", "attribute access",
             carried_hint(*a.value));
    }
    Resolution r = frame().resolver->resolve(path);
    std::string dotted;
    for (auto& p : path) dotted += (dotted.empty() ? "" : ".") + p;
    switch (r.kind) {
        case Resolution::Kind::Constant: return constant_value(r, a.span);
        case Resolution::Kind::Unbound: fail(ErrorKind::Name, a.span, "name '" + dotted + "' is not defined");
        case Resolution::Kind::Other:
            fail(ErrorKind::Name, a.span, "'" + dotted + "' is " + r.description + ", which kernels cannot capture");
        default: fail(ErrorKind::Type, a.span, "'" + dotted + "' is not a value; it can only be called");
    }
}

std::vector<ExprPtr> Lowerer::indices(int array, const Expr& index, Span span) {
    std::vector<ExprPtr> out;
    // A vector of integers supplies one index per component; whatever it
    // evaluates runs before its first component is read.
    auto add = [&](const Expr& e) {
        Value v = expr(e);
        if (v.kind != Value::Kind::Vector || v.shape.size() != 1) {
            out.push_back(scalar(std::move(v), "an index"));
            return;
        }
        ir::Block pre;
        auto comps = components(std::move(v), pre);
        comps[0] = with_prelude(std::move(pre), std::move(comps[0]));
        for (auto& c : comps) out.push_back(std::move(c));
    };
    if (auto* t = index.as<syntax::Tuple>()) {
        for (auto& e : t->elts) add(*e);
    } else {
        add(index);
    }
    int ndim = k_.params[array].ndim;
    if (static_cast<int>(out.size()) != ndim && out.size() != 1)
        fail(ErrorKind::Type, span,
             "array '" + k_.params[array].name + "' has " + std::to_string(ndim) + " dimension" +
                 (ndim == 1 ? "" : "s") + " but is indexed with " + std::to_string(out.size()) + " indices",
             "subscript", "give one index per dimension, or one flat row-major index");
    return out;
}

Value Lowerer::subscript(const Subscript& s) {
    // obj.attr[k] on a tuple attribute of an instance
    if (auto* attr = s.value->as<Attribute>(); attr && global_path(*attr).empty()) {
        Value owner = expr(*attr->value);
        if (owner.kind == Value::Kind::Object) {
            const TemplateMember* m = owner.object->find(attr->attr);
            if (m && (m->kind == TemplateMember::Kind::Tuple || m->kind == TemplateMember::Kind::Constants))
                return object_subscript(owner, s);
        }
    }
    // a.shape[k] with a literal k
    if (auto* attr = s.value->as<Attribute>(); attr && attr->attr == "shape" && global_path(*attr).empty()) {
        Value base = expr(*attr->value);
        if (base.kind == Value::Kind::Array) {
            refuse_texture(base.array, attr->span, "measured with .shape");
            int ndim = k_.params[base.array].ndim;
            int k = literal_position(*s.index, ndim,
                                     "shape index out of range for array '" + k_.params[base.array].name + "' with " +
                                         std::to_string(ndim) + " dimensions",
                                     "shape index");
            if (k < 0) fail(ErrorKind::Type, s.index->span, "a.shape[k] needs a literal k", "shape index");
            auto d = std::make_unique<ir::ArrayDim>();
            d->array = base.array;
            d->dim = k;
            d->span = s.span;
            k_.params[base.array].used = true;
            return Value::scalar(std::move(d), s.span);
        }
    }
    if (Value picked; selected_components(s, &picked)) return picked;
    Value base = expr(*s.value);
    if (base.kind == Value::Kind::Vector) return vector_component(std::move(base), *s.index, s.span);
    if (base.kind == Value::Kind::Object) return object_index(base, s);
    if (base.kind != Value::Kind::Array)
        fail(ErrorKind::Type, s.value->span, "only arrays, vectors and matrices can be indexed", "subscript",
             carried_hint(*s.value));
    refuse_texture(base.array, s.span, "indexed");
    if (!k_.params[base.array].element_shape.empty()) return load_element(base.array, *s.index, s.span);
    auto load = std::make_unique<ir::Load>();
    load->array = base.array;
    load->indices = indices(base.array, *s.index, s.span);
    load->span = s.span;
    k_.params[base.array].used = true;
    return Value::scalar(std::move(load), s.span);
}

// a < b < c evaluates a, b, c once each, left to right, and stops at the
// first false comparison.
ExprPtr Lowerer::compare(const syntax::Compare& c, std::vector<Value> operands) {
    auto make_cmp = [&](syntax::CmpOp op, ExprPtr l, ExprPtr r) {
        auto n = std::make_unique<ir::Compare>();
        n->op = lower_cmpop(op);
        n->lhs = std::move(l);
        n->rhs = std::move(r);
        n->span = c.span;
        return n;
    };
    auto wrap = [&](ir::Block pre, ExprPtr value) -> ExprPtr {
        if (pre.empty()) return value;
        auto se = std::make_unique<ir::StmtExpr>();
        se->stmts = std::move(pre);
        se->value = std::move(value);
        se->span = c.span;
        return se;
    };
    size_t n = c.ops.size();
    ExprPtr left = scalar(std::move(operands[0]));
    if (n == 1) return make_cmp(c.ops[0], std::move(left), scalar(std::move(operands[1])));

    std::function<ExprPtr(size_t, ExprPtr)> link = [&](size_t k, ExprPtr lhs) -> ExprPtr {
        ir::Block pre;
        ExprPtr rhs = scalar(std::move(operands[k + 1]));
        if (k + 1 == n) return make_cmp(c.ops[k], std::move(lhs), std::move(rhs));
        rhs = reusable(std::move(rhs), pre);
        ExprPtr again = ir::clone(*rhs);
        auto cmp = make_cmp(c.ops[k], std::move(lhs), std::move(rhs));
        auto both = std::make_unique<ir::Logical>();
        both->op = ir::LogicOp::And;
        both->lhs = std::move(cmp);
        both->rhs = link(k + 1, std::move(again));
        both->span = c.span;
        return wrap(std::move(pre), std::move(both));
    };
    ir::Block pre;
    left = reusable(std::move(left), pre);
    return wrap(std::move(pre), link(0, std::move(left)));
}

}  // namespace tack::frontend
