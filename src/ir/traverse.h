// The children of every IR node, listed once, in evaluation order.
//
// visit, the verifier and the type walker reach children only through
// for_each_child, so none of them can skip a new node's children: the
// switches below have no default, and tack_core builds with -Werror=switch,
// so a node kind missing here does not compile.
#pragma once

#include "ir/ir.h"

namespace tack::ir {

// Calls `on_expr(ExprPtr&)` for each child expression of `e` and
// `on_block(Block&)` for each child block, in the order they evaluate.
template <typename OnExpr, typename OnBlock>
void for_each_child(Expr& e, OnExpr&& on_expr, OnBlock&& on_block) {
    switch (e.kind) {
        case ExprKind::IntConst:
        case ExprKind::FloatConst:
        case ExprKind::VarRef:
        case ExprKind::ArrayDim: return;
        case ExprKind::Load:
            for (auto& i : e.as<Load>()->indices) on_expr(i);
            return;
        case ExprKind::Unary: on_expr(e.as<Unary>()->operand); return;
        case ExprKind::Binary:
            on_expr(e.as<Binary>()->lhs);
            on_expr(e.as<Binary>()->rhs);
            return;
        case ExprKind::Compare:
            on_expr(e.as<Compare>()->lhs);
            on_expr(e.as<Compare>()->rhs);
            return;
        case ExprKind::Logical:
            on_expr(e.as<Logical>()->lhs);
            on_expr(e.as<Logical>()->rhs);
            return;
        case ExprKind::Select:
            on_expr(e.as<Select>()->cond);
            on_expr(e.as<Select>()->if_true);
            on_expr(e.as<Select>()->if_false);
            return;
        case ExprKind::Cast: on_expr(e.as<Cast>()->operand); return;
        case ExprKind::Math:
            for (auto& a : e.as<Math>()->args) on_expr(a);
            return;
        case ExprKind::Atomic:
            for (auto& i : e.as<Atomic>()->indices) on_expr(i);
            if (e.as<Atomic>()->expected) on_expr(e.as<Atomic>()->expected);
            on_expr(e.as<Atomic>()->value);
            return;
        case ExprKind::ThreadId: return;
        case ExprKind::BlockReduce: on_expr(e.as<BlockReduce>()->value); return;
        case ExprKind::TextureSample:
            for (auto& c : e.as<TextureSample>()->coords) on_expr(c);
            return;
        case ExprKind::StmtExpr:
            on_block(e.as<StmtExpr>()->stmts);
            on_expr(e.as<StmtExpr>()->value);
            return;
    }
}

// The same for a statement. A Store evaluates its value before its indices.
template <typename OnExpr, typename OnBlock>
void for_each_child(Stmt& s, OnExpr&& on_expr, OnBlock&& on_block) {
    switch (s.kind) {
        case StmtKind::Assign: on_expr(s.as<Assign>()->value); return;
        case StmtKind::Store:
            on_expr(s.as<Store>()->value);
            for (auto& i : s.as<Store>()->indices) on_expr(i);
            return;
        case StmtKind::Eval: on_expr(s.as<Eval>()->value); return;
        case StmtKind::Print:
            for (auto& a : s.as<Print>()->args) on_expr(a);
            return;
        case StmtKind::If:
            on_expr(s.as<If>()->cond);
            on_block(s.as<If>()->then_body);
            on_block(s.as<If>()->else_body);
            return;
        case StmtKind::For:
            on_expr(s.as<For>()->start);
            on_expr(s.as<For>()->end);
            on_expr(s.as<For>()->step);
            on_block(s.as<For>()->body);
            return;
        case StmtKind::While:
            on_expr(s.as<While>()->cond);
            on_block(s.as<While>()->body);
            return;
        case StmtKind::Break:
        case StmtKind::Continue:
        case StmtKind::Barrier: return;
    }
}

// Read-only forms: the callbacks receive `const ExprPtr&` and `const Block&`.
template <typename OnExpr, typename OnBlock>
void for_each_child(const Expr& e, OnExpr&& on_expr, OnBlock&& on_block) {
    for_each_child(
        const_cast<Expr&>(e), [&](ExprPtr& c) { on_expr(static_cast<const ExprPtr&>(c)); },
        [&](Block& b) { on_block(static_cast<const Block&>(b)); });
}

template <typename OnExpr, typename OnBlock>
void for_each_child(const Stmt& s, OnExpr&& on_expr, OnBlock&& on_block) {
    for_each_child(
        const_cast<Stmt&>(s), [&](ExprPtr& c) { on_expr(static_cast<const ExprPtr&>(c)); },
        [&](Block& b) { on_block(static_cast<const Block&>(b)); });
}

}  // namespace tack::ir
