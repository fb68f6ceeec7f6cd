#include "ir/ir.h"

#include <cstdio>
#include <sstream>
#include <utility>

#include "ir/traverse.h"

namespace tack::ir {

const char* to_string(UnOp op) {
    switch (op) {
        case UnOp::Neg: return "-";
        case UnOp::Not: return "not ";
        case UnOp::Invert: return "~";
    }
    return "?";
}

const char* to_string(BinOp op) {
    switch (op) {
        case BinOp::Add: return "+";
        case BinOp::Sub: return "-";
        case BinOp::Mul: return "*";
        case BinOp::Div: return "/";
        case BinOp::FloorDiv: return "//";
        case BinOp::Mod: return "%";
        case BinOp::Pow: return "**";
        case BinOp::Shl: return "<<";
        case BinOp::Shr: return ">>";
        case BinOp::BitAnd: return "&";
        case BinOp::BitOr: return "|";
        case BinOp::BitXor: return "^";
        case BinOp::Min: return "min";
        case BinOp::Max: return "max";
    }
    return "?";
}

const char* to_string(CmpOp op) {
    switch (op) {
        case CmpOp::Lt: return "<";
        case CmpOp::Le: return "<=";
        case CmpOp::Gt: return ">";
        case CmpOp::Ge: return ">=";
        case CmpOp::Eq: return "==";
        case CmpOp::Ne: return "!=";
    }
    return "?";
}

const char* to_string(LogicOp op) { return op == LogicOp::And ? "and" : "or"; }

const char* to_string(BlockOp op) {
    switch (op) {
        case BlockOp::Sum: return "block_sum";
        case BlockOp::Min: return "block_min";
        case BlockOp::Max: return "block_max";
    }
    return "?";
}

const char* to_string(AtomicOp op) {
    switch (op) {
        case AtomicOp::Add: return "atomic_add";
        case AtomicOp::Sub: return "atomic_sub";
        case AtomicOp::Min: return "atomic_min";
        case AtomicOp::Max: return "atomic_max";
        case AtomicOp::Exch: return "atomic_exch";
        case AtomicOp::Cas: return "atomic_cas";
    }
    return "?";
}

const char* to_string(MathFn fn) {
    switch (fn) {
#define X(E, name, n, c) case MathFn::E: return #name;
        TACK_MATH_FUNCS(X)
#undef X
    }
    return "?";
}

int arity(MathFn fn) {
    switch (fn) {
#define X(E, name, n, c) case MathFn::E: return n;
        TACK_MATH_FUNCS(X)
#undef X
    }
    return 1;
}

const char* c_name(MathFn fn) {
    switch (fn) {
#define X(E, name, n, c) case MathFn::E: return #c;
        TACK_MATH_FUNCS(X)
#undef X
    }
    return "?";
}

const char* to_string(ExprKind k) {
    switch (k) {
#define X(name) case ExprKind::name: return #name;
        TACK_IR_EXPRS(X)
#undef X
    }
    return "?";
}

const char* to_string(StmtKind k) {
    switch (k) {
#define X(name) case StmtKind::name: return #name;
        TACK_IR_STMTS(X)
#undef X
    }
    return "?";
}

DType Expr::dtype() const {
    if (!type) syntax::internal_error("ir", std::string("expression without a type: ") + to_string(kind));
    return *type;
}

int Kernel::add_var(std::string var_name, VarRole role) {
    vars.push_back(Var{std::move(var_name), role, std::nullopt, -1});
    return static_cast<int>(vars.size()) - 1;
}

syntax::Diagnostic Kernel::diagnostic(syntax::ErrorKind kind, Span span, std::string message, std::string construct,
                                      std::string hint) const {
    syntax::Diagnostic d;
    d.kind = kind;
    d.message = std::move(message);
    d.construct = std::move(construct);
    d.hint = std::move(hint);
    d.span = span;
    if (span.origin >= 0 && span.origin < static_cast<int>(origins.size())) {
        auto& o = origins[span.origin];
        d.function = o.function;
        d.function_kind = o.is_kernel ? "kernel" : "device function";
        d.source = o.source;
    } else {
        d.function = name;
        d.source = source;
    }
    return d;
}

void Kernel::fail(syntax::ErrorKind kind, Span span, std::string message, std::string construct,
                  std::string hint) const {
    throw syntax::CompileError(diagnostic(kind, span, std::move(message), std::move(construct), std::move(hint)));
}

// ---------------------------------------------------------------------- visit

void visit(Expr& e, const std::function<void(Expr&)>& on_expr, const std::function<void(Stmt&)>& on_stmt) {
    on_expr(e);
    for_each_child(
        e, [&](ExprPtr& c) { visit(*c, on_expr, on_stmt); }, [&](Block& b) { visit(b, on_expr, on_stmt); });
}

void visit(Block& b, const std::function<void(Expr&)>& on_expr, const std::function<void(Stmt&)>& on_stmt) {
    for (auto& sp : b) {
        on_stmt(*sp);
        for_each_child(
            *sp, [&](ExprPtr& c) { visit(*c, on_expr, on_stmt); }, [&](Block& inner) { visit(inner, on_expr, on_stmt); });
    }
}

void visit(const Expr& e, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt) {
    on_expr(e);
    for_each_child(
        e, [&](const ExprPtr& c) { visit(std::as_const(*c), on_expr, on_stmt); },
        [&](const Block& b) { visit(b, on_expr, on_stmt); });
}

void visit(const Stmt& s, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt) {
    on_stmt(s);
    for_each_child(
        s, [&](const ExprPtr& c) { visit(std::as_const(*c), on_expr, on_stmt); },
        [&](const Block& b) { visit(b, on_expr, on_stmt); });
}

void visit(const Block& b, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt) {
    for (const StmtPtr& s : b) visit(*s, on_expr, on_stmt);
}

void visit(const Kernel& k, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt) {
    visit(k.prologue, on_expr, on_stmt);
    for (const ParallelDim& d : k.dims) {
        visit(std::as_const(*d.start), on_expr, on_stmt);
        visit(std::as_const(*d.end), on_expr, on_stmt);
        if (d.step) visit(std::as_const(*d.step), on_expr, on_stmt);
    }
    visit(k.body, on_expr, on_stmt);
    visit(k.epilogue, on_expr, on_stmt);
    if (k.result) visit(std::as_const(*k.result), on_expr, on_stmt);
}

// ---------------------------------------------------------------------- clone

namespace {

template <typename T>
std::unique_ptr<T> copy_header(const T& from) {
    auto n = std::make_unique<T>();
    n->span = from.span;
    if constexpr (std::is_base_of_v<Expr, T>) {
        n->type = from.type;
        n->weak = from.weak;
    }
    return n;
}

ExprPtr clone_opt(const ExprPtr& e) { return e ? clone(*e) : nullptr; }

std::vector<ExprPtr> clone_all(const std::vector<ExprPtr>& v) {
    std::vector<ExprPtr> out;
    out.reserve(v.size());
    for (auto& e : v) out.push_back(clone(*e));
    return out;
}

}  // namespace

ExprPtr clone(const Expr& e) {
    switch (e.kind) {
        case ExprKind::IntConst: {
            auto& s = *e.as<IntConst>(); auto n = copy_header(s);
            n->bits = s.bits; n->negative = s.negative; n->adopts = s.adopts; return n;
        }
        case ExprKind::FloatConst: {
            auto& s = *e.as<FloatConst>(); auto n = copy_header(s); n->value = s.value; return n;
        }
        case ExprKind::VarRef: {
            auto& s = *e.as<VarRef>(); auto n = copy_header(s); n->var = s.var; return n;
        }
        case ExprKind::Load: {
            auto& s = *e.as<Load>(); auto n = copy_header(s);
            n->array = s.array; n->indices = clone_all(s.indices); n->component = s.component; return n;
        }
        case ExprKind::ArrayDim: {
            auto& s = *e.as<ArrayDim>(); auto n = copy_header(s);
            n->array = s.array; n->dim = s.dim; return n;
        }
        case ExprKind::Unary: {
            auto& s = *e.as<Unary>(); auto n = copy_header(s);
            n->op = s.op; n->operand = clone(*s.operand); return n;
        }
        case ExprKind::Binary: {
            auto& s = *e.as<Binary>(); auto n = copy_header(s);
            n->op = s.op; n->lhs = clone(*s.lhs); n->rhs = clone(*s.rhs); return n;
        }
        case ExprKind::Compare: {
            auto& s = *e.as<Compare>(); auto n = copy_header(s);
            n->op = s.op; n->lhs = clone(*s.lhs); n->rhs = clone(*s.rhs); return n;
        }
        case ExprKind::Logical: {
            auto& s = *e.as<Logical>(); auto n = copy_header(s);
            n->op = s.op; n->lhs = clone(*s.lhs); n->rhs = clone(*s.rhs); return n;
        }
        case ExprKind::Select: {
            auto& s = *e.as<Select>(); auto n = copy_header(s);
            n->cond = clone(*s.cond); n->if_true = clone(*s.if_true); n->if_false = clone(*s.if_false);
            n->joins_all = s.joins_all;
            return n;
        }
        case ExprKind::Cast: {
            auto& s = *e.as<Cast>(); auto n = copy_header(s);
            n->to = s.to; n->operand = clone(*s.operand); return n;
        }
        case ExprKind::Math: {
            auto& s = *e.as<Math>(); auto n = copy_header(s);
            n->fn = s.fn; n->args = clone_all(s.args); return n;
        }
        case ExprKind::Atomic: {
            auto& s = *e.as<Atomic>(); auto n = copy_header(s);
            n->op = s.op; n->array = s.array; n->indices = clone_all(s.indices); n->component = s.component;
            if (s.expected) n->expected = clone(*s.expected);
            n->value = clone(*s.value);
            return n;
        }
        case ExprKind::ThreadId: return copy_header(*e.as<ThreadId>());
        case ExprKind::BlockReduce: {
            auto& s = *e.as<BlockReduce>(); auto n = copy_header(s);
            n->op = s.op; n->value = clone(*s.value); return n;
        }
        case ExprKind::TextureSample: {
            auto& s = *e.as<TextureSample>(); auto n = copy_header(s);
            n->texture = s.texture; n->coords = clone_all(s.coords); return n;
        }
        case ExprKind::StmtExpr: {
            auto& s = *e.as<StmtExpr>(); auto n = copy_header(s);
            n->stmts = clone(s.stmts); n->value = clone(*s.value); return n;
        }
    }
    syntax::internal_error("clone", "unknown expression kind");
}

StmtPtr clone(const Stmt& st) {
    switch (st.kind) {
        case StmtKind::Assign: {
            auto& s = *st.as<Assign>(); auto n = copy_header(s);
            n->var = s.var; n->value = clone(*s.value); return n;
        }
        case StmtKind::Store: {
            auto& s = *st.as<Store>(); auto n = copy_header(s);
            n->array = s.array; n->indices = clone_all(s.indices); n->component = s.component;
            n->value = clone(*s.value);
            return n;
        }
        case StmtKind::Eval: {
            auto& s = *st.as<Eval>(); auto n = copy_header(s); n->value = clone(*s.value); return n;
        }
        case StmtKind::If: {
            auto& s = *st.as<If>(); auto n = copy_header(s);
            n->cond = clone(*s.cond); n->then_body = clone(s.then_body); n->else_body = clone(s.else_body);
            return n;
        }
        case StmtKind::For: {
            auto& s = *st.as<For>(); auto n = copy_header(s);
            n->var = s.var; n->start = clone(*s.start); n->end = clone(*s.end); n->step = clone(*s.step);
            n->body = clone(s.body); n->over_elements = s.over_elements; n->rolled = s.rolled;
            return n;
        }
        case StmtKind::While: {
            auto& s = *st.as<While>(); auto n = copy_header(s);
            n->cond = clone(*s.cond); n->body = clone(s.body); return n;
        }
        case StmtKind::Print: {
            auto& s = *st.as<Print>(); auto n = copy_header(s); n->args = clone_all(s.args); n->groups = s.groups; return n;
        }
        case StmtKind::Break: return copy_header(*st.as<Break>());
        case StmtKind::Continue: return copy_header(*st.as<Continue>());
        case StmtKind::Barrier: return copy_header(*st.as<Barrier>());
    }
    syntax::internal_error("clone", "unknown statement kind");
}

Block clone(const Block& b) {
    Block out;
    out.reserve(b.size());
    for (auto& s : b) out.push_back(clone(*s));
    return out;
}

namespace {

// The bytes of `k`'s local arrays that are the workgroup's (`shared`) or a
// work item's own.
int64_t local_array_bytes(const Kernel& k, bool shared) {
    int64_t total = 0;
    for (const Param& p : k.params) {
        if (p.kind != ParamKind::LocalArray || p.shared != shared) continue;
        int64_t n = size_of(p.dtype);
        for (int64_t e : p.local_shape) n *= e;
        total += n;
    }
    return total;
}

}  // namespace

int64_t private_scratch_bytes(const Kernel& k) { return local_array_bytes(k, false); }

int64_t shared_scratch_bytes(const Kernel& k) { return local_array_bytes(k, true); }

std::unique_ptr<Kernel> clone(const Kernel& k) {
    auto n = std::make_unique<Kernel>();
    n->name = k.name;
    n->origins = k.origins;
    n->params = k.params;
    n->vars = k.vars;
    n->prologue = clone(k.prologue);
    for (auto& d : k.dims) {
        n->dims.push_back(ParallelDim{d.var, clone_opt(d.start), clone_opt(d.end), clone_opt(d.step), d.span});
    }
    n->body = clone(k.body);
    n->loop_span = k.loop_span;
    n->epilogue = clone(k.epilogue);
    n->result = clone_opt(k.result);
    n->result_type = k.result_type;
    n->source = k.source;
    n->typed = k.typed;
    n->barriers_out_of_branches = k.barriers_out_of_branches;
    return n;
}

// ---------------------------------------------------------------------- print

namespace {

class Printer {
public:
    explicit Printer(const Kernel& k) : k_(k) {}

