#include "frontend/lowerer.h"

namespace tack::frontend {

using namespace syntax;
using ir::ExprPtr;

Value Value::scalar(ExprPtr e, Span s) {
    Value v;
    v.kind = Kind::Scalar;
    v.expr = std::move(e);
    v.span = s;
    return v;
}

Value Value::of_array(int a, Span s) {
    Value v;
    v.kind = Kind::Array;
    v.array = a;
    v.span = s;
    return v;
}

Value Value::of_object(const TemplateInfo* info, int first_leaf, Span s) {
    Value v;
    v.kind = Kind::Object;
    v.object = info;
    v.array = first_leaf;
    v.span = s;
    return v;
}

void Lowerer::fail(ErrorKind kind, Span span, std::string message, std::string construct, std::string hint) {
    throw CompileError(make_diagnostic(kind, *frame().fn, frame().role, span, std::move(message),
                                       std::move(construct), std::move(hint)));
}

int Lowerer::temp(const char* hint) {
    // '$' cannot appear in a Python identifier, so temporaries never collide
    // with user names.
    std::string name = "$";
    name += hint;
    name += std::to_string(temp_counter_++);
    return k_.add_var(std::move(name), ir::VarRole::Temp);
}

int Lowerer::local_var(const std::string& n) {
    auto& names = frame().names;
    auto it = names.find(n);
    if (it != names.end() && it->second.kind == Binding::Kind::Var) return it->second.id;
    int v = k_.add_var(n, ir::VarRole::Local);
    names[n] = Binding{Binding::Kind::Var, v};
    return v;
}

void Lowerer::fail_carried(const std::string& name, const Binding& b, const std::string& what, std::string hint) {
    fail(ErrorKind::Type, b.carried_read,
         "local variable '" + name + "' is read before its first assignment, which makes it " + what +
             "; a value carried round a loop from an earlier trip can only be a number",
         "carried value", std::move(hint));
}

std::string Lowerer::carried_hint(const Expr& base) {
    auto* n = base.as<Name>();
    if (!n) return {};
    auto it = frame().names.find(n->id);
    if (it == frame().names.end() || it->second.kind != Binding::Kind::Var || !it->second.carried) return {};
    return "'" + n->id +
           "' is read before its first assignment, so it holds a number carried from an earlier trip; to carry "
           "a vector or matrix, assign it one before the loop";
}

ExprPtr Lowerer::var_ref(int var, Span span) {
    auto r = std::make_unique<ir::VarRef>();
    r->var = var;
    r->span = span;
    return r;
}

ir::StmtPtr Lowerer::assign_stmt(int var, ExprPtr value, Span span) {
    auto a = std::make_unique<ir::Assign>();
    a->var = var;
    a->value = std::move(value);
    a->span = span;
    return a;
}

ExprPtr Lowerer::int_const(int64_t v, Span span) {
    auto c = std::make_unique<ir::IntConst>();
    c->bits = static_cast<uint64_t>(v);
    c->negative = v < 0;
    c->span = span;
    return c;
}

ExprPtr Lowerer::adopting_const(int64_t v, Span span) {
    ExprPtr c = int_const(v, span);
    c->as<ir::IntConst>()->adopts = true;
    return c;
}

void Lowerer::require_side_effects_allowed(Span span, const char* what) {
    if (region_ == Region::Body) return;
    fail(ErrorKind::Unsupported, span,
         std::string(what) + " outside the parallel loop",
         what,
         "statements outside the parallel loop may run any number of times per launch; "
         "they may only bind locals and load arrays");
}

// ------------------------------------------------------------------ locals

namespace {

void collect_targets(const Expr& t, std::unordered_set<std::string>& out) {
    if (auto* n = t.as<Name>()) out.insert(n->id);
    if (auto* tu = t.as<syntax::Tuple>())
        for (auto& e : tu->elts) collect_targets(*e, out);
    if (auto* l = t.as<List>())
        for (auto& e : l->elts) collect_targets(*e, out);
}

}  // namespace

bool Lowerer::always_returns(const Body& b) {
    for (auto& s : b) {
        if (s->as<syntax::Return>()) return true;
        if (auto* i = s->as<syntax::If>())
            if (always_returns(i->body) && always_returns(i->orelse)) return true;
    }
    return false;
}

bool Lowerer::contains_return(const Body& b) {
    for (auto& s : b) {
        if (s->as<syntax::Return>()) return true;
        if (auto* i = s->as<syntax::If>())
            if (contains_return(i->body) || contains_return(i->orelse)) return true;
    }
    return false;
}

void collect_locals(const Body& b, std::unordered_set<std::string>& out) {
    for (auto& s : b) {
        switch (s->kind) {
            case StmtKind::Assign:
                for (auto& t : s->as<syntax::Assign>()->targets) collect_targets(*t, out);
                break;
            case StmtKind::AugAssign: collect_targets(*s->as<AugAssign>()->target, out); break;
            case StmtKind::For:
                collect_targets(*s->as<syntax::For>()->target, out);
                collect_locals(s->as<syntax::For>()->body, out);
                break;
            case StmtKind::While: collect_locals(s->as<syntax::While>()->body, out); break;
            case StmtKind::If:
                collect_locals(s->as<syntax::If>()->body, out);
                collect_locals(s->as<syntax::If>()->orelse, out);
                break;
            default: break;
        }
    }
}

// ------------------------------------------------------------------ kernel

void Lowerer::kernel(const FunctionDef& fn, std::shared_ptr<Resolver> resolver) {
    Frame top;
    top.fn = &fn;
    top.role = FunctionRole::Kernel;
    top.resolver = std::move(resolver);
    collect_locals(fn.body, top.locals);
    frames_.push_back(&top);

    k_.name = fn.name;
    k_.source = fn.source;
    k_.origins.push_back(ir::Origin{fn.name, true, fn.source});
    // One parameter per shape: an instance's marker is followed by its
    // leaves, named by their paths ("grid.values").
    auto add_param = [&](const std::string& name, const ParamShape& shape) {
        int index = static_cast<int>(k_.params.size());
        ir::Param p;
        p.name = name;
        p.kind = shape.texture    ? ir::ParamKind::Texture
                 : shape.is_array ? ir::ParamKind::Array
                                  : ir::ParamKind::Scalar;
        p.ndim = shape.ndim;
        p.element_shape = shape.element_shape;
        p.soa = shape.soa;
        p.image = shape.image;
        k_.params.push_back(p);
        int var = -1;
        if (!shape.is_array) {
            var = k_.add_var(name, ir::VarRole::Param);
            k_.vars[var].param = index;
        }
        param_vars_.push_back(var);
        return index;
    };
    size_t next = 0;
    for (auto& param : fn.params) {
        if (next >= shapes_.size()) internal_error("lower", "fewer parameter shapes than parameters");
        const ParamShape& shape = shapes_[next++];
        if (shape.object) {
            ir::Param marker;
            marker.name = param.name;
            marker.kind = ir::ParamKind::Object;
            marker.object_class = shape.object->class_name;
            k_.params.push_back(marker);
            param_vars_.push_back(-1);
            int first = static_cast<int>(k_.params.size());
            for (auto& leaf : shape.object->leaf_names) {
                if (next >= shapes_.size()) internal_error("lower", "an instance's leaves are missing");
                add_param(param.name + "." + leaf, shapes_[next++]);
            }
            Binding b{Binding::Kind::Object, first};
            b.object = shape.object;
            top.names[param.name] = b;
            continue;
        }
        int index = add_param(param.name, shape);
        top.names[param.name] = shape.is_array ? Binding{Binding::Kind::Array, index}
                                               : Binding{Binding::Kind::Var, param_vars_[index]};
    }
    if (next != shapes_.size()) internal_error("lower", "more parameter shapes than parameters");

    // Find the parallel loop: exactly one `for`, directly in the body.
    const syntax::For* loop = nullptr;
    size_t loop_index = 0;
    for (size_t i = 0; i < fn.body.size(); ++i) {
        if (auto* f = fn.body[i]->as<syntax::For>()) {
            if (loop)
                fail(ErrorKind::Unsupported, f->span, "a second parallel loop", "second parallel loop",
                     "a kernel has exactly one top-level parallel loop; nest further loops inside it");
            loop = f;
            loop_index = i;
        }
    }
    if (!loop)
        fail(ErrorKind::Unsupported, fn.span, "kernel has no parallel loop", "missing parallel loop",
             "write one top-level `for i in range(n):` directly in the kernel body");

    region_ = Region::Prologue;
    for (size_t i = 0; i < loop_index; ++i) {
        auto* e = fn.body[i]->as<ExprStmt>();
        if (e && e->value->as<StringLit>()) continue;  // the docstring
        stmt(*fn.body[i], k_.prologue);
    }

    // The iteration space.
    k_.loop_span = loop->span;
    auto& it = *loop->iter;
    std::vector<const Expr*> targets;
    if (auto* tu = loop->target->as<syntax::Tuple>()) {
        for (auto& e : tu->elts) targets.push_back(e.get());
    } else {
        targets.push_back(loop->target.get());
    }
    for (auto* t : targets)
        if (!t->as<Name>()) fail(ErrorKind::Unsupported, t->span, "the parallel loop variable must be a name", "loop target");

    auto* call = it.as<syntax::Call>();
    Resolution callee;
    if (call) callee = resolve_callee(*call->func);
    bool is_range = call && callee.kind == Resolution::Kind::Builtin && callee.builtin == "range";
    bool is_ndindex = call && callee.kind == Resolution::Kind::Builtin && callee.builtin == "ndindex";
    if (!is_range && !is_ndindex)
        fail(ErrorKind::Unsupported, it.span, "the parallel loop must iterate over range(...) or tack.ndindex(...)",
             "parallel loop iterable");

    if (is_range) {
        if (targets.size() != 1)
            fail(ErrorKind::Type, loop->target->span, "range() gives one index; the loop has several targets");
        size_t n = call->args.size();
        if (n < 1 || n > 3) fail(ErrorKind::Type, call->span, "range() takes 1 to 3 arguments");
        ir::ParallelDim d;
        d.span = call->span;
        if (n == 1) {
            d.start = adopting_const(0, call->span);
            d.end = scalar(*call->args[0], "a range bound");
        } else {
            d.start = scalar(*call->args[0], "a range bound");
            d.end = scalar(*call->args[1], "a range bound");
        }
        if (n == 3) {
            d.step = scalar(*call->args[2], "a range step");
            if (auto* c = d.step->as<ir::IntConst>(); c && (c->negative || c->bits == 0))
                fail(ErrorKind::Value, call->args[2]->span,
                     c->bits == 0 ? "the parallel range step is zero" : "the parallel range step is negative",
                     "range step", "the parallel loop takes positive steps");
        }
        k_.dims.push_back(std::move(d));
    } else {
        if (call->args.empty()) fail(ErrorKind::Type, call->span, "tack.ndindex() needs at least one extent");
        if (targets.size() != call->args.size())
            fail(ErrorKind::Type, loop->target->span,
                 "tack.ndindex() over " + std::to_string(call->args.size()) + " dimensions needs as many loop targets");
        for (auto& a : call->args) {
            ir::ParallelDim d;
            d.span = a->span;
            if (auto* pair = a->as<syntax::Tuple>()) {
                if (pair->elts.size() != 2)
                    fail(ErrorKind::Type, a->span, "a tack.ndindex() range is a (start, end) pair");
                d.start = scalar(*pair->elts[0], "a range bound");
                d.end = scalar(*pair->elts[1], "a range bound");
            } else {
                d.start = adopting_const(0, a->span);
                d.end = scalar(*a, "an extent");
            }
            k_.dims.push_back(std::move(d));
        }
    }

    // Loop variables are bound for the body only.
    region_ = Region::Body;
    std::vector<std::pair<std::string, std::optional<Binding>>> saved;
    for (size_t i = 0; i < targets.size(); ++i) {
        auto& nm = targets[i]->as<Name>()->id;
        auto old = top.names.find(nm);
        saved.emplace_back(nm, old == top.names.end() ? std::nullopt : std::optional<Binding>(old->second));
        int v = k_.add_var(nm, ir::VarRole::LoopVar);
        k_.dims[i].var = v;
        top.names[nm] = Binding{Binding::Kind::Var, v};
    }
    body(loop->body, k_.body);
    for (auto& [nm, old] : saved) top.names[nm] = Binding{Binding::Kind::EndedLoopVar, -1};
    std::unordered_set<int> loop_assigned;
    ir::visit(k_.body, [](ir::Expr&) {}, [&](ir::Stmt& s) {
        if (auto* a = s.as<ir::Assign>()) loop_assigned.insert(a->var);
    });

    region_ = Region::Epilogue;
    for (size_t i = loop_index + 1; i < fn.body.size(); ++i) {
        auto& s = *fn.body[i];
        if (auto* r = s.as<syntax::Return>()) {
            if (r->value) {
                if (!fn.returns)
                    fail(ErrorKind::Type, s.span, "a kernel returning a value needs a return annotation",
                         "kernel return", "annotate the type: def k(...) -> tack.f32");
                k_.result = scalar(*r->value, "a returned value");
                Resolution ann = resolve_callee(*fn.returns);
                if (ann.kind == Resolution::Kind::DType) k_.result_type = ann.dtype;
                else if (ann.kind == Resolution::Kind::Builtin && ann.builtin == "float") k_.result_type = DType::F32;
                else if (ann.kind == Resolution::Kind::Builtin && ann.builtin == "int") k_.result_type = DType::I32;
                else
                    fail(ErrorKind::Type, fn.returns->span, "the return annotation must name a Tack scalar type",
                         "return annotation", "write -> tack.f32, -> float (f32) or -> int (i32)");
            }
            continue;
        }
        stmt(s, k_.epilogue);
    }
    // The epilogue runs once after the launch; a local the parallel loop
    // assigns has no single value there.
    auto reject_loop_locals = [&](ir::Expr& e) {
        if (auto* r = e.as<ir::VarRef>(); r && loop_assigned.count(r->var))
            fail(ErrorKind::Unsupported, e.span,
                 "the code after the parallel loop reads '" + k_.vars[r->var].name + "', which the loop assigns",
                 "kernel return", "compute the returned value from arrays, arguments and locals bound before the loop");
    };
    ir::visit(k_.epilogue, reject_loop_locals, [](ir::Stmt&) {});
    if (k_.result) ir::visit(*k_.result, reject_loop_locals, [](ir::Stmt&) {});
    frames_.pop_back();
}

// -------------------------------------------------------------- statements

void Lowerer::body(const Body& b, ir::Block& out) {
    for (size_t i = 0; i < b.size(); ++i) {
        auto* e = b[i]->as<ExprStmt>();
        if (e && e->value->as<StringLit>()) continue;  // docstring
        stmt(*b[i], out);
    }
}

void Lowerer::stmt(const Stmt& s, ir::Block& out) {
    switch (s.kind) {
        case StmtKind::ExprStmt: {
            discarded_ = s.as<ExprStmt>()->value.get();
            Value v = expr(*s.as<ExprStmt>()->value);
            discarded_ = nullptr;
            discard(std::move(v), out, s.span);
            break;
        }
        case StmtKind::Assign: {
            auto& a = *s.as<syntax::Assign>();
            Value v = expr(*a.value);
            if (a.targets.size() == 1) {
                assign(*a.targets[0], std::move(v), out, s.span);
                break;
            }
            // a = b = v: evaluate v once, then assign each target from the left.
            if (v.kind != Value::Kind::Scalar)
                fail(ErrorKind::Unsupported, s.span, "chained assignment of a tuple or array", "chained assignment");
            int t = temp();
            out.push_back(assign_stmt(t, std::move(v.expr), s.span));
            for (auto& target : a.targets) assign(*target, Value::scalar(var_ref(t, s.span), s.span), out, s.span);
            break;
        }
        case StmtKind::AugAssign: aug_assign(*s.as<AugAssign>(), out); break;
        case StmtKind::For: {
            if (region_ != Region::Body)
                fail(ErrorKind::Unsupported, s.span,
                     "a loop outside the parallel loop (the parallel loop must be directly in the kernel body, "
                     "not in a branch or while)",
                     "nested parallel loop");
            sequential_for(*s.as<syntax::For>(), out);
            break;
        }
        case StmtKind::While: {
            auto& w = *s.as<syntax::While>();
            // (A while loop may also compute locals before the parallel loop.)
            auto node = std::make_unique<ir::While>();
            node->span = s.span;
            node->cond = condition(*w.cond);
            ++frame().loop_depth;
            ++parallel_depth_;
            frame().loop_assigned.emplace_back();
            collect_locals(w.body, frame().loop_assigned.back());
            body(w.body, node->body);
            frame().loop_assigned.pop_back();
            --parallel_depth_;
            --frame().loop_depth;
            out.push_back(std::move(node));
            break;
        }
        case StmtKind::If: {
            auto& i = *s.as<syntax::If>();
            auto node = std::make_unique<ir::If>();
            node->span = s.span;
            node->cond = condition(*i.cond);
            body(i.body, node->then_body);
            body(i.orelse, node->else_body);
            out.push_back(std::move(node));
            break;
        }
        case StmtKind::Return: {
            auto& r = *s.as<syntax::Return>();
            Frame& f = frame();
            if (f.role == FunctionRole::Kernel)
                internal_error("lower", "kernel return reached statement lowering");
            bool has_value = r.value != nullptr;
            if (f.returns_seen && has_value != f.returns_value)
                fail(ErrorKind::Type, s.span, "device function mixes returns with and without a value");
            Value v;
            if (has_value) v = expr(*r.value);
            std::vector<Value> parts;
            if (has_value) {
                if (v.kind == Value::Kind::Tuple) parts = std::move(v.elts);
                else parts.push_back(std::move(v));
            }
            std::vector<std::vector<int>> shapes;
            for (auto& p : parts) {
                if (p.is_void) scalar(std::move(p), "a returned value");
                if (p.kind == Value::Kind::Array || p.kind == Value::Kind::Tuple || p.kind == Value::Kind::Object)
                    fail(ErrorKind::Unsupported, p.span, "a device function returns numbers, vectors and matrices only",
                         "returned value");
                shapes.push_back(p.kind == Value::Kind::Vector ? p.shape : std::vector<int>{});
            }
            if (!f.returns_seen) {
                f.returns_seen = true;
                f.returns_value = has_value;
                f.result_shapes = shapes;
                for (auto& sh : shapes) {
                    int n = 1;
                    for (int d : sh) n *= d;
                    for (int i = 0; i < n; ++i) f.result_vars.push_back(temp("ret"));
                }
            } else if (shapes != f.result_shapes) {
                fail(ErrorKind::Type, s.span, "device function returns " + std::to_string(parts.size()) +
                                                  " value(s) here of other shapes than elsewhere");
            }
            // Every returned component is evaluated before any result is set.
            std::vector<ExprPtr> comps;
            for (auto& p : parts) {
                if (p.kind == Value::Kind::Vector) {
                    for (auto& c : components(std::move(p), out)) comps.push_back(std::move(c));
                } else {
                    comps.push_back(std::move(p.expr));
                }
            }
            for (size_t i = 0; i < comps.size(); ++i) out.push_back(assign_stmt(f.result_vars[i], std::move(comps[i]), s.span));
            if (f.done_var >= 0) out.push_back(assign_stmt(f.done_var, int_const(1, s.span), s.span));
            break;
        }
        case StmtKind::Break: {
            if (frame().loop_depth == 0)
                fail(ErrorKind::Unsupported, s.span, "break out of the parallel loop", "break",
                     "parallel iterations have no order to stop; use continue to skip the rest of an iteration");
            auto b = std::make_unique<ir::Break>();
            b->span = s.span;
            out.push_back(std::move(b));
            break;
        }
        case StmtKind::Continue: {
            if (region_ != Region::Body && frame().loop_depth == 0)
                internal_error("lower", "continue outside any loop passed validation");
            if (frame().loop_depth == 0 && frame().role != FunctionRole::Kernel)
                fail(ErrorKind::Unsupported, s.span, "continue outside a loop of the device function", "continue");
            auto c = std::make_unique<ir::Continue>();
            c->span = s.span;
            out.push_back(std::move(c));
            break;
        }
        case StmtKind::Pass: break;
        case StmtKind::UnsupportedStmt:
            internal_error("lower", "unsupported statement passed validation");
    }
}

void Lowerer::discard(Value v, ir::Block& out, Span span) {
    if (v.kind == Value::Kind::Vector) {
        // A call returning a vector, run for its effects.
        for (auto& st : v.prelude) out.push_back(std::move(st));
    } else if (v.kind == Value::Kind::Scalar) {
        auto ev = std::make_unique<ir::Eval>();
        ev->value = std::move(v.expr);
        ev->span = span;
        out.push_back(std::move(ev));
    } else if (v.kind == Value::Kind::Tuple) {
        for (auto& e : v.elts) discard(std::move(e), out, span);
    }
}

void Lowerer::assign(const Expr& target, Value v, ir::Block& out, Span span) {
    if (v.is_void) scalar(std::move(v), "a value to assign");
    if (auto* n = target.as<Name>()) {
        if (v.kind == Value::Kind::Array && v.fresh_local_array) {
            auto it = frame().names.find(n->id);
            if (it != frame().names.end() && it->second.kind == Binding::Kind::Var && it->second.carried)
                fail_carried(n->id, it->second, "a local array", "declare the local array before the loop");
            if (it != frame().names.end())
                fail(ErrorKind::Unsupported, span, "'" + n->id + "' is already bound; a local array needs a new name",
                     "array alias");
            k_.params[v.array].name = n->id;
            frame().names[n->id] = Binding{Binding::Kind::Array, v.array};
            return;
        }
        if (v.kind == Value::Kind::Array)
            fail(ErrorKind::Unsupported, span, "arrays are storage and cannot be bound to another name",
                 "array alias", "index the array directly, or pass it to a device function");
        if (v.kind == Value::Kind::Object)
            fail(ErrorKind::Unsupported, span,
                 "a '" + v.object->class_name + "' instance cannot be bound to another name", "instance alias",
                 "use the parameter (or attribute) it came from, or pass it to a device function");
        if (v.kind == Value::Kind::Tuple)
            fail(ErrorKind::Unsupported, span, "a tuple cannot be bound to one name", "tuple value",
                 "unpack it: a, b = ...");
        if (v.kind == Value::Kind::Vector) {
            assign_vector(n->id, std::move(v), out, span);
            return;
        }
        if (auto b = frame().names.find(n->id); b != frame().names.end() && b->second.kind == Binding::Kind::Vector)
            fail(ErrorKind::Type, span, "'" + n->id + "' holds a " + shape_name(b->second.shape) + "; it cannot take a number",
                 "vector assignment");
        auto it = frame().names.find(n->id);
        if (it != frame().names.end() && it->second.kind == Binding::Kind::Array)
            fail(ErrorKind::Unsupported, span, "array parameter '" + n->id + "' cannot be reassigned",
                 "array reassignment");
        int var = local_var(n->id);
        out.push_back(assign_stmt(var, std::move(v.expr), span));
        return;
    }
    if (auto* s = target.as<Subscript>()) {
        if (auto* bn = s->value->as<Name>()) {
            auto it = frame().names.find(bn->id);
            if (it != frame().names.end() && it->second.kind == Binding::Kind::Vector) {
                assign_component(target, std::move(v), out, span);
                return;
            }
        }
        if (auto* element = s->value->as<Subscript>()) {
            if (int a = element_array(*element->value); a >= 0) {
                require_side_effects_allowed(span, "array store");
                store_element_component(a, *element, target, std::move(v), out, span);
                return;
            }
        }
        Value base = expr(*s->value);
        if (base.kind == Value::Kind::Object) {
            object_store(base, *s, std::move(v), out, span);
            return;
        }
        require_side_effects_allowed(span, "array store");
        if (base.kind != Value::Kind::Array)
            fail(ErrorKind::Type, s->value->span, "only arrays can be assigned by subscript", "subscript assignment");
        refuse_texture(base.array, span, "written");
        if (!k_.params[base.array].element_shape.empty()) {
            store_element(base.array, *s->index, std::move(v), out, span);
            return;
        }
        if (v.kind == Value::Kind::Vector)
            fail(ErrorKind::Type, span,
                 "a " + shape_name(v.shape) + " cannot be stored into array '" + k_.params[base.array].name +
                     "', whose elements are numbers",
                 "array store", "store one component at a time, or use an array of vector elements");
        if (v.kind != Value::Kind::Scalar)
            fail(ErrorKind::Type, span, "an array element is assigned one number", "array store");
        auto st = std::make_unique<ir::Store>();
        st->span = span;
        st->array = base.array;
        st->value = std::move(v.expr);
        st->indices = indices(base.array, *s->index, s->span);
        k_.params[base.array].used = true;
        out.push_back(std::move(st));
        return;
    }
    const std::vector<syntax::ExprPtr>* elts = nullptr;
    if (auto* t = target.as<syntax::Tuple>()) elts = &t->elts;
    if (auto* l = target.as<List>()) elts = &l->elts;
    if (elts && v.kind == Value::Kind::Vector) {
        // `u, v = p` takes a vector's components, `r0, r1 = m` a matrix's
        // rows, as iterating over them in Python (or NumPy) does.
        const int n = v.shape[0];
        if (n != static_cast<int>(elts->size()))
            fail(ErrorKind::Type, span,
                 "cannot unpack a " + shape_name(v.shape) + " into " + std::to_string(elts->size()) + " targets",
                 "unpacking", "a " + shape_name(v.shape) + " unpacks into " + std::to_string(n) + " targets");
        std::vector<int> shape = v.shape;
        auto comps = components(std::move(v), out);
        Value rows;
        rows.kind = Value::Kind::Tuple;
        rows.span = span;
        if (shape.size() == 1) {
            for (auto& x : comps) rows.elts.push_back(Value::scalar(std::move(x), span));
        } else {
            const int cols = shape[1];
            for (int r = 0; r < n; ++r) {
                std::vector<ir::ExprPtr> row;
                for (int k = 0; k < cols; ++k) row.push_back(std::move(comps[r * cols + k]));
                rows.elts.push_back(make_vector(std::move(row), {cols}, {}, span));
            }
        }
        v = std::move(rows);
    }
    if (elts) {
        auto counted = [](size_t n, const char* what) {
            std::string s = std::to_string(n);
            s.append(" ").append(what);
            if (n != 1) s.push_back('s');
            return s;
        };
        if (v.kind != Value::Kind::Tuple)
            fail(ErrorKind::Type, span, "cannot unpack a single value into " + counted(elts->size(), "target"));
        if (v.elts.size() != elts->size())
            fail(ErrorKind::Type, span, "cannot unpack " + counted(v.elts.size(), "value") + " into " +
                                            counted(elts->size(), "target"));
        // Evaluate the whole right side first, left to right, into
        // temporaries (vector components too), then assign from the left.
        std::vector<Value> values;
        for (auto& e : v.elts) values.push_back(held(std::move(e), out));
        for (size_t i = 0; i < elts->size(); ++i) assign(*(*elts)[i], std::move(values[i]), out, span);
        return;
    }
    if (auto* a = target.as<Attribute>()) {
        if (auto* bn = a->value->as<Name>()) {
            auto it = frame().names.find(bn->id);
            if (it != frame().names.end() && it->second.kind == Binding::Kind::Vector) {
                assign_component(target, std::move(v), out, span);
                return;
            }
        }
        if (auto* element = a->value->as<Subscript>()) {
            if (int arr = element_array(*element->value); arr >= 0) {
                require_side_effects_allowed(span, "array store");
                store_element_component(arr, *element, target, std::move(v), out, span);
                return;
            }
        }
        if (global_path(*a->value).empty() && expr(*a->value).kind == Value::Kind::Object)
            fail(ErrorKind::Unsupported, target.span, "assignment to attribute '" + a->attr + "' of an instance",
                 "attribute assignment",
                 "a device-class instance is read-only in kernels; store into one of its arrays instead");
        fail(ErrorKind::Unsupported, target.span, "attribute assignment", "attribute assignment");
    }
    fail(ErrorKind::Unsupported, target.span, "assignment to an expression", "assignment target");
}

namespace {
ir::BinOp binop(syntax::BinaryOp op) {
    switch (op) {
        case syntax::BinaryOp::Add: return ir::BinOp::Add;
        case syntax::BinaryOp::Sub: return ir::BinOp::Sub;
        case syntax::BinaryOp::Mul: return ir::BinOp::Mul;
        case syntax::BinaryOp::Div: return ir::BinOp::Div;
        case syntax::BinaryOp::FloorDiv: return ir::BinOp::FloorDiv;
        case syntax::BinaryOp::Mod: return ir::BinOp::Mod;
        case syntax::BinaryOp::Pow: return ir::BinOp::Pow;
        case syntax::BinaryOp::LShift: return ir::BinOp::Shl;
        case syntax::BinaryOp::RShift: return ir::BinOp::Shr;
        case syntax::BinaryOp::BitAnd: return ir::BinOp::BitAnd;
        case syntax::BinaryOp::BitOr: return ir::BinOp::BitOr;
        case syntax::BinaryOp::BitXor: return ir::BinOp::BitXor;
        case syntax::BinaryOp::MatMul: break;
    }
    return ir::BinOp::Add;
}
}  // namespace

ir::BinOp lower_binop(syntax::BinaryOp op) { return binop(op); }

void Lowerer::aug_assign(const AugAssign& s, ir::Block& out) {
    if (s.target->as<Name>() || s.target->as<Attribute>() ||
        (s.target->as<Subscript>() && looks_vector(*s.target->as<Subscript>()->value))) {
        // A local, a vector local, or one component of a vector local.
        Value old = expr(*s.target);
        Value rhs = expr(*s.value);
        if (old.kind == Value::Kind::Vector || rhs.kind == Value::Kind::Vector) {
            assign(*s.target, vector_binary(s.op, std::move(old), std::move(rhs), s.span), out, s.span);
            return;
        }
        if (old.kind != Value::Kind::Scalar)
            fail(ErrorKind::Type, s.span, "augmented assignment needs a number on the left");
        if (s.op == syntax::BinaryOp::MatMul)
            fail(ErrorKind::Unsupported, s.span, "'@=' on numbers", "@ operator", "@ multiplies vectors and matrices");
        auto b = std::make_unique<ir::Binary>();
        b->op = binop(s.op);
        b->span = s.span;
        b->lhs = std::move(old.expr);
        b->rhs = scalar(std::move(rhs));
        assign(*s.target, Value::scalar(std::move(b), s.span), out, s.span);
        return;
    }
    if (auto* n = s.target->as<Name>()) {
        Value old = name(*n);
        if (old.kind != Value::Kind::Scalar)
            fail(ErrorKind::Type, s.span, "augmented assignment needs a number on the left");
        auto b = std::make_unique<ir::Binary>();
        b->op = binop(s.op);
        b->span = s.span;
        b->lhs = std::move(old.expr);
        b->rhs = scalar(*s.value);
        assign(*s.target, Value::scalar(std::move(b), s.span), out, s.span);
        return;
    }
    auto* sub = s.target->as<Subscript>();
    if (!sub) fail(ErrorKind::Unsupported, s.target->span, "augmented assignment to this target", "augmented assignment");
    Value base = expr(*sub->value);
    if (base.kind == Value::Kind::Object) {
        object_aug_store(base, s, out);
        return;
    }
    require_side_effects_allowed(s.span, "array store");
    if (base.kind != Value::Kind::Array)
        fail(ErrorKind::Type, sub->value->span, "only arrays can be assigned by subscript");
    refuse_texture(base.array, s.span, "written");
    if (!k_.params[base.array].element_shape.empty()) {
        aug_assign_element(base.array, *sub, s, out);
        return;
    }
    // The index is evaluated once and the old value read before the right side.
    auto idx = indices(base.array, *sub->index, sub->span);
    for (auto& i : idx) i = reusable(std::move(i), out);
    auto load = std::make_unique<ir::Load>();
    load->array = base.array;
    load->span = sub->span;
    for (auto& i : idx) load->indices.push_back(ir::clone(*i));
    auto b = std::make_unique<ir::Binary>();
    b->op = binop(s.op);
    b->span = s.span;
    b->lhs = std::move(load);
    b->rhs = scalar(*s.value);
    auto st = std::make_unique<ir::Store>();
    st->span = s.span;
    st->array = base.array;
    st->indices = std::move(idx);
    st->value = std::move(b);
    k_.params[base.array].used = true;
    out.push_back(std::move(st));
}

void Lowerer::sequential_for(const syntax::For& s, ir::Block& out) {
    auto* target = s.target->as<Name>();
    if (!target) fail(ErrorKind::Unsupported, s.target->span, "a sequential loop variable must be a name", "loop target");
    auto* call = s.iter->as<syntax::Call>();
    Resolution callee;
    if (call) callee = resolve_callee(*call->func);
    if (!call || callee.kind != Resolution::Kind::Builtin || callee.builtin != "range")
        fail(ErrorKind::Unsupported, s.iter->span, "sequential loops iterate over range(...)", "loop iterable");
    size_t n = call->args.size();
    if (n < 1 || n > 3) fail(ErrorKind::Type, call->span, "range() takes 1 to 3 arguments");
    auto node = std::make_unique<ir::For>();
    node->span = s.span;
    // The bounds are evaluated once, left to right, before the loop.
    ExprPtr start = n == 1 ? adopting_const(0, call->span) : scalar(*call->args[0], "a range bound");
    ExprPtr end = scalar(*call->args[n == 1 ? 0 : 1], "a range bound");
    ExprPtr step = n == 3 ? scalar(*call->args[2], "a range step") : adopting_const(1, call->span);
    if (auto* c = step->as<ir::IntConst>(); c && c->bits == 0)
        fail(ErrorKind::Value, call->args[2]->span, "range() step is zero", "range step");
    node->start = reusable(std::move(start), out);
    node->end = reusable(std::move(end), out);
    node->step = reusable(std::move(step), out);

    Frame& f = frame();
    auto old = f.names.find(target->id);
    int v = k_.add_var(target->id, ir::VarRole::LoopVar);
    node->var = v;
    f.names[target->id] = Binding{Binding::Kind::Var, v};
    ++f.loop_depth;
    ++parallel_depth_;
    f.loop_assigned.emplace_back();
    collect_locals(s.body, f.loop_assigned.back());
    body(s.body, node->body);
    f.loop_assigned.pop_back();
    --parallel_depth_;
    --f.loop_depth;
    (void)old;
    // The loop variable ends with its loop.
    f.names[target->id] = Binding{Binding::Kind::EndedLoopVar, -1};
    out.push_back(std::move(node));
}

// A device function body: a return may end it early on some paths; the
// statements after such a statement run only while no return has happened.
// Returns inside loops were rejected by validation, so every return sits in
// straight-line code or branches.
void Lowerer::function_body(const Body& b, size_t from, ir::Block& out) {
    for (size_t i = from; i < b.size(); ++i) {
        const Stmt& s = *b[i];
        auto* e = s.as<ExprStmt>();
        if (e && e->value->as<StringLit>()) continue;
        auto* ifs = s.as<syntax::If>();
        if (ifs && (contains_return(ifs->body) || contains_return(ifs->orelse))) {
            auto node = std::make_unique<ir::If>();
            node->span = s.span;
            node->cond = condition(*ifs->cond);
            function_body(ifs->body, 0, node->then_body);
            function_body(ifs->orelse, 0, node->else_body);
            out.push_back(std::move(node));
            if (i + 1 == b.size()) return;
            auto guard = std::make_unique<ir::If>();
            guard->span = s.span;
            auto notdone = std::make_unique<ir::Unary>();
            notdone->op = ir::UnOp::Not;
            notdone->operand = var_ref(frame().done_var, s.span);
            notdone->span = s.span;
            guard->cond = std::move(notdone);
            function_body(b, i + 1, guard->then_body);
            out.push_back(std::move(guard));
            return;
        }
        stmt(s, out);
        if (s.as<syntax::Return>()) return;  // the rest is unreachable (and validated)
    }
}

}  // namespace tack::frontend

namespace tack::frontend {

std::unique_ptr<ir::Kernel> lower_kernel(const syntax::FunctionDef& fn, std::shared_ptr<Resolver> resolver,
                                         const std::vector<ParamShape>& params) {
    validate(fn, FunctionRole::Kernel);
    auto k = std::make_unique<ir::Kernel>();
    Lowerer l(*k, params);
    l.kernel(fn, std::move(resolver));
    return k;
}

}  // namespace tack::frontend
