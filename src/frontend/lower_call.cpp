#include <limits>
#include <unordered_map>

#include "frontend/lowerer.h"
#include "ir/build.h"

namespace tack::frontend {

using namespace syntax;
using ir::ExprPtr;

namespace {

const std::unordered_map<std::string, ir::MathFn>& math_functions() {
    static const std::unordered_map<std::string, ir::MathFn> table = {
#define X(E, name, n, c) {#name, ir::MathFn::E},
        TACK_MATH_FUNCS(X)
#undef X
        {"fabs", ir::MathFn::Abs},
        {"fpow", ir::MathFn::Pow},
    };
    return table;
}

// isnan, isinf, isfinite and clamp are comparisons and selects over their
// arguments, so each backend prints them as it prints those: no target
// needs a class-test function, and integers need no special case.
bool is_comparison_builtin(const std::string& name) {
    return name == "isnan" || name == "isinf" || name == "isfinite" || name == "clamp";
}

ExprPtr float_const(double v, Span span) {
    auto f = std::make_unique<ir::FloatConst>();
    f->value = v;
    f->span = span;
    return f;
}

// The builtin over pure operands (each may be read more than once).
// abs(x) compared with infinity takes x's floating type (a weak literal);
// NaN fails every ordered comparison, so isnan is `not abs(x) <= inf`.
// clamp is max then min, by comparisons that keep a NaN x: x < lo and
// t > hi are false for NaN, and a NaN bound imposes nothing.
ExprPtr comparison_builtin(const std::string& name, std::vector<ExprPtr> a, Span span) {
    if (name == "clamp") {
        auto at_least_lo = [&]() {
            return ir::select(ir::compare(ir::CmpOp::Lt, ir::clone(*a[0]), ir::clone(*a[1]), span), ir::clone(*a[1]),
                              ir::clone(*a[0]), span);
        };
        return ir::select(ir::compare(ir::CmpOp::Gt, at_least_lo(), ir::clone(*a[2]), span), ir::clone(*a[2]),
                          at_least_lo(), span);
    }
    ExprPtr magnitude = ir::math(ir::MathFn::Abs, std::move(a), span);
    ExprPtr inf = float_const(std::numeric_limits<double>::infinity(), span);
    if (name == "isinf") return ir::compare(ir::CmpOp::Eq, std::move(magnitude), std::move(inf), span);
    if (name == "isfinite") return ir::compare(ir::CmpOp::Lt, std::move(magnitude), std::move(inf), span);
    auto n = std::make_unique<ir::Unary>();
    n->op = ir::UnOp::Not;
    n->operand = ir::compare(ir::CmpOp::Le, std::move(magnitude), std::move(inf), span);
    n->span = span;
    return n;
}

}  // namespace

Resolution Lowerer::resolve_callee(const Expr& func) {
    auto path = global_path(func);
    if (!path.empty()) return frame().resolver->resolve(path);
    Resolution r;
    r.kind = Resolution::Kind::Other;
    if (auto* n = func.as<Name>()) {
        // Local names and parameters shadow callables.
        r.description = "the local value '" + n->id + "'";
    } else if (auto* a = func.as<Attribute>()) {
        r.description = "the method '" + a->attr + "'";
    } else {
        r.description = "a computed value";
    }
    return r;
}

Value Lowerer::call(const syntax::Call& c) {
    // A method of a vector or matrix value.
    if (auto* a = c.func->as<Attribute>(); a && global_path(*a).empty()) {
        Value obj = expr(*a->value);
        if (obj.kind == Value::Kind::Vector) return vector_method(std::move(obj), a->attr, c);
        if (obj.kind == Value::Kind::Object) return method_call(obj, a->attr, c);
        if (obj.kind == Value::Kind::Array && k_.params[obj.array].kind == ir::ParamKind::Texture) {
            if (a->attr == "sample") return texture_sample(obj.array, c);
            fail(ErrorKind::Type, c.func->span, "a texture has no method '" + a->attr + "'", "texture",
                 "sample it with " + k_.params[obj.array].name + ".sample(u, v, w)");
        }
        fail(ErrorKind::Type, c.func->span, "'" + to_source(*c.func) + "' is not a function Tack can call", "method call",
             "kernels call @tack.func functions, Tack's builtins and vector methods");
    }
    Resolution r = resolve_callee(*c.func);
    std::string shown = to_source(*c.func);
    switch (r.kind) {
        case Resolution::Kind::Builtin: return builtin(r.builtin, c);
        case Resolution::Kind::DType: return cast_call(r.dtype, c);
        case Resolution::Kind::DeviceFunction: return inline_call(*r.function, c);
        case Resolution::Kind::Unbound:
            fail(ErrorKind::Name, c.func->span, "name '" + shown + "' is not defined");
        case Resolution::Kind::Constant:
            fail(ErrorKind::Type, c.func->span, "'" + shown + "' is a constant, not a function");
        case Resolution::Kind::Module:
            fail(ErrorKind::Type, c.func->span, "module '" + shown + "' is not callable");
        case Resolution::Kind::Other:
            fail(ErrorKind::Type, c.func->span,
                 "'" + shown + "' is " + r.description + ", not a device function", "call",
                 "kernels call @tack.func functions and Tack's builtins only");
    }
    internal_error("lower", "unknown resolution");
}

Value Lowerer::cast_call(DType to, const syntax::Call& c) {
    if (c.args.size() != 1) fail(ErrorKind::Type, c.span, "a cast to " + std::string(name_of(to)) + " takes one argument");
    auto make = [&](std::vector<ExprPtr> a) { return ir::cast(to, std::move(a[0]), c.span); };
    std::vector<Value> args;
    args.push_back(expr(*c.args[0]));
    if (args[0].kind == Value::Kind::Vector) return componentwise(std::move(args), make, c.span);
    return Value::scalar(ir::cast(to, scalar(std::move(args[0])), c.span), c.span);
}

Value Lowerer::builtin(const std::string& bname, const syntax::Call& c) {
    auto nargs = c.args.size();
    auto need = [&](size_t lo, size_t hi) {
        if (nargs < lo || nargs > hi)
            fail(ErrorKind::Type, c.span,
                 bname + "() takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                     " argument" + (hi == 1 ? "" : "s") + ", got " + std::to_string(nargs));
    };
    if (bname == "print") {
        require_side_effects_allowed(c.span, "print");
        auto p = std::make_unique<ir::Print>();
        p->span = c.span;
        auto se = std::make_unique<ir::StmtExpr>();
        for (auto& a : c.args) {
            Value v = expr(*a);
            if (v.kind == Value::Kind::Vector && v.shape.size() == 1) {
                auto comps = components(std::move(v), se->stmts);
                p->groups.push_back(static_cast<int>(comps.size()));
                for (auto& x : comps) p->args.push_back(std::move(x));
                continue;
            }
            p->args.push_back(scalar(std::move(v), "a printed number or vector"));
            p->groups.push_back(0);
        }
        se->span = c.span;
        se->stmts.push_back(std::move(p));  // after any vector components' evaluation
        se->value = int_const(0, c.span);
        Value v = Value::scalar(std::move(se), c.span);
        v.is_void = true;
        return v;
    }
    if (bname == "atomic_add" || bname == "atomic_sub" || bname == "atomic_min" || bname == "atomic_max" ||
        bname == "atomic_exch" || bname == "atomic_cas")
        return atomic(bname, c);
    if (bname == "local_array" || bname == "local_array_like" || bname == "shared" || bname == "shared_like")
        return local_array(bname, c);
    // Workgroup primitives become IR nodes; a backend without workgroups
    // refuses the kernel (driver::check_supported).
    if (bname == "barrier") {
        need(0, 0);
        require_side_effects_allowed(c.span, bname.c_str());
        auto b = std::make_unique<ir::Barrier>();
        b->span = c.span;
        auto se = std::make_unique<ir::StmtExpr>();
        se->span = c.span;
        se->stmts.push_back(std::move(b));
        se->value = int_const(0, c.span);
        Value v = Value::scalar(std::move(se), c.span);
        v.is_void = true;
        return v;
    }
    if (bname == "thread_id") {
        need(0, 0);
        auto t = std::make_unique<ir::ThreadId>();
        t->span = c.span;
        return Value::scalar(std::move(t), c.span);
    }
    if (bname == "block_sum" || bname == "block_min" || bname == "block_max") {
        need(1, 1);
        require_side_effects_allowed(c.span, bname.c_str());
        auto r = std::make_unique<ir::BlockReduce>();
        r->op = bname == "block_sum" ? ir::BlockOp::Sum : bname == "block_min" ? ir::BlockOp::Min : ir::BlockOp::Max;
        r->value = scalar(expr(*c.args[0]), "a block reduction's operand");
        r->span = c.span;
        return Value::scalar(std::move(r), c.span);
    }
    if (bname == "range" || bname == "ndindex")
        fail(ErrorKind::Unsupported, c.span, bname + "() is only valid as a for-loop iterable", bname);
    if (bname == "len") {
        need(1, 1);
        Value a = expr(*c.args[0]);
        if (a.kind == Value::Kind::Object) return object_len(a, c.span);
        if (a.kind != Value::Kind::Array) fail(ErrorKind::Type, c.args[0]->span, "len() takes an array");
        refuse_texture(a.array, c.args[0]->span, "measured with len()");
        auto d = std::make_unique<ir::ArrayDim>();
        d->array = a.array;
        d->dim = 0;
        d->span = c.span;
        k_.params[a.array].used = true;
        return Value::scalar(std::move(d), c.span);
    }
    if (is_vector_builtin(bname)) return vector_builtin(bname, c);
    auto& table = math_functions();
    bool numeric = bname == "min" || bname == "max" || bname == "pow" || bname == "abs" || table.count(bname) ||
                   is_comparison_builtin(bname);
    if (bname == "int" || bname == "float") {
        // Componentwise on a vector or matrix, as tack.i32(v) and tack.f32(v).
        need(1, 1);
        return cast_call(bname == "int" ? DType::I32 : DType::F32, c);
    }
    if (!numeric) fail(ErrorKind::Unsupported, c.span, bname + "() is not supported in kernels", bname);
    // The arguments' values decide: any vector or matrix applies the
    // function to each component, a scalar argument serving every component.
    // (A value is code not yet placed, so lowering it first changes no order.)
    if (auto it = table.find(bname); it != table.end()) need(ir::arity(it->second), ir::arity(it->second));
    if (is_comparison_builtin(bname)) need(bname == "clamp" ? 3 : 1, bname == "clamp" ? 3 : 1);
    std::vector<Value> args;
    for (auto& a : c.args) args.push_back(expr(*a));
    if (is_comparison_builtin(bname)) {
        auto make = [&](std::vector<ExprPtr> a) { return comparison_builtin(bname, std::move(a), c.span); };
        bool vector = false;
        for (auto& a : args) vector = vector || a.kind == Value::Kind::Vector;
        if (vector) return componentwise(std::move(args), make, c.span);
        ir::Block pre;
        std::vector<ExprPtr> operands;
        for (auto& a : args) operands.push_back(pure(scalar(std::move(a)), pre));
        return Value::scalar(with_prelude(std::move(pre), make(std::move(operands))), c.span);
    }
    bool vector_args = false;
    for (auto& a : args) vector_args = vector_args || a.kind == Value::Kind::Vector;
    if (vector_args) {
        auto make = [&](std::vector<ExprPtr> a) -> ExprPtr {
            if (bname == "min" || bname == "max" || bname == "pow") {
                ExprPtr acc = std::move(a[0]);
                for (size_t i = 1; i < a.size(); ++i) {
                    auto b = std::make_unique<ir::Binary>();
                    b->op = bname == "min" ? ir::BinOp::Min : bname == "max" ? ir::BinOp::Max : ir::BinOp::Pow;
                    b->lhs = std::move(acc);
                    b->rhs = std::move(a[i]);
                    b->span = c.span;
                    acc = std::move(b);
                }
                return acc;
            }
            auto m = std::make_unique<ir::Math>();
            m->fn = table.at(bname);
            m->args = std::move(a);
            m->span = c.span;
            return m;
        };
        return componentwise(std::move(args), make, c.span);
    }
    if (bname == "min" || bname == "max") {
        if (nargs < 2) fail(ErrorKind::Type, c.span, bname + "() takes at least two numbers in a kernel");
        ExprPtr acc = scalar(std::move(args[0]));
        for (size_t i = 1; i < nargs; ++i) {
            auto b = std::make_unique<ir::Binary>();
            b->op = bname == "min" ? ir::BinOp::Min : ir::BinOp::Max;
            b->lhs = std::move(acc);
            b->rhs = scalar(std::move(args[i]));
            b->span = c.span;
            acc = std::move(b);
        }
        return Value::scalar(std::move(acc), c.span);
    }
    if (bname == "pow") {
        need(2, 2);
        auto b = std::make_unique<ir::Binary>();
        b->op = ir::BinOp::Pow;
        b->lhs = scalar(std::move(args[0]));
        b->rhs = scalar(std::move(args[1]));
        b->span = c.span;
        return Value::scalar(std::move(b), c.span);
    }
    if (auto it = table.find(bname); it != table.end()) {
        int n = ir::arity(it->second);
        need(n, n);
        auto m = std::make_unique<ir::Math>();
        m->fn = it->second;
        for (auto& a : args) m->args.push_back(scalar(std::move(a)));
        m->span = c.span;
        return Value::scalar(std::move(m), c.span);
    }
    internal_error("lower", "numeric builtin " + bname + " has no lowering");
}

Value Lowerer::inline_call(const DeviceFunctionRef& f, const syntax::Call& c) {
    // Arguments are evaluated in the caller's namespace; the values below
    // run, left to right, as the callee's parameters are assigned.
    bool value_used = !is_discarded(c);
    std::vector<Value> args;
    for (auto& a : c.args) args.push_back(expr(*a));
    return inline_call(f, std::move(args), c.span, value_used);
}

Value Lowerer::inline_call(const DeviceFunctionRef& f, std::vector<Value> args, Span call_span, bool value_used) {
    for (auto* fr : frames_) {
        if (fr->identity == f.identity && f.identity != 0)
            fail(ErrorKind::Unsupported, call_span, "recursive call of device function '" + f.name + "'", "recursion",
                 "device functions are inlined; rewrite the recursion as a loop");
    }
    const FunctionDef& callee = parsed_function(f);
    if (args.size() != callee.params.size())
        fail(ErrorKind::Type, call_span,
             "device function '" + f.name + "' takes " + std::to_string(callee.params.size()) + " arguments, got " +
                 std::to_string(args.size()));

    auto se = std::make_unique<ir::StmtExpr>();
    se->span = call_span;
    Frame callee_frame;
    callee_frame.fn = &callee;
    callee_frame.role = FunctionRole::DeviceFunction;
    callee_frame.resolver = f.resolver;
    callee_frame.identity = f.identity;
    collect_locals(callee.body, callee_frame.locals);

    // Arguments are evaluated left to right; a scalar parameter is a copy
    // the callee may reassign.
    for (size_t i = 0; i < args.size(); ++i) {
        Value a = std::move(args[i]);
        Span arg_span = a.span;
        const std::string& pname = callee.params[i].name;
        if (a.kind == Value::Kind::Array) {
            callee_frame.names[pname] = Binding{Binding::Kind::Array, a.array};
        } else if (a.kind == Value::Kind::Object) {
            Binding b{Binding::Kind::Object, a.array};
            b.object = a.object;
            callee_frame.names[pname] = b;
        } else if (a.kind == Value::Kind::Scalar) {
            if (a.is_void)
                fail(ErrorKind::Type, arg_span, "a device function that returns nothing is passed as an argument");
            int v = k_.add_var(pname, ir::VarRole::Local);
            se->stmts.push_back(assign_stmt(v, std::move(a.expr), arg_span));
            callee_frame.names[pname] = Binding{Binding::Kind::Var, v};
        } else if (a.kind == Value::Kind::Vector) {
            Binding b;
            b.kind = Binding::Kind::Vector;
            b.shape = a.shape;
            auto comps = components(std::move(a), se->stmts);
            for (size_t k = 0; k < comps.size(); ++k) {
                int v = k_.add_var(pname + "." + std::to_string(k), ir::VarRole::Local);
                se->stmts.push_back(assign_stmt(v, std::move(comps[k]), arg_span));
                b.ids.push_back(v);
            }
            callee_frame.names[pname] = b;
        } else {
            fail(ErrorKind::Type, arg_span, "a tuple cannot be passed as one argument", "tuple argument");
        }
    }

    // A flag records an early return when some return is not the last statement.
    bool early = false;
    for (size_t i = 0; i + 1 < callee.body.size(); ++i)
        if (auto* ifs = callee.body[i]->as<syntax::If>())
            early = early || contains_return(ifs->body) || contains_return(ifs->orelse);
    if (early) {
        callee_frame.done_var = temp("done");
        se->stmts.push_back(assign_stmt(callee_frame.done_var, int_const(0, call_span), call_span));
    }

    frames_.push_back(&callee_frame);
    size_t first_body_stmt = se->stmts.size();
    function_body(callee.body, 0, se->stmts);
    frames_.pop_back();

    // Positions in the callee's statements refer to the callee's source.
    int origin = static_cast<int>(k_.origins.size());
    k_.origins.push_back(ir::Origin{f.name, false, f.source});
    ir::Block body_part;
    for (size_t i = first_body_stmt; i < se->stmts.size(); ++i) body_part.push_back(std::move(se->stmts[i]));
    ir::visit(body_part, [&](ir::Expr& e) { if (e.span.origin == 0) e.span.origin = origin; },
              [&](ir::Stmt& s) { if (s.span.origin == 0) s.span.origin = origin; });
    for (size_t i = first_body_stmt; i < se->stmts.size(); ++i) se->stmts[i] = std::move(body_part[i - first_body_stmt]);

    // A function that can reach its end without a return has no value
    // there (Python's None), which a kernel cannot store or compute with.
    if (value_used && callee_frame.returns_value && !always_returns(callee.body))
        fail(ErrorKind::Type, call_span,
             "device function '" + f.name + "' returns a value on some paths only, and its value is used here",
             "missing return", "end every path of '" + f.name + "' with a return");
    if (!callee_frame.returns_value) {
        se->value = int_const(0, call_span);
        Value v = Value::scalar(std::move(se), call_span);
        v.is_void = true;
        return v;
    }
    auto& results = callee_frame.result_vars;
    auto& shapes = callee_frame.result_shapes;
    if (shapes.size() == 1 && shapes[0].empty()) {
        se->value = var_ref(results[0], call_span);
        return Value::scalar(std::move(se), call_span);
    }
    // Several results, or vectors: the inlined body runs first, then the
    // results are read from their locals.
    se->value = int_const(0, call_span);
    auto run = std::make_unique<ir::Eval>();
    run->value = std::move(se);
    run->span = call_span;
    ir::Block body;
    body.push_back(std::move(run));
    std::vector<Value> parts;
    size_t next = 0;
    for (auto& sh : shapes) {
        if (sh.empty()) {
            parts.push_back(Value::scalar(var_ref(results[next++], call_span), call_span));
            continue;
        }
        int n = 1;
        for (int d : sh) n *= d;
        std::vector<ExprPtr> comps;
        for (int k = 0; k < n; ++k) comps.push_back(var_ref(results[next++], call_span));
        parts.push_back(make_vector(std::move(comps), sh, {}, call_span));
    }
    // The body runs before the first part is read.
    Value& first = parts[0];
    if (first.kind == Value::Kind::Vector) {
        for (auto& st : first.prelude) body.push_back(std::move(st));
        first.prelude = std::move(body);
    } else {
        auto* ev = body.front()->as<ir::Eval>();
        auto* inner = ev->value->as<ir::StmtExpr>();
        inner->value = std::move(first.expr);
        first.expr = std::move(ev->value);
    }
    if (parts.size() == 1) return std::move(parts[0]);
    Value tuple;
    tuple.kind = Value::Kind::Tuple;
    tuple.span = call_span;
    tuple.elts = std::move(parts);
    return tuple;
}

Value Lowerer::atomic(const std::string& bname, const syntax::Call& c) {
    bool cas = bname == "atomic_cas";
    if (c.args.size() != (cas ? 4u : 3u))
        fail(ErrorKind::Type, c.span,
             bname + (cas ? "() takes an array, an index, the expected value and the value to store"
                          : "() takes an array, an index and a value"));
    require_side_effects_allowed(c.span, bname.c_str());
    Value target = expr(*c.args[0]);
    std::string shown = to_source(*c.args[0]);
    if (target.kind != Value::Kind::Array)
        fail(ErrorKind::Type, c.args[0]->span,
             bname + " target '" + shown + "' is not an array; atomics update elements of global arrays", bname);
    if (k_.params[target.array].kind == ir::ParamKind::LocalArray)
        fail(ErrorKind::Type, c.args[0]->span,
             bname + " target '" + shown + "' is a local array; atomics update elements of global arrays only", bname,
             "local arrays are private to one iteration: update them with ordinary assignment");
    if (k_.params[target.array].kind == ir::ParamKind::Texture)
        fail(ErrorKind::Type, c.args[0]->span,
             bname + " target '" + shown + "' is a texture, a read-only snapshot; atomics update elements of global "
                     "arrays",
             bname);
    static const std::unordered_map<std::string, ir::AtomicOp> ops = {
        {"atomic_add", ir::AtomicOp::Add},   {"atomic_sub", ir::AtomicOp::Sub},  {"atomic_min", ir::AtomicOp::Min},
        {"atomic_max", ir::AtomicOp::Max},   {"atomic_exch", ir::AtomicOp::Exch}, {"atomic_cas", ir::AtomicOp::Cas}};
    ir::AtomicOp op = ops.at(bname);
    if (!k_.params[target.array].element_shape.empty()) {
        if (cas)
            fail(ErrorKind::Type, c.args[0]->span,
                 "atomic_cas target '" + shown + "' is an array of vector or matrix elements; compare-and-swap "
                 "updates scalar arrays only",
                 bname, "view the components as a scalar array");
        return atomic_element(op, bname, target.array, c);
    }
    auto a = std::make_unique<ir::Atomic>();
    a->op = op;
    a->array = target.array;
    // Operands left to right: the index, the expected value, the value.
    a->indices = indices(target.array, *c.args[1], c.args[1]->span);
    if (cas) a->expected = scalar(*c.args[2], "an atomic operand");
    a->value = scalar(*c.args[cas ? 3 : 2], "an atomic operand");
    a->span = c.span;
    k_.params[target.array].used = true;
    return Value::scalar(std::move(a), c.span);
}

// tack.local_array(shape, dtype): private scratch storage of fixed extents;
// tack.shared(shape, dtype) the same, shared by a workgroup's lanes.
// The _like forms copy another such array's extents and dtype.
Value Lowerer::local_array(const std::string& bname, const syntax::Call& c) {
    bool shared = bname == "shared" || bname == "shared_like";
    std::string what = shared ? "shared array" : "local array";
    std::vector<int64_t> shape;
    DType dtype = DType::F32;
    auto literal_int = [&](const Expr& e) -> int64_t {
        auto* l = e.as<IntLit>();
        if (!l || l->overflow || l->value == 0 || l->value > (1u << 20))
            fail(ErrorKind::Type, e.span, what + " extents are positive integer literals", bname);
        return static_cast<int64_t>(l->value);
    };
    if (bname == "local_array" || bname == "shared") {
        if (c.args.size() != 2) fail(ErrorKind::Type, c.span, "tack." + bname + "() takes a shape and a dtype", bname);
        if (auto* t = c.args[0]->as<syntax::Tuple>()) {
            for (auto& e : t->elts) shape.push_back(literal_int(*e));
        } else {
            shape.push_back(literal_int(*c.args[0]));
        }
        Resolution r = resolve_callee(*c.args[1]);
        if (r.kind != Resolution::Kind::DType)
            fail(ErrorKind::Type, c.args[1]->span, "tack." + bname + "() needs a Tack dtype such as tack.f32", bname);
        dtype = r.dtype;
    } else {
        if (c.args.size() != 1)
            fail(ErrorKind::Type, c.span, "tack." + bname + "() takes one local or shared array", bname);
        Value model = expr(*c.args[0]);
        if (model.kind != Value::Kind::Array || k_.params[model.array].kind != ir::ParamKind::LocalArray)
            fail(ErrorKind::Type, c.args[0]->span,
                 "tack." + bname + "() copies the extents of a local or shared array, which are fixed", bname);
        shape = k_.params[model.array].local_shape;
        dtype = k_.params[model.array].dtype;
    }
    if (shape.size() > 8) fail(ErrorKind::Type, c.span, what + "s have at most 8 dimensions", bname);
    // Every extent is at least 1, so the byte count only grows: stop once it
    // passes the limit, before a product of up to eight extents can wrap.
    constexpr int64_t kLimit = 64 * 1024;
    int64_t bytes = size_of(dtype);
    for (auto e : shape)
        if (bytes <= kLimit) bytes *= e;
    if (bytes > kLimit) {
        std::string extents;
        for (size_t d = 0; d < shape.size(); ++d) extents += (d ? ", " : "") + std::to_string(shape[d]);
        fail(ErrorKind::Value, c.span,
             what + " of shape (" + extents + (shape.size() == 1 ? ",)" : ")") + " and dtype " +
                 std::string(name_of(dtype)) + " exceeds the 64 KiB limit",
             bname, shared ? "workgroup memory is small; use a global array for larger scratch"
                           : "local arrays live on each worker's stack; use a global array for larger scratch");
    }
    ir::Param p;
    p.kind = ir::ParamKind::LocalArray;
    p.dtype = dtype;
    p.ndim = static_cast<int>(shape.size());
    p.local_shape = shape;
    p.shared = shared;
    p.declared = c.span;
    p.declared_with = bname;
    p.used = true;
    p.name = (shared ? "$shared" : "$local") + std::to_string(k_.params.size());
    k_.params.push_back(p);
    if (const int64_t total = ir::private_scratch_bytes(k_); !shared && total > ir::kPrivateScratchLimit)
        fail(ErrorKind::Value, c.span,
             "this local array brings the kernel's local arrays to " + std::to_string(total) + " bytes, more than the " +
                 std::to_string(ir::kPrivateScratchLimit >> 20) + " MiB a work item may hold",
             bname, "local arrays live on each worker's stack; use a global array for larger scratch");
    Value v = Value::of_array(static_cast<int>(k_.params.size()) - 1, c.span);
    v.fresh_local_array = true;
    return v;
}

const FunctionDef& Lowerer::parsed_function(const DeviceFunctionRef& f) {
    auto it = parsed_.find(f.identity);
    if (it != parsed_.end()) return *it->second;
    auto fn = parse_function(f.source);
    validate(*fn, FunctionRole::DeviceFunction);
    auto& slot = parsed_[f.identity];
    slot = std::move(fn);
    return *slot;
}

}  // namespace tack::frontend
