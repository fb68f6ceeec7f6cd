// Short constructors of IR expressions, for passes and lowering code that
// builds formulas (vector operations, texture sampling).
#pragma once

#include <utility>
#include <vector>

#include "ir/ir.h"

namespace tack::ir {

inline ExprPtr binary(BinOp op, ExprPtr lhs, ExprPtr rhs, Span span) {
    auto n = std::make_unique<Binary>();
    n->op = op;
    n->lhs = std::move(lhs);
    n->rhs = std::move(rhs);
    n->span = span;
    return n;
}

inline ExprPtr compare(CmpOp op, ExprPtr lhs, ExprPtr rhs, Span span) {
    auto n = std::make_unique<Compare>();
    n->op = op;
    n->lhs = std::move(lhs);
    n->rhs = std::move(rhs);
    n->span = span;
    return n;
}

inline ExprPtr select(ExprPtr cond, ExprPtr if_true, ExprPtr if_false, Span span) {
    auto n = std::make_unique<Select>();
    n->cond = std::move(cond);
    n->if_true = std::move(if_true);
    n->if_false = std::move(if_false);
    n->span = span;
    return n;
}

inline ExprPtr cast(DType to, ExprPtr operand, Span span) {
    auto n = std::make_unique<Cast>();
    n->to = to;
    n->operand = std::move(operand);
    n->span = span;
    return n;
}

inline ExprPtr math(MathFn fn, std::vector<ExprPtr> args, Span span) {
    auto n = std::make_unique<Math>();
    n->fn = fn;
    n->args = std::move(args);
    n->span = span;
    return n;
}

}  // namespace tack::ir
