// The one list of an IR node's children: visit reaches every node kind, in
// evaluation order, and the verifier finds what sits deepest.
#include <gtest/gtest.h>

#include <set>

#include "ir/traverse.h"
#include "ir/verify.h"

namespace tack {
namespace {

using namespace ir;

ExprPtr num(uint64_t v) {
    auto c = std::make_unique<IntConst>();
    c->bits = v;
    return c;
}

template <typename T>
std::unique_ptr<T> node() {
    return std::make_unique<T>();
}

// One kernel holding every expression and statement kind; the integer
// literals are numbered so their visiting order can be read back.
std::unique_ptr<Kernel> every_node_kernel() {
    auto k = std::make_unique<Kernel>();
    k->name = "k";
    Param a;
    a.name = "a";
    a.kind = ParamKind::Array;
    a.ndim = 1;
    k->params.push_back(a);
    Param t;
    t.name = "t";
    t.kind = ParamKind::Texture;
    t.ndim = 3;
    t.image = true;
    k->params.push_back(t);
    ParallelDim d;
    d.var = k->add_var("i", VarRole::LoopVar);
    d.start = num(0);
    auto len = node<ArrayDim>();
    len->array = 0;
    d.end = std::move(len);
    k->dims.push_back(std::move(d));
    int j = k->add_var("j", VarRole::Local);

    // j = (a[1]; -2 + (3 < i))
    auto load = node<Load>();
    load->array = 0;
    load->indices.push_back(num(1));
    auto eval = node<Eval>();
    eval->value = std::move(load);
    auto neg = node<Unary>();
    neg->op = UnOp::Neg;
    neg->operand = num(2);
    auto lt = node<Compare>();
    lt->op = CmpOp::Lt;
    lt->lhs = num(3);
    auto ref = node<VarRef>();
    ref->var = 0;
    lt->rhs = std::move(ref);
    auto add = node<Binary>();
    add->op = BinOp::Add;
    add->lhs = std::move(neg);
    add->rhs = std::move(lt);
    auto se = node<StmtExpr>();
    se->stmts.push_back(std::move(eval));
    se->value = std::move(add);
    auto assign = node<Assign>();
    assign->var = j;
    assign->value = std::move(se);
    k->body.push_back(std::move(assign));

    // a[i32(4)] = 5 and (6 if 7 else sqrt(0.5)): the value before the index
    auto math = node<Math>();
    math->fn = MathFn::Sqrt;
    math->args.push_back(node<FloatConst>());
    auto sel = node<Select>();
    sel->if_true = num(6);
    sel->cond = num(7);
    sel->if_false = std::move(math);
    auto logical = node<Logical>();
    logical->op = LogicOp::And;
    logical->lhs = num(5);
    logical->rhs = std::move(sel);
    auto cast = node<Cast>();
    cast->operand = num(4);
    auto store = node<Store>();
    store->array = 0;
    store->indices.push_back(std::move(cast));
    store->value = std::move(logical);
    k->body.push_back(std::move(store));

    // print(atomic_add(a, 8, 9))
    auto atomic = node<Atomic>();
    atomic->array = 0;
    atomic->indices.push_back(num(8));
    atomic->value = num(9);
    auto print_stmt = node<Print>();
    print_stmt->args.push_back(std::move(atomic));
    print_stmt->groups.push_back(0);
    k->body.push_back(std::move(print_stmt));

    // if 10: for j in range(11, len(a), 12): while 13: break; continue
    auto loop = node<While>();
    loop->cond = num(13);
    loop->body.push_back(node<Break>());
    loop->body.push_back(node<Continue>());
    auto for_stmt = node<For>();
    for_stmt->var = j;
    for_stmt->start = num(11);
    auto end = node<ArrayDim>();
    end->array = 0;
    for_stmt->end = std::move(end);
    for_stmt->step = num(12);
    for_stmt->body.push_back(std::move(loop));
    auto branch = node<If>();
    branch->cond = num(10);
    branch->then_body.push_back(std::move(for_stmt));
    k->body.push_back(std::move(branch));

    // barrier(); block_sum(14) + thread_id()
    k->body.push_back(node<Barrier>());
    auto reduce = node<BlockReduce>();
    reduce->value = num(14);
    auto sum = node<Binary>();
    sum->op = BinOp::Add;
    sum->lhs = std::move(reduce);
    sum->rhs = node<ThreadId>();
    auto last = node<Eval>();
    last->value = std::move(sum);
    k->body.push_back(std::move(last));

    // t.sample(15, 16, 17)
    auto sample = node<TextureSample>();
    sample->texture = 1;
    for (uint64_t c : {15, 16, 17}) sample->coords.push_back(num(c));
    auto sampled = node<Eval>();
    sampled->value = std::move(sample);
    k->body.push_back(std::move(sampled));
    return k;
}

TEST(Traverse, VisitReachesEveryNodeKindInEvaluationOrder) {
    auto k = every_node_kernel();
    std::set<ExprKind> exprs;
    std::set<StmtKind> stmts;
    std::vector<uint64_t> literals;
    visit(k->body, [&](Expr& e) {
        exprs.insert(e.kind);
        if (auto* c = e.as<IntConst>()) literals.push_back(c->bits);
    }, [&](Stmt& s) { stmts.insert(s.kind); });
    std::set<ExprKind> all_exprs{
#define X(name) ExprKind::name,
        TACK_IR_EXPRS(X)
#undef X
    };
    std::set<StmtKind> all_stmts{
#define X(name) StmtKind::name,
        TACK_IR_STMTS(X)
#undef X
    };
    EXPECT_EQ(exprs, all_exprs);
    EXPECT_EQ(stmts, all_stmts);
    EXPECT_EQ(literals, (std::vector<uint64_t>{1, 2, 3, 5, 7, 6, 4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}));
}

TEST(Traverse, CloneKeepsEveryNode) {
    auto k = every_node_kernel();
    auto copy = clone(*k);
    EXPECT_EQ(print(*copy), print(*k));
}

TEST(Traverse, TheVerifierLooksIntoEveryChild) {
    auto k = every_node_kernel();
    EXPECT_NO_THROW(verify(*k, Stage::Lowered, "test_pass"));
    // An undefined local as deep as it goes: inside sqrt, inside a select,
    // inside `and`, as the stored value.
    auto& store = *k->body[1]->as<Store>();
    auto& sel = *store.value->as<Logical>()->rhs->as<Select>();
    auto bad = std::make_unique<VarRef>();
    bad->var = 99;
    sel.if_false->as<Math>()->args[0] = std::move(bad);
    try {
        verify(*k, Stage::Lowered, "test_pass");
        FAIL() << "an undefined local deep in a store was not found";
    } catch (const syntax::CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("undefined local %99"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace tack
