#include "syntax/ast.h"

namespace tack::syntax {

const char* to_string(ExprKind k) {
    switch (k) {
#define X(name) \
    case ExprKind::name: return #name;
        TACK_EXPR_KINDS(X)
#undef X
    }
    return "?";
}

const char* to_string(StmtKind k) {
    switch (k) {
#define X(name) \
    case StmtKind::name: return #name;
        TACK_STMT_KINDS(X)
#undef X
    }
    return "?";
}

const char* to_string(UnaryOp op) {
    switch (op) {
        case UnaryOp::Neg: return "-";
        case UnaryOp::Pos: return "+";
        case UnaryOp::Invert: return "~";
        case UnaryOp::Not: return "not";
    }
    return "?";
}

const char* to_string(BinaryOp op) {
    switch (op) {
        case BinaryOp::Add: return "+";
        case BinaryOp::Sub: return "-";
        case BinaryOp::Mul: return "*";
        case BinaryOp::Div: return "/";
        case BinaryOp::FloorDiv: return "//";
        case BinaryOp::Mod: return "%";
        case BinaryOp::Pow: return "**";
        case BinaryOp::MatMul: return "@";
        case BinaryOp::LShift: return "<<";
        case BinaryOp::RShift: return ">>";
        case BinaryOp::BitAnd: return "&";
        case BinaryOp::BitOr: return "|";
        case BinaryOp::BitXor: return "^";
    }
    return "?";
}

const char* to_string(BoolOpKind op) { return op == BoolOpKind::And ? "and" : "or"; }

const char* to_string(CmpOp op) {
    switch (op) {
        case CmpOp::Lt: return "<";
        case CmpOp::Le: return "<=";
        case CmpOp::Gt: return ">";
        case CmpOp::Ge: return ">=";
        case CmpOp::Eq: return "==";
        case CmpOp::Ne: return "!=";
        case CmpOp::Is: return "is";
        case CmpOp::IsNot: return "is not";
        case CmpOp::In: return "in";
        case CmpOp::NotIn: return "not in";
    }
    return "?";
}

}  // namespace tack::syntax
