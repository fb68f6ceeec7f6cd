#include "ir/verify.h"

#include "ir/traverse.h"

namespace tack::ir {

namespace {

class Verifier {
public:
    Verifier(const Kernel& k, Stage stage, const char* pass) : k_(k), stage_(stage), pass_(pass) {}

    void run() {
        for (auto& p : k_.params) (void)p;
        block(k_.prologue, 0);
        if (k_.dims.empty()) fail("kernel has no parallel dimension");
        for (auto& d : k_.dims) {
            var(d.var);
            expr(*d.start);
            expr(*d.end);
            if (d.step) expr(*d.step);
            if (typed()) {
                DType t = *k_.vars[d.var].type;
                same(*d.start, t, "parallel range start");
                same(*d.end, t, "parallel range end");
                if (d.step) same(*d.step, t, "parallel range step");
            }
        }
        in_parallel_ = true;  // `continue` ends a parallel iteration; `break` needs a sequential loop
        block(k_.body, 0);
        in_parallel_ = false;
        block(k_.epilogue, 0);
        if (k_.result) {
            expr(*k_.result);
            if (typed() && k_.result_type) same(*k_.result, *k_.result_type, "kernel result");
        }
    }

private:
    bool typed() const { return stage_ == Stage::Typed; }

    [[noreturn]] void fail(const std::string& what) {
        syntax::internal_error(pass_, "IR verification failed after " + std::string(pass_) + ": " + what + "\n" + print(k_));
    }

    void var(int v) {
        if (v < 0 || v >= static_cast<int>(k_.vars.size())) fail("reference to undefined local %" + std::to_string(v));
        if (typed() && !k_.vars[v].type) fail("local '" + k_.vars[v].name + "' has no type");
    }

    void array(int a, const char* what) {
        if (a < 0 || a >= static_cast<int>(k_.params.size()) || !k_.params[a].is_array())
            fail(std::string(what) + " of a parameter that is not an array");
    }

    // An access to one scalar of an array element.
    void access(int a, int component, const char* what) {
        array(a, what);
        if (component < 0 || component >= k_.params[a].components())
            fail(std::string(what) + " of component " + std::to_string(component) + " of array '" + k_.params[a].name +
                 "', whose elements have " + std::to_string(k_.params[a].components()) + " components");
    }

    void same(const Expr& e, DType t, const char* what) {
        if (e.dtype() != t)
            fail(std::string(what) + " has type " + std::string(name_of(e.dtype())) + ", expected " +
                 std::string(name_of(t)) + ": " + print(e, k_));
    }

    void block(const Block& b, int loops) {
        for (auto& s : b) stmt(*s, loops);
    }

    // A statement's own rules, then its children through the one child
    // list; a loop's body is one loop deeper.
    void stmt(const Stmt& s, int loops) {
        switch (s.kind) {
            case StmtKind::Assign: var(s.as<Assign>()->var); break;
            case StmtKind::Store: {
                auto& st = *s.as<Store>();
                access(st.array, st.component, "store");
                if (k_.params[st.array].kind == ParamKind::Texture) fail("store to a texture");
                break;
            }
            case StmtKind::For: var(s.as<For>()->var); break;
            case StmtKind::Break:
                if (loops == 0) fail("Break outside a loop");
                break;
            case StmtKind::Continue:
                if (loops == 0 && !in_parallel_) fail("Continue outside a loop");
                break;
            case StmtKind::Barrier:
                if (!in_parallel_) fail("Barrier outside the parallel loop");
                break;
            case StmtKind::Eval:
            case StmtKind::Print:
            case StmtKind::If:
            case StmtKind::While: break;
        }
        bool loop = s.kind == StmtKind::For || s.kind == StmtKind::While;
        for_each_child(
            s, [&](const ExprPtr& c) { expr(*c); }, [&](const Block& b) { block(b, loop ? loops + 1 : loops); });
        if (typed()) typed_stmt(s);
    }

    // The types a typed statement's children must have.
    void typed_stmt(const Stmt& s) {
        switch (s.kind) {
            case StmtKind::Assign: same(*s.as<Assign>()->value, *k_.vars[s.as<Assign>()->var].type, "assigned value"); break;
            case StmtKind::Store: {
                auto& st = *s.as<Store>();
                same(*st.value, k_.params[st.array].dtype, "stored value");
                for (auto& i : st.indices) integer_index(*i);
                break;
            }
            case StmtKind::For: {
                auto& f = *s.as<For>();
                DType t = *k_.vars[f.var].type;
                same(*f.start, t, "range start");
                same(*f.end, t, "range end");
                same(*f.step, t, "range step");
                break;
            }
            case StmtKind::Eval:
            case StmtKind::Print:
            case StmtKind::If:
            case StmtKind::While:
            case StmtKind::Break:
            case StmtKind::Continue:
            case StmtKind::Barrier: break;
        }
    }