    std::string var(int v) const {
        if (v < 0 || v >= static_cast<int>(k_.vars.size())) return "%bad" + std::to_string(v);
        return "%" + std::to_string(v) + ":" + k_.vars[v].name;
    }

    // a[i, j], and a[i, j]{c} for component c of a vector or matrix element.
    std::string element(int array, const std::vector<ExprPtr>& indices, int component) const {
        std::string t = k_.params[array].name + "[";
        for (size_t i = 0; i < indices.size(); ++i) t += (i ? ", " : "") + expr(*indices[i]);
        t += "]";
        if (!k_.params[array].element_shape.empty()) t += "{" + std::to_string(component) + "}";
        return t;
    }

    std::string type_suffix(const Expr& e) const {
        if (!e.type) return "";
        return std::string(":") + std::string(name_of(*e.type)) + (e.weak ? "~" : "");
    }

    std::string expr(const Expr& e) const {
        std::ostringstream o;
        switch (e.kind) {
            case ExprKind::IntConst: {
                auto& s = *e.as<IntConst>();
                if (s.negative) o << static_cast<int64_t>(s.bits); else o << s.bits;
                break;
            }
            case ExprKind::FloatConst: {
                char buf[40];
                std::snprintf(buf, sizeof buf, "%.17g", e.as<FloatConst>()->value);
                o << buf;
                break;
            }
            case ExprKind::VarRef: o << var(e.as<VarRef>()->var); break;
            case ExprKind::Load: {
                auto& s = *e.as<Load>();
                o << element(s.array, s.indices, s.component);
                break;
            }
            case ExprKind::ArrayDim: {
                auto& s = *e.as<ArrayDim>();
                o << k_.params[s.array].name << ".shape[" << s.dim << "]";
                break;
            }
            case ExprKind::Unary: {
                auto& s = *e.as<Unary>();
                o << "(" << to_string(s.op) << expr(*s.operand) << ")";
                break;
            }
            case ExprKind::Binary: {
                auto& s = *e.as<Binary>();
                if (s.op == BinOp::Min || s.op == BinOp::Max)
                    o << to_string(s.op) << "(" << expr(*s.lhs) << ", " << expr(*s.rhs) << ")";
                else
                    o << "(" << expr(*s.lhs) << " " << to_string(s.op) << " " << expr(*s.rhs) << ")";
                break;
            }
            case ExprKind::Compare: {
                auto& s = *e.as<Compare>();
                o << "(" << expr(*s.lhs) << " " << to_string(s.op) << " " << expr(*s.rhs) << ")";
                break;
            }
            case ExprKind::Logical: {
                auto& s = *e.as<Logical>();
                o << "(" << expr(*s.lhs) << " " << to_string(s.op) << " " << expr(*s.rhs) << ")";
                break;
            }
            case ExprKind::Select: {
                auto& s = *e.as<Select>();
                o << "(" << expr(*s.if_true) << " if " << expr(*s.cond) << " else " << expr(*s.if_false) << ")";
                break;
            }
            case ExprKind::Cast: {
                auto& s = *e.as<Cast>();
                o << name_of(s.to) << "(" << expr(*s.operand) << ")";
                return o.str();  // the cast names its type
            }
            case ExprKind::Math: {
                auto& s = *e.as<Math>();
                o << to_string(s.fn) << "(";
                for (size_t i = 0; i < s.args.size(); ++i) o << (i ? ", " : "") << expr(*s.args[i]);
                o << ")";
                break;
            }
            case ExprKind::Atomic: {
                auto& s = *e.as<Atomic>();
                o << to_string(s.op) << "(" << element(s.array, s.indices, s.component) << ", ";
                if (s.expected) o << expr(*s.expected) << ", ";
                o << expr(*s.value) << ")";
                break;
            }
            case ExprKind::ThreadId: o << "thread_id()"; break;
            case ExprKind::BlockReduce: {
                auto& s = *e.as<BlockReduce>();
                o << to_string(s.op) << "(" << expr(*s.value) << ")";
                break;
            }
            case ExprKind::TextureSample: {
                auto& s = *e.as<TextureSample>();
                o << k_.params[s.texture].name << ".sample(";
                for (size_t i = 0; i < s.coords.size(); ++i) o << (i ? ", " : "") << expr(*s.coords[i]);
                o << ")";
                break;
            }
            case ExprKind::StmtExpr: {
                auto& s = *e.as<StmtExpr>();
                std::ostringstream inner;
                Printer p(k_);
                for (auto& st : s.stmts) p.stmt(inner, *st, 0);
                std::string body = inner.str();
                for (auto& c : body) if (c == '\n') c = ';';
                o << "{" << body << " => " << expr(*s.value) << "}";
                break;
            }
        }
        o << type_suffix(e);
        return o.str();
    }

