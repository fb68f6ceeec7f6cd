// Operators, conversions and math builtins: each follows the contract's
// numerical rules at the annotated type. No fast-math flags; integer
// arithmetic wraps (no nsw/nuw).
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/llvm/emitter.h"

namespace tack::codegen {

Value* Emitter::unary(const Unary& u) {
    if (u.op == UnOp::Not) return bool32(b_.CreateNot(truth(*u.operand)));
    Value* v = emit(*u.operand);
    DType t = u.dtype();
    if (u.op == UnOp::Neg) return is_float(t) ? b_.CreateFNeg(v) : b_.CreateSub(llvm::ConstantInt::get(v->getType(), 0), v);
    return b_.CreateNot(v);
}

Value* Emitter::binary(const Binary& bin) {
    Value* l = emit(*bin.lhs);
    Value* r = emit(*bin.rhs);
    unify(l, r);
    DType t = bin.dtype();
    bool f = is_float(t), s = is_signed_int(t);
    switch (bin.op) {
        case BinOp::Add: return f ? b_.CreateFAdd(l, r) : b_.CreateAdd(l, r);
        case BinOp::Sub: return f ? b_.CreateFSub(l, r) : b_.CreateSub(l, r);
        case BinOp::Mul: return f ? b_.CreateFMul(l, r) : b_.CreateMul(l, r);
        case BinOp::Div: return b_.CreateFDiv(l, r);
        case BinOp::FloorDiv:
        case BinOp::Mod: {
            bool want_div = bin.op == BinOp::FloorDiv;
            if (f) return b_.CreateCall(float_divmod(l->getType(), want_div), {l, r});
            return int_divmod(l, r, s, want_div, bin.span);
        }
        case BinOp::Pow:
            return call(f ? libm(t, "pow", 2) : llvm::FunctionCallee(int_pow(t, bin.rhs->dtype())), {l, r}, ty(t));
        case BinOp::Shl: return b_.CreateShl(l, r);
        case BinOp::Shr: return s ? b_.CreateAShr(l, r) : b_.CreateLShr(l, r);
        case BinOp::BitAnd: return b_.CreateAnd(l, r);
        case BinOp::BitOr: return b_.CreateOr(l, r);
        case BinOp::BitXor: return b_.CreateXor(l, r);
        case BinOp::Min:
        case BinOp::Max: {
            bool mn = bin.op == BinOp::Min;
            if (f) return b_.CreateBinaryIntrinsic(mn ? llvm::Intrinsic::minnum : llvm::Intrinsic::maxnum, l, r);
            Value* lt = s ? b_.CreateICmpSLT(l, r) : b_.CreateICmpULT(l, r);
            return mn ? b_.CreateSelect(lt, l, r) : b_.CreateSelect(lt, r, l);
        }
    }
    syntax::internal_error(kEmitPass, "unknown binary operator");
}

// Integer // and %, floored.
Value* Emitter::int_divmod(Value* l, Value* r, bool s, bool want_div, Span span) {
    // The caller promises a nonzero divisor (and no signed minimum
    // by -1), but a broken promise must not kill the process with
    // SIGFPE. Divisors that can trap (0, and -1 when signed) take a
    // branch, marked unlikely so the division itself stays as fast
    // as before: there the quotient is the operands' product (0 for
    // a zero divisor, as NumPy gives, and the exact, wrapped -l for
    // -1) and the remainder 0. Debug mode reports a zero divisor.
    Value* zero = llvm::ConstantInt::get(l->getType(), 0);
    if (debug_) {
        // Lanes: once for the active lanes that divide by zero.
        Value* by_zero = b_.CreateICmpEQ(r, zero);
        if (in_lanes())
            by_zero = by_zero->getType()->isVectorTy() ? any(b_.CreateSelect(mask(), by_zero, llvm::Constant::getNullValue(mask()->getType())))
                                                       : b_.CreateAnd(by_zero, any(mask()));
        check_divisor(by_zero, span);
    }
    auto unsafe_divisor = [&](Value* r) {
        Value* one = llvm::ConstantInt::get(r->getType(), 1);
        return s ? b_.CreateICmpULE(b_.CreateAdd(r, one), one) : b_.CreateICmpEQ(r, llvm::Constant::getNullValue(r->getType()));
    };
    Value* unsafe = unsafe_divisor(r);
    auto divide_by = [&](Value* l, Value* d) -> Value* {
        if (!s) return want_div ? b_.CreateUDiv(l, d) : b_.CreateURem(l, d);
        // Truncating division corrected towards negative infinity.
        Value* zero = llvm::Constant::getNullValue(l->getType());
        Value* q = b_.CreateSDiv(l, d);
        Value* m = b_.CreateSRem(l, d);
        Value* adjust = b_.CreateAnd(b_.CreateICmpNE(m, zero), b_.CreateICmpSLT(b_.CreateXor(m, d), zero));
        return want_div ? b_.CreateSub(q, b_.CreateZExt(adjust, l->getType()))
                        : b_.CreateAdd(m, b_.CreateSelect(adjust, d, zero));
    };
    // Without a branch: a divisor of 1 where it is special (or, in an
    // inactive lane, garbage), then the special value.
    auto divide_or_special = [&](Value* l, Value* r, Value* unsafe) {
        Value* one = llvm::ConstantInt::get(r->getType(), 1);
        Value* value = divide_by(l, b_.CreateSelect(unsafe, one, r));
        return b_.CreateSelect(unsafe, want_div ? b_.CreateMul(l, r) : llvm::Constant::getNullValue(l->getType()), value);
    };
    // A constant divisor that cannot trap needs no branch.
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(unsafe); c && c->isZero()) return divide_by(l, r);
    if (l->getType()->isVectorTy()) {
        // No CPU divides integer vectors. A constant divisor LLVM divides by
        // multiplying, in vectors where the lanes are narrower than 64 bits.
        auto* constant = llvm::dyn_cast<llvm::Constant>(r);
        Value* splat = constant ? constant->getSplatValue() : nullptr;
        if (constant && (!splat || l->getType()->getScalarSizeInBits() < 64)) return divide_or_special(l, r, unsafe);
        // Any other divides lane by lane, and only the hardware's truncating
        // division does, by a divisor made safe in vectors; the correction
        // towards negative infinity and the special values stay in vectors.
        count_work(&LaneWork::divisions);
        Value* one = llvm::ConstantInt::get(r->getType(), 1);
        Value* d = b_.CreateSelect(unsafe, one, r);
        // Signed //: the remainder the correction needs follows from the
        // quotient in vectors.
        llvm::Instruction::BinaryOps op = s ? (want_div ? llvm::Instruction::SDiv : llvm::Instruction::SRem)
                                            : (want_div ? llvm::Instruction::UDiv : llvm::Instruction::URem);
        std::string kind = std::string(s ? "s" : "u") + (want_div ? "div" : "rem");
        Value* t;
        if (splat) {
            // One function per constant, which it divides by multiplying.
            auto* c = llvm::cast<llvm::ConstantInt>(splat);
            Value* safe = c->isZero() || (s && c->isMinusOne()) ? b_.getIntN(c->getBitWidth(), 1) : c;
            t = per_lane(kind + ".by" + std::to_string(c->getSExtValue()), {l}, l->getType()->getScalarType(),
                         [&](const std::vector<Value*>& x) { return b_.CreateBinOp(op, x[0], safe); });
        } else {
            t = per_lane(kind, {l, d}, l->getType()->getScalarType(),
                         [&](const std::vector<Value*>& x) { return b_.CreateBinOp(op, x[0], x[1]); });
        }
        Value* value = t;
        if (s) {
            Value* m = want_div ? b_.CreateSub(l, b_.CreateMul(t, d)) : t;
            Value* adjust = b_.CreateAnd(b_.CreateICmpNE(m, zero), b_.CreateICmpSLT(b_.CreateXor(m, d), zero));
            value = want_div ? b_.CreateSub(t, b_.CreateZExt(adjust, l->getType()))
                             : b_.CreateAdd(m, b_.CreateSelect(adjust, d, zero));
        }
        return b_.CreateSelect(unsafe, want_div ? b_.CreateMul(l, r) : zero, value);
    }
    auto* divide = block("div");
    auto* special = block("div.special");
    auto* join = block("div.join");
    b_.CreateCondBr(unsafe, special, divide, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(special);
    Value* special_value = want_div ? b_.CreateMul(l, r) : zero;
    b_.CreateBr(join);
    b_.SetInsertPoint(divide);
    Value* value = divide_by(l, r);
    BasicBlock* divided = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    auto* phi = b_.CreatePHI(l->getType(), 2);
    phi->addIncoming(special_value, special);
    phi->addIncoming(value, divided);
    return phi;
}

Value* Emitter::compare(const Compare& c) {
    Value* l = emit(*c.lhs);
    Value* r = emit(*c.rhs);
    unify(l, r);
    DType t = c.lhs->dtype();
    if (is_float(t)) {
        llvm::CmpInst::Predicate p;
        switch (c.op) {
            case CmpOp::Lt: p = llvm::CmpInst::FCMP_OLT; break;
            case CmpOp::Le: p = llvm::CmpInst::FCMP_OLE; break;
            case CmpOp::Gt: p = llvm::CmpInst::FCMP_OGT; break;
            case CmpOp::Ge: p = llvm::CmpInst::FCMP_OGE; break;
            case CmpOp::Eq: p = llvm::CmpInst::FCMP_OEQ; break;
            case CmpOp::Ne: p = llvm::CmpInst::FCMP_UNE; break;  // NaN != NaN
        }
        return bool32(b_.CreateFCmp(p, l, r));
    }
    bool s = is_signed_int(t);
    llvm::CmpInst::Predicate p;
    switch (c.op) {
        case CmpOp::Lt: p = s ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT; break;
        case CmpOp::Le: p = s ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE; break;
        case CmpOp::Gt: p = s ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT; break;
        case CmpOp::Ge: p = s ? llvm::CmpInst::ICMP_SGE : llvm::CmpInst::ICMP_UGE; break;
        case CmpOp::Eq: p = llvm::CmpInst::ICMP_EQ; break;
        case CmpOp::Ne: p = llvm::CmpInst::ICMP_NE; break;
    }
    return bool32(b_.CreateICmp(p, l, r));
}

Value* Emitter::cast(const Cast& c) {
    Value* v = emit(*c.operand);
    DType from = c.operand->dtype(), to = c.to;
    if (from == to) return v;
    Type* t = like(ty(to), v);
    if (is_int(from) && is_int(to)) {
        if (bits_of(to) < bits_of(from)) return b_.CreateTrunc(v, t);
        if (bits_of(to) == bits_of(from)) return v;  // same bits, new interpretation
        return is_signed_int(from) ? b_.CreateSExt(v, t) : b_.CreateZExt(v, t);
    }
    if (is_int(from)) return is_signed_int(from) ? b_.CreateSIToFP(v, t) : b_.CreateUIToFP(v, t);
    if (is_int(to)) return is_signed_int(to) ? b_.CreateFPToSI(v, t) : b_.CreateFPToUI(v, t);
    return bits_of(to) > bits_of(from) ? b_.CreateFPExt(v, t) : b_.CreateFPTrunc(v, t);
}

Value* Emitter::math(const Math& m) {
    DType t = m.dtype();
    std::vector<Value*> args;
    for (auto& a : m.args) args.push_back(emit(*a));
    // Uniform arguments broadcast to the lanes when another one varies.
    bool lanes = false;
    for (auto* a : args) lanes = lanes || a->getType()->isVectorTy();
    if (lanes)
        for (auto*& a : args) a = widen(a);
    if (m.fn == MathFn::Abs && is_int(t)) {
        if (!is_signed_int(t)) return args[0];
        Value* zero = llvm::ConstantInt::get(args[0]->getType(), 0);
        return b_.CreateSelect(b_.CreateICmpSLT(args[0], zero), b_.CreateSub(zero, args[0]), args[0]);
    }
    switch (m.fn) {
        case MathFn::Sqrt: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]);
        case MathFn::Floor: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, args[0]);
        case MathFn::Ceil: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, args[0]);
        case MathFn::Abs: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]);
        case MathFn::Trunc: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, args[0]);
        // rint's ties-to-even without its dependence on the rounding mode.
        case MathFn::Round: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, args[0]);
        case MathFn::Copysign: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, args[0], args[1]);
        case MathFn::Fmod: return b_.CreateFRem(args[0], args[1]);  // frem is C's fmod
        // Rounded once, as C's fma; a vector instruction where the CPU has one.
        case MathFn::Fma: return b_.CreateIntrinsic(llvm::Intrinsic::fma, {args[0]->getType()}, args);
        default: break;
    }
    // Lanes call the C library one at a time: its results are the bits the
    // scalar program gets.
    return call(libm(t, ir::c_name(m.fn), ir::arity(m.fn)), args, ty(t));
}