    void integer_index(const Expr& e) {
        if (!is_int(e.dtype())) fail("non-integer index: " + print(e, k_));
    }

    // An expression's own rules, then its children through the one child
    // list. Loop control inside an inlined body (a StmtExpr) is checked by
    // the loops in that body.
    void expr(const Expr& e) {
        if (typed() && !e.type) fail(std::string("untyped ") + to_string(e.kind) + ": " + print(e, k_));
        switch (e.kind) {
            case ExprKind::VarRef: var(e.as<VarRef>()->var); break;
            case ExprKind::Load: access(e.as<Load>()->array, e.as<Load>()->component, "load"); break;
            case ExprKind::ArrayDim: array(e.as<ArrayDim>()->array, "extent"); break;
            case ExprKind::Atomic: {
                auto& a = *e.as<Atomic>();
                access(a.array, a.component, "atomic");
                if (k_.params[a.array].kind != ParamKind::Array) fail("atomic on an array that is not a parameter");
                break;
            }
            case ExprKind::IntConst:
            case ExprKind::FloatConst:
            case ExprKind::Unary:
            case ExprKind::Binary:
            case ExprKind::Compare:
            case ExprKind::Logical:
            case ExprKind::Select:
            case ExprKind::Cast:
            case ExprKind::Math:
            case ExprKind::ThreadId:
            case ExprKind::StmtExpr: break;
            case ExprKind::BlockReduce:
                if (!in_parallel_) fail("block reduction outside the parallel loop");
                break;
            case ExprKind::TextureSample: {
                auto& t = *e.as<TextureSample>();
                if (t.texture < 0 || t.texture >= static_cast<int>(k_.params.size()) ||
                    k_.params[t.texture].kind != ParamKind::Texture || !k_.params[t.texture].image)
                    fail("texture sample of a parameter that is not a hardware texture");
                if (t.coords.size() != 3) fail("texture sample without three coordinates");
                break;
            }
        }
        for_each_child(e, [&](const ExprPtr& c) { expr(*c); }, [&](const Block& b) { block(b, 0x1000); });
        if (typed()) typed_expr(e);
    }

    // The types a typed expression's children must have.
    void typed_expr(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Load:
                for (auto& i : e.as<Load>()->indices) integer_index(*i);
                break;
            case ExprKind::Unary:
                if (e.as<Unary>()->op != UnOp::Not) same(*e.as<Unary>()->operand, e.dtype(), "operand");
                break;
            case ExprKind::Binary: {
                auto& b = *e.as<Binary>();
                same(*b.lhs, e.dtype(), "left operand");
                if (!(b.op == BinOp::Pow && is_int(e.dtype()))) same(*b.rhs, e.dtype(), "right operand");
                break;
            }
            case ExprKind::Compare: same(*e.as<Compare>()->rhs, e.as<Compare>()->lhs->dtype(), "compared operand"); break;
            case ExprKind::Select:
                same(*e.as<Select>()->if_true, e.dtype(), "selected value");
                same(*e.as<Select>()->if_false, e.dtype(), "selected value");
                break;
            case ExprKind::Math:
                for (auto& a : e.as<Math>()->args) same(*a, e.dtype(), "math argument");
                break;
            case ExprKind::Atomic: {
                auto& a = *e.as<Atomic>();
                for (auto& i : a.indices) integer_index(*i);
                same(*a.value, k_.params[a.array].dtype, "atomic operand");
                if ((a.op == AtomicOp::Cas) != (a.expected != nullptr)) fail("a compare-and-swap needs exactly one expected value");
                if (a.expected) same(*a.expected, k_.params[a.array].dtype, "atomic expected value");
                same(e, k_.params[a.array].dtype, "atomic result");
                break;
            }
            case ExprKind::IntConst:
            case ExprKind::FloatConst:
            case ExprKind::VarRef:
            case ExprKind::ArrayDim:
            case ExprKind::Logical:
            case ExprKind::Cast:
            case ExprKind::StmtExpr: break;
            case ExprKind::ThreadId: same(e, DType::I32, "thread index"); break;
            case ExprKind::BlockReduce:
                same(*e.as<BlockReduce>()->value, DType::F32, "block reduction operand");
                same(e, DType::F32, "block reduction result");
                break;
            case ExprKind::TextureSample:
                for (auto& c : e.as<TextureSample>()->coords) same(*c, DType::F32, "texture coordinate");
                same(e, DType::F32, "texture sample");
                break;
        }
    }

    const Kernel& k_;
    Stage stage_;
    const char* pass_;
    bool in_parallel_ = false;
};

}  // namespace

void verify(const Kernel& k, Stage stage, const char* after_pass) { Verifier(k, stage, after_pass).run(); }

}  // namespace tack::ir