    void block(std::ostringstream& o, const Block& b, int depth) const {
        if (b.empty()) { indent(o, depth); o << "pass\n"; return; }
        for (auto& s : b) stmt(o, *s, depth);
    }

    void stmt(std::ostringstream& o, const Stmt& st, int depth) const {
        indent(o, depth);
        switch (st.kind) {
            case StmtKind::Assign: {
                auto& s = *st.as<Assign>();
                o << var(s.var) << " = " << expr(*s.value) << "\n";
                break;
            }
            case StmtKind::Store: {
                auto& s = *st.as<Store>();
                o << element(s.array, s.indices, s.component) << " = " << expr(*s.value) << "\n";
                break;
            }
            case StmtKind::Eval: o << "eval " << expr(*st.as<Eval>()->value) << "\n"; break;
            case StmtKind::Print: {
                auto& s = *st.as<Print>();
                o << "print(";
                for (size_t i = 0; i < s.args.size(); ++i) o << (i ? ", " : "") << expr(*s.args[i]);
                o << ")\n";
                break;
            }
            case StmtKind::If: {
                auto& s = *st.as<If>();
                o << "if " << expr(*s.cond) << ":\n";
                block(o, s.then_body, depth + 1);
                if (!s.else_body.empty()) {
                    indent(o, depth);
                    o << "else:\n";
                    block(o, s.else_body, depth + 1);
                }
                break;
            }
            case StmtKind::For: {
                auto& s = *st.as<For>();
                o << "for " << var(s.var) << " in range(" << expr(*s.start) << ", " << expr(*s.end) << ", "
                  << expr(*s.step) << "):" << (s.over_elements ? "  # over elements" : "")
                  << (s.rolled ? "  # rolled" : "") << "\n";
                block(o, s.body, depth + 1);
                break;
            }
            case StmtKind::While: {
                auto& s = *st.as<While>();
                o << "while " << expr(*s.cond) << ":\n";
                block(o, s.body, depth + 1);
                break;
            }
            case StmtKind::Break: o << "break\n"; break;
            case StmtKind::Continue: o << "continue\n"; break;
            case StmtKind::Barrier: o << "barrier()\n"; break;
        }
    }