Value* Emitter::call(llvm::FunctionCallee f, const std::vector<Value*>& args, Type* result) {
    if (!args[0]->getType()->isVectorTy()) return b_.CreateCall(f, args);
    count_work(&LaneWork::calls);
    return per_lane("call." + llvm::cast<llvm::Function>(f.getCallee())->getName().str(), args, result,
                    [&](const std::vector<Value*>& x) -> Value* { return b_.CreateCall(f, x); });
}

// The C library's function of the right precision: sinf for f32, sin for f64.
llvm::FunctionCallee Emitter::libm(DType t, const std::string& base, int n) {
    std::string name = t == DType::F32 ? base + "f" : base;
    Type* ft = ty(t);
    std::vector<Type*> params(n, ft);
    auto callee = m_.getOrInsertFunction(name, llvm::FunctionType::get(ft, params, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        f->setDoesNotThrow();
        f->setOnlyAccessesInaccessibleMemory();  // errno at most
    }
    return callee;
}

// Floating // and %, following CPython's float_divmod: a truncating
// remainder corrected to the divisor's sign, and a quotient rebuilt from
// it and snapped to an integral value. An overflowing quotient stays
// infinite; nothing passes through an integer conversion.
// Written over `ft`, a floating type or a vector of one: every step is
// elementwise.
llvm::Function* Emitter::float_divmod(Type* ft, bool want_div) {
    std::string type_name;
    llvm::raw_string_ostream(type_name) << *ft;
    std::string name = prefix_ + (want_div ? ".floordiv." : ".mod.") + type_name;
    if (auto* f = m_.getFunction(name)) return f;
    auto* f = llvm::Function::Create(llvm::FunctionType::get(ft, {ft, ft}, false), llvm::Function::InternalLinkage,
                                     name, m_);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    IRBuilder<> b(BasicBlock::Create(ctx_, "entry", f));
    Value* vx = f->getArg(0);
    Value* wx = f->getArg(1);
    Value* zero = llvm::ConstantFP::get(ft, 0.0);
    Value* one = llvm::ConstantFP::get(ft, 1.0);
    Value* half = llvm::ConstantFP::get(ft, 0.5);
    Value* mod = b.CreateFRem(vx, wx);
    Value* div = b.CreateFDiv(b.CreateFSub(vx, mod), wx);
    Value* mod_nonzero = b.CreateFCmpUNE(mod, zero);
    Value* signs_differ = b.CreateXor(b.CreateFCmpOLT(wx, zero), b.CreateFCmpOLT(mod, zero));
    Value* fix = b.CreateAnd(mod_nonzero, signs_differ);
    Value* mod_fixed = b.CreateSelect(fix, b.CreateFAdd(mod, wx), mod);
    Value* div_fixed = b.CreateSelect(fix, b.CreateFSub(div, one), div);
    Value* signed_zero_mod = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, wx);
    mod = b.CreateSelect(mod_nonzero, mod_fixed, signed_zero_mod);
    if (!want_div) {
        b.CreateRet(mod);
        return f;
    }
    div = div_fixed;
    Value* floordiv = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div);
    Value* snap = b.CreateFCmpOGT(b.CreateFSub(div, floordiv), half);
    floordiv = b.CreateSelect(snap, b.CreateFAdd(floordiv, one), floordiv);
    Value* zero_q = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, b.CreateFDiv(vx, wx));
    b.CreateRet(b.CreateSelect(b.CreateFCmpUNE(div, zero), floordiv, zero_q));
    return f;
}

