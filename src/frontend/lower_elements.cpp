// Arrays of vector and matrix elements. An element is a vector or matrix
// value whose components are scalar loads of one element index; a store or
// an atomic update writes each component with its own IR node. The element
// index is evaluated once, into a temporary, so every component addresses
// the same element.
#include "frontend/lowerer.h"
#include "ir/build.h"

namespace tack::frontend {

using namespace syntax;
using ir::ExprPtr;

int Lowerer::element_array(const Expr& e) {
    int array = -1;
    if (auto* n = e.as<Name>()) {
        auto it = frame().names.find(n->id);
        if (it == frame().names.end() || it->second.kind != Binding::Kind::Array) return -1;
        array = it->second.id;
    } else if (auto* a = e.as<Attribute>(); a && global_path(*a).empty()) {
        // An array attribute of a device-class instance: obj.values
        Value owner = expr(*a->value);
        if (owner.kind != Value::Kind::Object) return -1;
        const TemplateMember* m = owner.object->find(a->attr);
        if (!m || m->kind != TemplateMember::Kind::Array) return -1;
        array = owner.array + m->leaf;
    } else {
        return -1;
    }
    return k_.params[array].element_shape.empty() ? -1 : array;
}

std::vector<ExprPtr> Lowerer::element_index(int array, const Expr& index, Span span, ir::Block& out) {
    auto idx = indices(array, index, span);
    for (auto& i : idx) i = reusable(std::move(i), out);
    k_.params[array].used = true;
    return idx;
}

ExprPtr Lowerer::component_load(int array, const std::vector<ExprPtr>& index, int component, Span span) {
    auto load = std::make_unique<ir::Load>();
    load->array = array;
    for (auto& i : index) load->indices.push_back(ir::clone(*i));
    load->component = component;
    load->span = span;
    return load;
}

void Lowerer::component_store(int array, const std::vector<ExprPtr>& index, int component, ExprPtr value,
                              ir::Block& out, Span span) {
    auto st = std::make_unique<ir::Store>();
    st->array = array;
    for (auto& i : index) st->indices.push_back(ir::clone(*i));
    st->component = component;
    st->value = std::move(value);
    st->span = span;
    out.push_back(std::move(st));
}

Value Lowerer::load_element(int array, const Expr& index, Span span) {
    ir::Block pre;
    auto idx = element_index(array, index, span, pre);
    auto& p = k_.params[array];
    std::vector<ExprPtr> comps;
    for (int c = 0; c < p.components(); ++c) comps.push_back(component_load(array, idx, c, span));
    return make_vector(std::move(comps), p.element_shape, std::move(pre), span);
}

// An element of an array, or a row of a matrix element, as `e` names it:
// v[j], m[j] (every component), m[j][1] (row 1 by a literal). Only syntax
// is read; nothing is lowered.
bool Lowerer::element_view(const Expr& e, ElementView* view) {
    auto* sub = e.as<Subscript>();
    if (!sub) return false;
    int array = element_array(*sub->value);
    if (array >= 0) {
        if (k_.params[array].kind == ir::ParamKind::Texture) return false;
        view->array = array;
        view->element = sub;
        view->shape = k_.params[array].element_shape;
        view->positions.clear();
        for (int c = 0; c < k_.params[array].components(); ++c) view->positions.push_back(c);
        return true;
    }
    if (!element_view(*sub->value, view) || view->shape.size() != 2 || sub->index->as<syntax::Tuple>()) return false;
    int r = component_position(*sub->index, view->shape[0], view->shape);
    if (r < 0) return false;
    int cols = view->shape[1];
    view->positions = std::vector<int>(view->positions.begin() + r * cols, view->positions.begin() + (r + 1) * cols);
    view->shape = {cols};
    return true;
}

// v[j].y, v[j][k], m[j][r, c], m[j][1], m[j][1].y, m[j][1][k]: only the
// components selected are loaded, and a runtime position (k, or r and c)
// loads only the component it selects, as NumPy reads one number of an
// (n, 3) array: an iteration that reads v[j].y does not read v[j].x, which
// another may write (the race detector sees the reads the program makes).
// The element's index is evaluated first, then the position, as when the
// whole element is loaded and then indexed. Nothing is lowered, and false
// returned, where `e` selects nothing from an element (the general path
// lowers it, or names the fault).
bool Lowerer::selected_components(const Expr& e, Value* out) {
    auto* sub = e.as<Subscript>();
    auto* attr = e.as<Attribute>();
    const Expr* base = sub ? sub->value.get() : attr ? attr->value.get() : nullptr;
    ElementView view;
    if (!base || !element_view(*base, &view)) return false;
    int named = -1;
    if (attr) {
        named = component_named(attr->attr, view.shape);
        if (named < 0) return false;
    }
    ir::Block pre;
    auto idx = element_index(view.array, *view.element->index, view.element->span, pre);
    auto load = [&](int k) { return component_load(view.array, idx, view.positions[k], view.element->span); };
    if (attr)
        *out = Value::scalar(with_prelude(std::move(pre), load(named)), e.span);
    else
        *out = select_components(view.shape, *sub->index, std::move(pre), e.span, load);
    return true;
}

// a[i] = v: every component of v is evaluated, then the index, then the
// components are stored. A number is stored to every component.
void Lowerer::store_element(int array, const Expr& index, Value v, ir::Block& out, Span span) {
    auto& p = k_.params[array];
    if (v.kind == Value::Kind::Vector && v.shape != p.element_shape)
        fail(ErrorKind::Type, span,
             "a " + shape_name(v.shape) + " cannot be stored into array '" + p.name + "', whose elements are " +
                 shape_name(p.element_shape) + "s",
             "array store");
    if (v.kind != Value::Kind::Vector && v.kind != Value::Kind::Scalar)
        fail(ErrorKind::Type, span, "an element of array '" + p.name + "' is assigned a " + shape_name(p.element_shape) +
                                        " or a number", "array store");
    auto comps = components(std::move(v), out, p.components());
    auto idx = element_index(array, index, span, out);
    for (int c = 0; c < p.components(); ++c) component_store(array, idx, c, std::move(comps[c]), out, span);
}

// a[i][k] = s, a[i].x = s, m[i][r, c] = s: the value, then the element
// index, then the component. A runtime vector component outside [0, n)
// stores nothing, as on a vector local.
void Lowerer::store_element_component(int array, const Subscript& element, const Expr& target, Value v,
                                      ir::Block& out, Span span) {
    auto& p = k_.params[array];
    const auto shape = p.element_shape;
    std::string shape_text = shape_name(shape);
    auto* s = target.as<Subscript>();
    if (int r = s ? row_of(*s->index, shape) : -1; r >= 0) {
        // m[i][r] = w: the row's entries, then the index, then the stores.
        int cols = shape[1];
        auto entries = row_values(std::move(v), shape, out, span);
        auto idx = element_index(array, *element.index, element.span, out);
        for (int c = 0; c < cols; ++c) component_store(array, idx, r * cols + c, std::move(entries[c]), out, span);
        return;
    }
    ExprPtr value = pure(scalar(std::move(v), "a number"), out);
    auto idx = element_index(array, *element.index, element.span, out);
    if (auto* a = target.as<Attribute>()) {
        int pos = component_named(a->attr, shape);
        if (pos < 0)
            fail(ErrorKind::Type, target.span, "a " + shape_text + " has no component '" + a->attr + "'", "component");
        component_store(array, idx, pos, std::move(value), out, span);
        return;
    }
    store_component(*target.as<Subscript>()->index, shape, out, span, [&](int k, ir::Block& at) {
        component_store(array, idx, k, ir::clone(*value), at, span);
    });
}

// a[i] op= v: the index once, the old element, the right side, then the
// stores.
void Lowerer::aug_assign_element(int array, const Subscript& target, const AugAssign& s, ir::Block& out) {
    auto& p = k_.params[array];
    auto idx = element_index(array, *target.index, target.span, out);
    std::vector<ExprPtr> old;
    for (int c = 0; c < p.components(); ++c) old.push_back(component_load(array, idx, c, target.span));
    Value lhs = make_vector(std::move(old), p.element_shape, {}, target.span);
    Value result = vector_binary(s.op, std::move(lhs), expr(*s.value), s.span);
    if (result.kind != Value::Kind::Vector || result.shape != p.element_shape)
        fail(ErrorKind::Type, s.span,
             "the result is not a " + shape_name(p.element_shape) + " and cannot be stored into array '" + p.name + "'",
             "augmented assignment");
    auto comps = components(std::move(result), out);
    for (int c = 0; c < p.components(); ++c) component_store(array, idx, c, std::move(comps[c]), out, s.span);
}

// tack.atomic_add(a, i, v) on an array of vector or matrix elements. A value
// of the element's shape updates each component with its own atomic, after
// the index and every component of the value are evaluated; the result is
// the vector of old values. A number updates the one component its flat
// index addresses in interleaved storage.
Value Lowerer::atomic_element(ir::AtomicOp op, const std::string& bname, int array, const syntax::Call& c) {
    auto& p = k_.params[array];
    std::string shown = to_source(*c.args[0]);
    std::string shape_text = shape_name(p.element_shape);
    ir::Block pre;
    auto idx = element_index(array, *c.args[1], c.args[1]->span, pre);
    Value v = expr(*c.args[2]);
    auto make = [&](std::vector<ExprPtr> index, int component, ExprPtr value) {
        auto a = std::make_unique<ir::Atomic>();
        a->op = op;
        a->array = array;
        a->indices = std::move(index);
        a->component = component;
        a->value = std::move(value);
        a->span = c.span;
        return a;
    };
    if (v.kind == Value::Kind::Vector) {
        if (v.shape != p.element_shape)
            fail(ErrorKind::Type, c.args[2]->span,
                 bname + " on '" + shown + "', an array of " + shape_text + " elements, takes a " + shape_text +
                     " or a number, not a " + shape_name(v.shape),
                 bname);
        auto comps = components(std::move(v), pre);
        std::vector<ExprPtr> olds;
        for (int k = 0; k < p.components(); ++k) {
            std::vector<ExprPtr> index;
            for (auto& i : idx) index.push_back(ir::clone(*i));
            olds.push_back(make(std::move(index), k, std::move(comps[k])));
        }
        return make_vector(std::move(olds), p.element_shape, std::move(pre), c.span);
    }
    if (p.soa)
        fail(ErrorKind::Type, c.args[2]->span,
             bname + " on '" + shown + "' with a number: a number addresses one component by its flat index, but '" +
                 shown + "' has layout='soa', whose components have no common flat index",
             bname, "pass a " + shape_text + " to update every component, or use an interleaved array");
    if (idx.size() != 1)
        fail(ErrorKind::Type, c.args[1]->span,
             bname + " on '" + shown + "' with a number takes one flat index over the components of its " +
                 shape_text + " elements",
             bname, "index component k of element i as i * " + std::to_string(p.components()) + " + k");
    ExprPtr value = pure(scalar(std::move(v), "an atomic operand"), pre);
    int n = p.components();
    auto divmod = [&](ir::BinOp o) {
        return reusable(ir::binary(o, ir::clone(*idx[0]), adopting_const(n, c.span), c.span), pre);
    };
    ExprPtr element = divmod(ir::BinOp::FloorDiv);
    ExprPtr component = divmod(ir::BinOp::Mod);
    // if component == 0: ... elif component == 1: ... else: (the last one)
    int old = temp("old");
    auto update = [&](int k, ir::Block& out) {
        std::vector<ExprPtr> index;
        index.push_back(ir::clone(*element));
        out.push_back(assign_stmt(old, make(std::move(index), k, ir::clone(*value)), c.span));
    };
    ir::Block chain;
    update(n - 1, chain);
    for (int k = n - 2; k >= 0; --k) {
        auto node = std::make_unique<ir::If>();
        node->cond = ir::compare(ir::CmpOp::Eq, ir::clone(*component), adopting_const(k, c.span), c.span);
        node->span = c.span;
        update(k, node->then_body);
        node->else_body = std::move(chain);
        chain.clear();
        chain.push_back(std::move(node));
    }
    for (auto& st : chain) pre.push_back(std::move(st));
    return Value::scalar(with_prelude(std::move(pre), var_ref(old, c.span)), c.span);
}

}  // namespace tack::frontend