    std::string kernel() const {
        std::ostringstream o;
        o << "kernel " << k_.name << "(";
        bool first = true;
        for (size_t i = 0; i < k_.params.size(); ++i) {
            auto& p = k_.params[i];
            if (p.kind == ParamKind::LocalArray) continue;
            o << (first ? "" : ", ") << p.name;
            first = false;
            if (p.kind == ParamKind::Texture) {
                o << (p.image ? ": texture3d[f32, image]" : ": texture3d[f32]");
            } else if (p.kind == ParamKind::Array) {
                o << ": array[";
                if (p.element_shape.size() == 1) o << "vec" << p.element_shape[0] << " of ";
                if (p.element_shape.size() == 2) o << "mat" << p.element_shape[0] << "x" << p.element_shape[1] << " of ";
                o << (k_.typed ? name_of(p.dtype) : "?") << ", " << p.ndim << (p.contiguous ? "" : ", strided")
                  << (!p.contiguous && p.unit_inner_stride ? ", unit inner stride" : "") << (p.soa ? ", soa" : "") << "]";
            } else if (p.kind == ParamKind::Object) {
                o << ": object " << p.object_class;
            } else {
                o << ": " << (k_.typed ? name_of(p.dtype) : "?");
            }
        }
        o << "):\n";
        for (auto& p : k_.params) {
            if (p.kind != ParamKind::LocalArray) continue;
            indent(o, 1);
            o << (p.shared ? "shared " : "local ") << p.name << ": array[" << name_of(p.dtype) << ", (";
            for (size_t d = 0; d < p.local_shape.size(); ++d) o << (d ? ", " : "") << p.local_shape[d];
            o << ")]\n";
        }
        block(o, k_.prologue, 1);
        indent(o, 1);
        o << "parallel for ";
        for (size_t i = 0; i < k_.dims.size(); ++i) {
            auto& d = k_.dims[i];
            o << (i ? ", " : "") << var(d.var) << " in range(" << expr(*d.start) << ", " << expr(*d.end);
            if (d.step) o << ", " << expr(*d.step);
            o << ")";
        }
        o << ":\n";
        block(o, k_.body, 2);
        if (!k_.epilogue.empty() || k_.result) {
            for (auto& s : k_.epilogue) stmt(o, *s, 1);
            if (k_.result) {
                indent(o, 1);
                o << "return " << expr(*k_.result) << "\n";
            }
        }
        return o.str();
    }

private:
    static void indent(std::ostringstream& o, int depth) {
        for (int i = 0; i < depth; ++i) o << "    ";
    }
    const Kernel& k_;
};

}  // namespace

std::string print(const Kernel& k) { return Printer(k).kernel(); }
std::string print(const Expr& e, const Kernel& k) { return Printer(k).expr(e); }

std::vector<uint8_t> print_kinds(const Print& p) {
    std::vector<uint8_t> kinds(p.args.size(), 0);
    size_t at = 0;
    for (int g : p.groups) {
        if (g > 0) {
            kinds[at] |= 0x40;
            kinds[at + static_cast<size_t>(g) - 1] |= 0x80;
        }
        at += static_cast<size_t>(g > 0 ? g : 1);
    }
    for (size_t i = 0; i < p.args.size(); ++i) kinds[i] |= static_cast<uint8_t>(p.args[i]->dtype());
    return kinds;
}

}  // namespace tack::ir