// Integer power by squaring, wrapping in the base's type; the exponent's
// bits drive at most 64 iterations whatever its value.
llvm::Function* Emitter::int_pow(DType base, DType exp) {
    std::string name = prefix_ + ".ipow." + std::string(name_of(base)) + "." + std::string(name_of(exp));
    if (auto* f = m_.getFunction(name)) return f;
    Type* bt = ty(base);
    Type* et = ty(exp);
    auto* f = llvm::Function::Create(llvm::FunctionType::get(bt, {bt, et}, false), llvm::Function::InternalLinkage,
                                     name, m_);
    auto* entry = BasicBlock::Create(ctx_, "entry", f);
    auto* loop = BasicBlock::Create(ctx_, "loop", f);
    auto* exit = BasicBlock::Create(ctx_, "exit", f);
    IRBuilder<> b(entry);
    Value* e64 = bits_of(exp) == 64 ? static_cast<Value*>(f->getArg(1))
                 : is_signed_int(exp) ? b.CreateSExt(f->getArg(1), b.getInt64Ty())
                                      : b.CreateZExt(f->getArg(1), b.getInt64Ty());
    Value* one = llvm::ConstantInt::get(bt, 1);
    b.CreateCondBr(b.CreateICmpNE(e64, b.getInt64(0)), loop, exit);
    b.SetInsertPoint(loop);
    auto* acc = b.CreatePHI(bt, 2);
    auto* sq = b.CreatePHI(bt, 2);
    auto* e = b.CreatePHI(b.getInt64Ty(), 2);
    acc->addIncoming(one, entry);
    sq->addIncoming(f->getArg(0), entry);
    e->addIncoming(e64, entry);
    Value* bit = b.CreateICmpNE(b.CreateAnd(e, b.getInt64(1)), b.getInt64(0));
    Value* acc2 = b.CreateSelect(bit, b.CreateMul(acc, sq), acc);
    Value* sq2 = b.CreateMul(sq, sq);
    Value* e2 = b.CreateLShr(e, b.getInt64(1));
    acc->addIncoming(acc2, loop);
    sq->addIncoming(sq2, loop);
    e->addIncoming(e2, loop);
    b.CreateCondBr(b.CreateICmpNE(e2, b.getInt64(0)), loop, exit);
    b.SetInsertPoint(exit);
    auto* result = b.CreatePHI(bt, 2);
    result->addIncoming(one, entry);
    result->addIncoming(acc2, loop);
    b.CreateRet(result);
    return f;
}

}  // namespace tack::codegen
