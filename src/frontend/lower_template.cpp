// Device-class instances in kernels: attribute reads, method calls, and
// indexing through the class's __getitem__, __setitem__ and __len__.
//
// An instance is a static description plus leaves (frontend/template.h).
// Reading an attribute gives its leaf parameter, or the literal of a class
// constant; a method is inlined like any @tack.func, with `self` bound to the
// instance, and resolves its own names in the module that defines it.
#include "frontend/lowerer.h"
#include "ir/build.h"

namespace tack::frontend {

using namespace syntax;
using ir::ExprPtr;

namespace {

std::string qualified(const Value& obj, const std::string& name) { return obj.object->class_name + "." + name; }

const TemplateMember& find_member(Lowerer& l, const Value& obj, const std::string& name, Span span) {
    const TemplateMember* m = obj.object->find(name);
    if (!m)
        l.fail(ErrorKind::Name, span, "'" + obj.object->class_name + "' object has no attribute '" + name + "'",
               "attribute", "kernels see the attributes an instance had when the kernel was called");
    return *m;
}

// The literal index k of obj.attr[k], counted from the end when negative.
int literal_index(Lowerer& l, const Expr& index, int count, const std::string& shown) {
    int k = l.literal_position(index, count,
                               "index out of range for '" + shown + "', a tuple of " + std::to_string(count) + " numbers",
                               "tuple index");
    if (k < 0)
        l.fail(ErrorKind::Type, index.span, "'" + shown + "' is a tuple; it is indexed with a literal integer",
               "tuple index", "write " + shown + "[0], " + shown + "[1], ...");
    return k;
}

}  // namespace

Value Lowerer::member(const Value& obj, const std::string& name, Span span) {
    const TemplateMember& m = find_member(*this, obj, name, span);
    std::string shown = qualified(obj, name);
    switch (m.kind) {
        case TemplateMember::Kind::Array: {
            int p = obj.array + m.leaf;
            k_.params[p].used = true;
            return Value::of_array(p, span);
        }
        case TemplateMember::Kind::Scalar: return Value::scalar(var_ref(param_vars_[obj.array + m.leaf], span), span);
        case TemplateMember::Kind::Object: return Value::of_object(m.object.get(), obj.array, span);
        case TemplateMember::Kind::Tuple:
        case TemplateMember::Kind::Constants:
            fail(ErrorKind::Type, span, "'" + shown + "' is a tuple; read one entry with a literal index", "tuple value",
                 "write " + name + "[0], " + name + "[1], ...");
        case TemplateMember::Kind::Method:
            fail(ErrorKind::Type, span, "'" + shown + "' is a method; it can only be called", "method value");
        case TemplateMember::Kind::Static: break;
    }
    const Resolution& r = m.resolution;
    switch (r.kind) {
        case Resolution::Kind::Constant: return constant_value(r, span);
        case Resolution::Kind::DeviceFunction:
        case Resolution::Kind::DType:
        case Resolution::Kind::Builtin:
            fail(ErrorKind::Type, span, "'" + shown + "' is a function; it can only be called", "function value");
        default:
            fail(ErrorKind::Type, span, "'" + shown + "' is " + r.description + ", which kernels cannot use", "attribute",
                 "instance attributes kernels read are arrays, numbers and tuples of numbers; class attributes are "
                 "numbers, tack.constants and @tack.func functions");
    }
}

Value Lowerer::method_call(const Value& obj, const std::string& name, const syntax::Call& c) {
    const TemplateMember& m = find_member(*this, obj, name, c.func->span);
    std::string shown = qualified(obj, name);
    if (m.kind == TemplateMember::Kind::Method) {
        bool value_used = !is_discarded(c);
        std::vector<Value> args;
        args.push_back(Value::of_object(obj.object, obj.array, obj.span));
        for (auto& a : c.args) args.push_back(expr(*a));
        return inline_call(*m.resolution.function, std::move(args), c.span, value_used);
    }
    if (m.kind == TemplateMember::Kind::Static) {
        const Resolution& r = m.resolution;
        if (r.kind == Resolution::Kind::DeviceFunction) return inline_call(*r.function, c);
        if (r.kind == Resolution::Kind::DType) return cast_call(r.dtype, c);
        if (r.kind == Resolution::Kind::Other)
            fail(ErrorKind::Type, c.func->span, "'" + shown + "' is " + r.description + ", not a device function",
                 "method call", "methods kernels call are declared with @tack.func");
    }
    fail(ErrorKind::Type, c.func->span, "'" + shown + "' is not a method", "method call");
}

const TemplateMember& Lowerer::special_method(const Value& obj, const char* name, const char* use, Span span) {
    const TemplateMember* m = obj.object->find(name);
    if (!m || m->kind != TemplateMember::Kind::Method)
        fail(ErrorKind::Type, span, "'" + obj.object->class_name + "' object does not support " + use, use,
             std::string("define ") + name + " in the class as a @tack.func");
    return *m;
}

Value Lowerer::index_value(const Expr& index, ir::Block& out) {
    // Several indices reach __getitem__ and __setitem__ as one vector.
    if (auto* t = index.as<syntax::Tuple>()) {
        std::vector<ExprPtr> comps;
        for (auto& e : t->elts) comps.push_back(pure(scalar(*e, "an index"), out));
        return make_vector(std::move(comps), {static_cast<int>(t->elts.size())}, {}, index.span);
    }
    Value v = expr(index);
    return held(std::move(v), out);
}

Value Lowerer::held(Value v, ir::Block& out) {
    if (v.kind == Value::Kind::Tuple) {
        for (auto& e : v.elts) e = held(std::move(e), out);
        return v;
    }
    if (v.kind == Value::Kind::Scalar) {
        if (v.is_void) scalar(std::move(v), "a value");
        Span span = v.span;
        int t = temp();
        out.push_back(assign_stmt(t, std::move(v.expr), span));
        return Value::scalar(var_ref(t, span), span);
    }
    if (v.kind == Value::Kind::Vector) {
        Span span = v.span;
        auto shape = v.shape;
        auto comps = components(std::move(v), out);
        std::vector<ExprPtr> refs;
        for (auto& c : comps) {
            int t = temp();
            out.push_back(assign_stmt(t, std::move(c), span));
            refs.push_back(var_ref(t, span));
        }
        return make_vector(std::move(refs), shape, {}, span);
    }
    return v;
}

Value Lowerer::copy_of(const Value& v) {
    if (v.kind == Value::Kind::Scalar) return Value::scalar(ir::clone(*v.expr), v.span);
    if (v.kind != Value::Kind::Vector || !v.prelude.empty()) internal_error("lower", "copy of a value not held");
    std::vector<ExprPtr> comps;
    for (auto& e : v.elts) comps.push_back(ir::clone(*e.expr));
    return make_vector(std::move(comps), v.shape, {}, v.span);
}

// The statements of `body` run before `v` is read.
static Value after(ir::Block body, Value v, Span span) {
    if (body.empty()) return v;
    if (v.kind == Value::Kind::Vector) {
        for (auto& st : v.prelude) body.push_back(std::move(st));
        v.prelude = std::move(body);
        return v;
    }
    auto se = std::make_unique<ir::StmtExpr>();
    se->stmts = std::move(body);
    se->value = std::move(v.expr);
    se->span = span;
    v.expr = std::move(se);
    return v;
}

Value Lowerer::object_index(const Value& obj, const syntax::Subscript& s) {
    const TemplateMember& get = special_method(obj, "__getitem__", "indexing", s.span);
    ir::Block first;
    std::vector<Value> args;
    args.push_back(Value::of_object(obj.object, obj.array, obj.span));
    args.push_back(index_value(*s.index, first));
    return after(std::move(first), inline_call(*get.resolution.function, std::move(args), s.span), s.span);
}

Value Lowerer::object_subscript(const Value& obj, const syntax::Subscript& s) {
    auto* attr = s.value->as<Attribute>();
    const TemplateMember& m = find_member(*this, obj, attr->attr, attr->span);
    std::string shown = to_source(*s.value);
    if (m.kind == TemplateMember::Kind::Constants) {
        int k = literal_index(*this, *s.index, static_cast<int>(m.items.size()), shown);
        return Value::scalar(constant_literal(m.items[k], s.span), s.span);
    }
    int k = literal_index(*this, *s.index, m.count, shown);
    return Value::scalar(var_ref(param_vars_[obj.array + m.leaf + k], s.span), s.span);
}

void Lowerer::object_store(const Value& obj, const syntax::Subscript& s, Value v, ir::Block& out, Span span) {
    // Python's order: the value, then the instance and the index, then
    // __setitem__.
    const TemplateMember& set = special_method(obj, "__setitem__", "item assignment", span);
    std::vector<Value> args;
    args.push_back(Value::of_object(obj.object, obj.array, obj.span));
    Value value = held(std::move(v), out);
    args.push_back(index_value(*s.index, out));
    args.push_back(std::move(value));
    discard(inline_call(*set.resolution.function, std::move(args), span, false), out, span);
}

void Lowerer::object_aug_store(const Value& obj, const syntax::AugAssign& s, ir::Block& out) {
    // obj[i] op= v: the index once, __getitem__, the right side, the
    // operation, __setitem__ with the same index.
    auto& sub = *s.target->as<Subscript>();
    const TemplateMember& get = special_method(obj, "__getitem__", "indexing", sub.span);
    const TemplateMember& set = special_method(obj, "__setitem__", "item assignment", s.span);
    Value index = index_value(*sub.index, out);
    std::vector<Value> get_args;
    get_args.push_back(Value::of_object(obj.object, obj.array, obj.span));
    get_args.push_back(copy_of(index));
    Value old = held(inline_call(*get.resolution.function, std::move(get_args), sub.span), out);
    Value rhs = expr(*s.value);
    Value result;
    if (old.kind == Value::Kind::Vector || rhs.kind == Value::Kind::Vector) {
        result = vector_binary(s.op, std::move(old), std::move(rhs), s.span);
    } else {
        if (s.op == syntax::BinaryOp::MatMul)
            fail(ErrorKind::Unsupported, s.span, "'@=' on numbers", "@ operator", "@ multiplies vectors and matrices");
        ExprPtr lhs = scalar(std::move(old));
        result = Value::scalar(ir::binary(lower_binop(s.op), std::move(lhs), scalar(std::move(rhs)), s.span), s.span);
    }
    std::vector<Value> set_args;
    set_args.push_back(Value::of_object(obj.object, obj.array, obj.span));
    set_args.push_back(std::move(index));
    set_args.push_back(std::move(result));
    discard(inline_call(*set.resolution.function, std::move(set_args), s.span, false), out, s.span);
}

Value Lowerer::object_len(const Value& obj, Span span) {
    const TemplateMember& len = special_method(obj, "__len__", "len()", span);
    std::vector<Value> args;
    args.push_back(Value::of_object(obj.object, obj.array, obj.span));
    return inline_call(*len.resolution.function, std::move(args), span);
}

}  // namespace tack::frontend
