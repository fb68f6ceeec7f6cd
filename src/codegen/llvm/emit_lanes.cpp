// The SPMD body: the parallel loop's iterations run W at a time in the
// lanes of SIMD vectors, each lane performing exactly the scalar program's
// operations, so the results are the scalar program's bits.
//
// A group is W consecutive iterations of the innermost dimension within one
// row; what does not fill a group (the end of a row or chunk, rows narrower
// than a group) runs the scalar program's body, so a group's lanes are all
// active until control diverges, and its accesses need no mask. Values the
// lane labels
// (analysis::simd_lane_labels) call uniform stay scalars; varying ones are
// <W x T>. The active lanes are a <W x i1> mask in a slot of its own:
//
// - an `if` over a varying condition runs each side under its lanes (and
//   skips a side no lane takes), then continues with the lanes that are
//   still active on either side;
// - a loop whose condition or bounds vary, or that only some lanes leave by
//   `break` or `continue`, runs until no lane is active: a lane drops out
//   when its condition fails or its count is reached, by `break` for the
//   rest of the loop, by `continue` for the rest of the iteration;
// - the right operand of and/or and the arms of a conditional expression
//   run under the lanes that evaluate them, so an inactive lane never
//   loads, stores or prints; integer division selects a safe divisor in
//   lanes that do not divide;
// - a variable assigned under masked control changes only in active lanes.
//
// Memory: a uniform address is one scalar access (skipped when no lane may
// be active); a varying one is a masked vector load or store when the
// lanes' elements are consecutive (checked at run time) and a gather or
// scatter otherwise. Scatters write lanes in order, so of several lanes
// storing to one element the last wins, which the contract allows: it
// orders no two iterations. Local arrays hold one copy per lane. Atomics
// and print run per active lane in lane order; the C library's math runs
// per lane, so its results are the scalar program's.
#include <algorithm>

#include <llvm/IR/Constants.h>

#include "ir/traverse.h"

#include "codegen/llvm/emitter.h"

namespace tack::codegen {

Value* Emitter::widen(Value* v) {
    if (v->getType()->isVectorTy()) return v;
    return b_.CreateVectorSplat(static_cast<unsigned>(lanes_), v);
}

void Emitter::unify(Value*& a, Value*& b) {
    bool va = a->getType()->isVectorTy(), vb = b->getType()->isVectorTy();
    if (va && !vb) b = widen(b);
    if (vb && !va) a = widen(a);
}

Value* Emitter::lane_iota(Type* elem) {
    std::vector<llvm::Constant*> lanes;
    for (int l = 0; l < lanes_; ++l) lanes.push_back(llvm::ConstantInt::get(elem, static_cast<uint64_t>(l)));
    return llvm::ConstantVector::get(lanes);
}

namespace {

bool is_true(Value* v) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(v);
    return c && c->isOne();
}

// Lanes of `m` that are also in `c`, without letting `c`'s value in a lane
// outside `m` (computed from an inactive lane's operands) reach the mask.
Value* within(IRBuilder<>& b, Value* m, Value* c) {
    return b.CreateSelect(m, c, llvm::Constant::getNullValue(m->getType()));
}

}  // namespace

void Emitter::count_work(double LaneWork::*kind) {
    double weight = 1;
    for (size_t loop = 1; loop < loops_.size() && loop <= 3; ++loop) weight *= LaneWork::kLoopWeight;
    work_.*kind += weight;
}

Value* Emitter::when_any_active(Type* result, const std::function<Value*()>& emit_then) {
    return only_if(any(mask()), result, emit_then, "lanes.any");
}

namespace {

// A type in a function's name: v8i64, f32.
std::string mangled(Type* t) {
    if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t))
        return "v" + std::to_string(v->getNumElements()) + mangled(v->getElementType());
    if (t->isFloatTy()) return "f32";
    if (t->isDoubleTy()) return "f64";
    return "i" + std::to_string(t->getPrimitiveSizeInBits().getFixedValue());
}

}  // namespace

// Written out at each use, a division or call per lane would multiply the
// code, and with it the compile time, by W: the lanes' code is a function
// of the module's own instead, one per kind, which each use calls.
Value* Emitter::per_lane(const std::string& kind, const std::vector<Value*>& args, Type* result,
                         const std::function<Value*(const std::vector<Value*>&)>& fn) {
    std::vector<Value*> wide;
    // Frozen: an inactive lane's operand may be poison (an oversized
    // shift of garbage), which a call, division or branch must not see.
    std::vector<Type*> types;
    std::string name = prefix_ + ".lanes." + kind;
    for (auto* a : args) {
        wide.push_back(b_.CreateFreeze(widen(a)));
        types.push_back(wide.back()->getType());
        name += "." + mangled(types.back());
    }
    llvm::Function* f = m_.getFunction(name);
    if (!f) {
        auto* fty = llvm::FunctionType::get(result ? vec(result) : b_.getVoidTy(), types, false);
        f = llvm::Function::Create(fty, llvm::Function::InternalLinkage, name, m_);
        f->addFnAttr(llvm::Attribute::NoInline);
        f->addFnAttr(llvm::Attribute::NoUnwind);
        auto ip = b_.saveIP();
        llvm::Function* caller = fn_;
        BasicBlock* caller_entry = entry_;
        fn_ = f;
        entry_ = BasicBlock::Create(ctx_, "entry", f);
        b_.SetInsertPoint(entry_);
        Value* out = result ? llvm::PoisonValue::get(vec(result)) : nullptr;
        for (int l = 0; l < lanes_; ++l) {
            std::vector<Value*> scalars;
            for (auto& arg : f->args()) scalars.push_back(b_.CreateExtractElement(&arg, b_.getInt32(l)));
            Value* r = fn(scalars);
            if (result) out = b_.CreateInsertElement(out, r, b_.getInt32(l));
        }
        if (result) b_.CreateRet(out);
        else b_.CreateRetVoid();
        fn_ = caller;
        entry_ = caller_entry;
        b_.restoreIP(ip);
    }
    Value* call = b_.CreateCall(f, wide);
    return result ? call : nullptr;
}

Value* Emitter::each_lane_of(Value* m, Type* result, const std::function<Value*(Value* lane)>& fn) {
    llvm::AllocaInst* out = nullptr;
    if (result) {
        out = entry_alloca(vec(result), "lanes.out");
        b_.CreateStore(llvm::Constant::getNullValue(vec(result)), out);
    }
    auto* lane_slot = entry_alloca(b_.getInt32Ty(), "lane");
    b_.CreateStore(b_.getInt32(0), lane_slot);
    auto* head = block("lane.head");
    auto* check = block("lane.check");
    auto* run = block("lane.run");
    auto* latch = block("lane.latch");
    auto* exit = block("lane.exit");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    Value* lane = b_.CreateLoad(b_.getInt32Ty(), lane_slot);
    b_.CreateCondBr(b_.CreateICmpSLT(lane, b_.getInt32(lanes_)), check, exit);
    b_.SetInsertPoint(check);
    b_.CreateCondBr(b_.CreateExtractElement(m, lane), run, latch);
    b_.SetInsertPoint(run);
    Value* r = fn(lane);
    if (result) b_.CreateStore(b_.CreateInsertElement(b_.CreateLoad(vec(result), out), r, lane), out);
    b_.CreateBr(latch);
    b_.SetInsertPoint(latch);
    b_.CreateStore(b_.CreateAdd(lane, b_.getInt32(1)), lane_slot);
    // Kept a loop: neither unrolled nor vectorized back into W copies.
    hint_loop(b_.CreateBr(head), {{"llvm.loop.unroll.disable", -1}, {"llvm.loop.vectorize.width", 1},
                                  {"llvm.loop.interleave.count", 1}});
    b_.SetInsertPoint(exit);
    return result ? b_.CreateLoad(vec(result), out) : nullptr;
}

// The whole groups of one row's iterations [first, end) of the innermost
// dimension (end - first is a multiple of W).
void Emitter::emit_groups(Value* first, Value* end) {
    size_t nd = k_.dims.size();
    Type* mask_type = vec(b_.getInt1Ty());
    auto* mask_slot = mask_alloca("lanes");
    auto* g_slot = entry_alloca(i64(), "group");
    b_.CreateStore(first, g_slot);
    auto* head = block("group.head");
    auto* body = block("group.body");
    auto* latch = block("group.latch");
    auto* exit = block("group.exit");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    Value* g = b_.CreateLoad(i64(), g_slot);
    b_.CreateCondBr(b_.CreateICmpSLT(g, end), body, exit);

    b_.SetInsertPoint(body);
    Value* iota = lane_iota(i64());
    mask_slot_ = mask_slot;
    set_mask(llvm::Constant::getAllOnesValue(mask_type));
    depth_ = 0;
    iteration_left_ = false;
    set_dim_var(nd - 1, b_.CreateAdd(widen(g), iota), dim_start_[nd - 1], dim_step_[nd - 1]);
    loops_.push_back(LoopTargets{exit, latch, 0, nullptr});  // `continue` ends the lanes' iteration
    emit_block(k_.body);
    loops_.pop_back();
    mask_slot_ = nullptr;
    // A body that stayed one block (no control flow, no per-lane calls or
    // run-time choices) runs several groups per turn of the loop, as LLVM's
    // loop vectorizer interleaves the scalar program's loop: the
    // memory-bound stencils keep more loads in flight.
    bool straight = b_.GetInsertBlock() == body;
    branch_if_open(latch);

    b_.SetInsertPoint(latch);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64(), g_slot), b_.getInt64(lanes_)), g_slot);
    auto* back = b_.CreateBr(head);
    if (straight && straight_groups_ > 1) hint_loop(back, {{"llvm.loop.unroll.count", straight_groups_}});
    b_.SetInsertPoint(exit);
}

Emitter::Access Emitter::lane_address(int array, const std::vector<ExprPtr>& indices, int component, Span span) {
    auto& param = k_.params[array];
    auto& a = arrays_[array];
    if (!a.data) syntax::internal_error(kEmitPass, "array '" + param.name + "' used but not loaded");
    std::vector<Value*> idx;
    for (auto& e : indices) idx.push_back(index64(*e));
    Value* offset = offset_of(array, idx, component);
    Type* et = ty(param.dtype);
    Access out;
    if (debug_) out.in_bounds = lane_bounds_check(array, idx, span);
    Value* iota = lane_iota(i64());
    if (param.kind == ParamKind::LocalArray && !shared_local(array)) {
        // Lane l's copy of element e is at e * W + l.
        Value* w = b_.getInt64(lanes_);
        if (!offset->getType()->isVectorTy()) {
            out.first = b_.CreateGEP(et, a.data, b_.CreateMul(offset, w));
            out.consecutive = b_.getTrue();
            out.ptr = b_.CreateGEP(et, out.first, iota);
            return out;
        }
        out.ptr = b_.CreateGEP(et, a.data, b_.CreateAdd(b_.CreateMul(offset, widen(w)), iota));
        out.consecutive = b_.getFalse();
        return out;
    }
    if (!offset->getType()->isVectorTy()) {
        out.ptr = b_.CreateGEP(et, a.data, offset);
        return out;
    }
    out.ptr = b_.CreateGEP(et, a.data, offset);
    Value* first = b_.CreateExtractElement(offset, b_.getInt32(0));
    out.first = b_.CreateGEP(et, a.data, first);
    if (auto step = offset_lane_step(array, indices)) {
        out.consecutive = b_.getInt1(*step == 1);
        return out;
    }
    // Checked at run time, on frozen offsets: the check branches on every
    // lane's offset, inactive lanes' included.
    Value* frozen = b_.CreateFreeze(offset);
    out.ptr = b_.CreateGEP(et, a.data, frozen);
    first = b_.CreateExtractElement(frozen, b_.getInt32(0));
    out.first = b_.CreateGEP(et, a.data, first);
    out.consecutive = b_.CreateAndReduce(b_.CreateICmpEQ(frozen, b_.CreateAdd(widen(first), iota)));
    return out;
}

void Emitter::note_assignments() {
    assignments_.assign(k_.vars.size(), 0);
    auto count = [&](const ir::Stmt& s) {
        if (auto* a = s.as<ir::Assign>()) ++assignments_[a->var];
        if (auto* f = s.as<ir::For>()) ++assignments_[f->var];
    };
    ir::visit(k_.prologue, [](const ir::Expr&) {}, count);
    ir::visit(k_.body, [](const ir::Expr&) {}, count);
}

// A variable assigned once in the whole kernel, in every lane (outside
// masked control), holds the same lanes' difference as its value for the
// rest of the block: the statements after it run after it, and nothing
// assigns it again. Inlined functions' parameters are such variables.
void Emitter::note_lane_step(const Assign& a) {
    if (depth_ > 0 || assignments_[a.var] != 1 || !varying_var(a.var)) return;
    if (auto step = lane_step(*a.value)) known_steps_.emplace_back(a.var, *step);
}

// Lane l of the innermost loop variable is start + (g + l) * step, exact
// for every active lane; sums, differences and multiples of such values in
// 64 bits keep a constant difference between lanes (two's complement
// arithmetic is a ring), and a uniform value has a difference of 0. A
// narrower type's arithmetic wraps at its own width, so only the variable
// itself, unchanged, is widened exactly.
// An integer literal, or one converted to a 64-bit integer type (the tile
// lowering's constants), as its 64-bit two's complement bits.
static std::optional<uint64_t> int_constant(const Expr& e) {
    if (auto* c = e.as<IntConst>()) return c->bits;
    if (auto* cast = e.as<Cast>())
        if (is_int(cast->to) && bits_of(cast->to) == 64)
            if (auto* c = cast->operand->as<IntConst>()) return c->bits;
    return std::nullopt;
}

std::optional<int64_t> Emitter::lane_step(const Expr& e) const {
    if (!labels_->varying(e)) return 0;
    const ParallelDim& inner = k_.dims.back();
    auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
    switch (e.kind) {
        case ExprKind::VarRef: {
            int v = e.as<VarRef>()->var;
            for (auto& [var, step] : known_steps_)
                if (var == v) return step;
            if (v != inner.var || assigned_in_body(v)) return std::nullopt;
            if (!inner.step) return 1;
            if (auto c = int_constant(*inner.step)) return wrap(*c);
            return std::nullopt;
        }
        case ExprKind::Cast: {
            auto& c = *e.as<Cast>();
            DType from = c.operand->dtype();
            if (!is_int(from) || !is_int(c.to) || bits_of(c.to) != 64) return std::nullopt;
            if (bits_of(from) == 64) return lane_step(*c.operand);
            auto* r = c.operand->as<VarRef>();
            if (!r || r->var != inner.var) return std::nullopt;
            return lane_step(*c.operand);
        }
        case ExprKind::Binary: {
            auto& b = *e.as<Binary>();
            if (bits_of(b.dtype()) != 64 || !is_int(b.dtype())) return std::nullopt;
            auto l = lane_step(*b.lhs);
            auto r = lane_step(*b.rhs);
            if (!l || !r) return std::nullopt;
            auto ul = static_cast<uint64_t>(*l), ur = static_cast<uint64_t>(*r);
            switch (b.op) {
                case BinOp::Add: return wrap(ul + ur);
                case BinOp::Sub: return wrap(ul - ur);
                case BinOp::Mul: {
                    // One side uniform and a literal.
                    if (*l == 0) {
                        if (auto c = int_constant(*b.lhs)) return wrap(*c * ur);
                    }
                    if (*r == 0) {
                        if (auto c = int_constant(*b.rhs)) return wrap(ul * *c);
                    }
                    return std::nullopt;
                }
                default: return std::nullopt;
            }
        }
        default: return std::nullopt;
    }
}

// The lanes' difference of an element's offset in scalars: the indices'
// differences times their strides, where those are known when compiling
// (the last dimension of a contiguous array, or a flat index into one).
std::optional<int64_t> Emitter::offset_lane_step(int array, const std::vector<ExprPtr>& indices) const {
    auto& param = k_.params[array];
    auto& a = arrays_[array];
    // A strided array: only its last axis's stride is known, when it is one.
    if (!param.contiguous && param.kind != ParamKind::LocalArray &&
        (!param.unit_inner_stride || static_cast<int>(indices.size()) != param.ndim))
        return std::nullopt;
    uint64_t total = 0;
    for (size_t d = 0; d < indices.size(); ++d) {
        auto s = lane_step(*indices[d]);
        if (!s) return std::nullopt;
        if (*s == 0) continue;
        bool last = static_cast<int>(indices.size()) != param.ndim || d + 1 == indices.size();
        if (!last) return std::nullopt;  // a stride known only at run time
        total += static_cast<uint64_t>(*s) * static_cast<uint64_t>(a.element_stride);
    }
    return static_cast<int64_t>(total);
}

Value* Emitter::lane_bounds_check(int array, const std::vector<Value*>& idx_in, Span span) {
    auto& param = k_.params[array];
    auto& a = arrays_[array];
    bool lanes = false;
    for (auto* i : idx_in) lanes = lanes || i->getType()->isVectorTy();
    std::vector<Value*> idx = idx_in;
    auto u = [&](Value* v) { return lanes ? widen(v) : v; };
    if (lanes)
        for (auto*& i : idx) i = widen(i);
    Value* ok = nullptr;
    Value* extent_total = nullptr;
    auto both = [&](Value* c) { ok = ok ? b_.CreateAnd(ok, c) : c; };
    if (static_cast<int>(idx.size()) == param.ndim) {
        for (size_t d = 0; d < idx.size(); ++d) both(b_.CreateICmpULT(idx[d], u(a.shape[d])));
    } else {
        extent_total = b_.getInt64(1);
        for (auto* s : a.shape) extent_total = b_.CreateMul(extent_total, s);
        both(b_.CreateICmpULT(idx[0], u(extent_total)));
    }
    Value* m = mask();
    Value* bad = lanes ? within(b_, m, b_.CreateNot(ok)) : b_.CreateAnd(b_.CreateNot(ok), any(m));
    auto* report = block("bounds.fail");
    auto* cont = block("bounds.ok");
    b_.CreateCondBr(lanes ? any(bad) : bad, report, cont);
    b_.SetInsertPoint(report);
    DebugAccess check{array, span, static_cast<int>(idx.size())};
    auto* values = entry_alloca(llvm::ArrayType::get(i64(), 16), "bounds.values");
    auto write = [&](Value* lane) {
        for (size_t d = 0; d < idx.size(); ++d)
            b_.CreateStore(lane ? b_.CreateExtractElement(idx[d], lane) : idx[d], b_.CreateConstGEP1_64(i64(), values, d));
        if (extent_total) {
            b_.CreateStore(extent_total, b_.CreateConstGEP1_64(i64(), values, 8));
        } else {
            for (size_t d = 0; d < a.shape.size(); ++d)
                b_.CreateStore(a.shape[d], b_.CreateConstGEP1_64(i64(), values, 8 + d));
        }
    };
    if (lanes) {
        // One report per failing lane, in lane order; the runtime keeps the
        // launch's first. Each call site is one check.
        int id = static_cast<int>(debug_accesses_->size());
        debug_accesses_->push_back(check);
        each_lane_of(bad, nullptr, [&](Value* lane) -> Value* {
            write(lane);
            auto callee = m_.getOrInsertFunction(
                "tack_rt_bounds_failure",
                llvm::FunctionType::get(b_.getVoidTy(), {ptr(), b_.getInt32Ty(), ptr()}, false));
            b_.CreateCall(callee, {debug_state_, b_.getInt32(id), values});
            return nullptr;
        });
    } else {
        write(nullptr);
        report_failure(check, values);
    }
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
    return ok;
}

Value* Emitter::lane_load(const Load& l) {
    Access a = lane_address(l.array, l.indices, l.component, l.span);
    Type* et = ty(l.dtype());
    if (!a.ptr->getType()->isVectorTy()) {
        auto load = [&]() -> Value* { return tag(b_.CreateAlignedLoad(et, a.ptr, llvm::Align(1)), l.array); };
        if (a.in_bounds) return guarded(a, et, [&] { return maybe_idle() ? when_any_active(et, load) : load(); });
        return maybe_idle() ? when_any_active(et, load) : load();
    }
    Type* vt = vec(et);
    Value* zero = llvm::Constant::getNullValue(vt);
    Value* m = access_lanes(a);
    auto consecutive = [&]() -> Value* {
        return tag(b_.CreateMaskedLoad(vt, a.first, llvm::Align(1), m, zero), l.array);
    };
    auto gather = [&]() -> Value* { return tag(b_.CreateMaskedGather(vt, a.ptr, llvm::Align(1), m, zero), l.array); };
    if (!is_true(a.consecutive)) count_work(&LaneWork::scattered);
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(a.consecutive)) return c->isOne() ? consecutive() : gather();
    auto* row = block("load.consecutive");
    auto* scattered = block("load.gather");
    auto* join = block("load.join");
    b_.CreateCondBr(a.consecutive, row, scattered);
    b_.SetInsertPoint(row);
    Value* rv = consecutive();
    b_.CreateBr(join);
    b_.SetInsertPoint(scattered);
    Value* gv = gather();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    auto* phi = b_.CreatePHI(vt, 2);
    phi->addIncoming(rv, row);
    phi->addIncoming(gv, scattered);
    return phi;
}

void Emitter::lane_store(const Store& st, Value* v) {
    Access a = lane_address(st.array, st.indices, st.component, st.span);
    if (!a.ptr->getType()->isVectorTy()) {
        if (!v->getType()->isVectorTy()) {
            auto store = [&]() -> Value* {
                tag(b_.CreateAlignedStore(v, a.ptr, llvm::Align(1)), st.array);
                return nullptr;
            };
            auto run = [&]() -> Value* {
                if (maybe_idle()) when_any_active(nullptr, store);
                else store();
                return nullptr;
            };
            if (a.in_bounds) guarded(a, nullptr, run);
            else run();
            return;
        }
        // Lanes storing to one element: in lane order, the last wins.
        count_work(&LaneWork::scattered);
        tag(b_.CreateMaskedScatter(v, widen(a.ptr), llvm::Align(1), access_lanes(a)), st.array);
        return;
    }
    v = widen(v);
    count_work(&LaneWork::in_vectors);
    if (!is_true(a.consecutive)) count_work(&LaneWork::scattered);
    Value* m = access_lanes(a);
    auto consecutive = [&] { tag(b_.CreateMaskedStore(v, a.first, llvm::Align(1), m), st.array); };
    auto scatter = [&] { tag(b_.CreateMaskedScatter(v, a.ptr, llvm::Align(1), m), st.array); };
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(a.consecutive)) {
        if (c->isOne()) consecutive();
        else scatter();
        return;
    }
    auto* row = block("store.consecutive");
    auto* scattered = block("store.scatter");
    auto* join = block("store.join");
    b_.CreateCondBr(a.consecutive, row, scattered);
    b_.SetInsertPoint(row);
    consecutive();
    b_.CreateBr(join);
    b_.SetInsertPoint(scattered);
    scatter();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
}

void Emitter::lane_if(const If& i) {
    Value* c = widen(truth(*i.cond));
    Value* m0 = mask();
    Type* mask_type = m0->getType();
    auto* joined = mask_alloca("if.lanes");
    store_mask(joined, llvm::Constant::getNullValue(mask_type));
    auto join_active = [&](Value* lanes) { store_mask(joined, b_.CreateOr(load_mask(joined), lanes)); };
    ++depth_;
    auto side = [&](const Block& body, Value* lanes, const char* name) {
        if (body.empty()) {
            join_active(lanes);
            return;
        }
        auto* run = block(name);
        auto* next = block("if.next");
        b_.CreateCondBr(any(lanes), run, next);
        b_.SetInsertPoint(run);
        set_mask(lanes);
        emit_block(body);
        if (open()) {
            join_active(mask());
            b_.CreateBr(next);
        }
        b_.SetInsertPoint(next);
    };
    side(i.then_body, within(b_, m0, c), "if.then");
    side(i.else_body, within(b_, m0, b_.CreateNot(c)), "if.else");
    --depth_;
    // Lanes leave an `if` early only by break or continue; without them
    // every lane that entered comes out, and the mask before it (often the
    // constant of a full group) stays visible to the optimizer.
    set_mask(leaves_loop(i.then_body) || leaves_loop(i.else_body) ? load_mask(joined) : m0);
}

bool Emitter::leaves_loop(const Block& bl) {
    for (auto& s : bl) {
        if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue) return true;
        // An inner loop's exits leave only that loop.
        if (auto* i = s->as<If>())
            if (leaves_loop(i->then_body) || leaves_loop(i->else_body)) return true;
    }
    return false;
}

void Emitter::lane_loop(const Stmt& s) {
    const While* w = s.as<While>();
    const For* f = s.as<For>();
    Value* entry_mask = mask();
    Type* mask_type = entry_mask->getType();
    Value* none = llvm::Constant::getNullValue(mask_type);
    ++depth_;
    Value *start = nullptr, *step = nullptr, *count = nullptr;
    llvm::AllocaInst* counter = nullptr;
    if (f) {
        DType t = *k_.vars[f->var].type;
        start = emit(*f->start);
        Value* end = emit(*f->end);
        step = emit(*f->step);
        if (start->getType()->isVectorTy() || end->getType()->isVectorTy() || step->getType()->isVectorTy()) {
            count_work(&LaneWork::calls);
            count = per_lane(std::string("trip.") + (is_signed_int(t) ? "s" : "u"), {start, end, step}, i64(),
                             [&](const std::vector<Value*>& x) { return trip_count(x[0], x[1], x[2], t); });
        } else {
            count = trip_count(start, end, step, t);
        }
        counter = entry_alloca(i64(), "for.k");
        b_.CreateStore(b_.getInt64(0), counter);
    }
    auto* continued = mask_alloca("loop.continued");
    auto* head = block("loop.head");
    auto* body = block("loop.body");
    auto* latch = block("loop.latch");
    auto* exit = block("loop.exit");
    b_.CreateBr(head);

    b_.SetInsertPoint(head);
    Value* kv = nullptr;
    if (w) {
        // The condition runs in the lanes still in the loop.
        Value* c = widen(truth(*w->cond));
        set_mask(within(b_, mask(), c));
    } else {
        kv = b_.CreateLoad(i64(), counter);
        set_mask(within(b_, mask(), widen(b_.CreateICmpSLT(widen(kv), widen(count)))));
    }
    b_.CreateCondBr(any(mask()), body, exit);

    b_.SetInsertPoint(body);
    store_mask(continued, none);
    if (f) {
        Value* i = b_.CreateTrunc(kv, ty(*k_.vars[f->var].type));
        Value* st = step;
        unify(i, st);
        Value* s0 = start;
        unify(i, s0);
        unify(s0, st);
        assign(f->var, b_.CreateAdd(s0, b_.CreateMul(i, st)));
    }
    loops_.push_back(LoopTargets{exit, latch, depth_, continued});
    emit_block(f ? f->body : w->body);
    loops_.pop_back();
    branch_if_open(latch);

    b_.SetInsertPoint(latch);
    set_mask(b_.CreateOr(mask(), load_mask(continued)));
    if (f) b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64(), counter), b_.getInt64(1)), counter);
    b_.CreateBr(head);

    b_.SetInsertPoint(exit);
    --depth_;
    set_mask(entry_mask);
}

Value* Emitter::lane_logical(const Logical& l) {
    bool is_and = l.op == LogicOp::And;
    Value* lhs = truth(*l.lhs);
    Value* m0 = mask();
    ++depth_;
    set_mask(within(b_, m0, is_and ? lhs : b_.CreateNot(lhs)));
    Value* rhs = widen(truth(*l.rhs));
    --depth_;
    set_mask(m0);
    // A select, not and/or: an unevaluated lane's rhs must not matter.
    Value* r = is_and ? b_.CreateSelect(lhs, rhs, llvm::Constant::getNullValue(rhs->getType()))
                      : b_.CreateSelect(lhs, llvm::Constant::getAllOnesValue(rhs->getType()), rhs);
    return bool32(r);
}

Value* Emitter::lane_select(const Select& s) {
    Value* c = truth(*s.cond);
    Value* m0 = mask();
    ++depth_;
    set_mask(within(b_, m0, c));
    Value* tv = widen(emit(*s.if_true));
    set_mask(within(b_, m0, b_.CreateNot(c)));
    Value* fv = widen(emit(*s.if_false));
    --depth_;
    set_mask(m0);
    return b_.CreateSelect(c, tv, fv);
}

}  // namespace tack::codegen

namespace tack::codegen {

namespace {

// The widest type the body computes values in. Indices, extents and loop
// variables do not count: a 64-bit index beside f32 values would halve
// the lanes, and the index arithmetic runs in as many registers as it
// needs.
class WidestValue {
public:
    explicit WidestValue(const ir::Kernel& k) : k_(k) {
        for (auto& d : k.dims) loop_vars_.push_back(d.var);
    }
    int of_body() {
        block(k_.body);
        return widest_;
    }

private:
    void block(const ir::Block& b) {
        for (auto& s : b) stmt(*s);
    }
    void stmt(const ir::Stmt& s) {
        switch (s.kind) {
            case ir::StmtKind::Store: expr(*s.as<ir::Store>()->value); return;
            case ir::StmtKind::For: {
                auto& f = *s.as<ir::For>();
                loop_vars_.push_back(f.var);
                block(f.body);
                return;
            }
            default:
                ir::for_each_child(
                    s, [&](const ir::ExprPtr& e) { expr(*e); }, [&](const ir::Block& b) { block(b); });
        }
    }
    void expr(const ir::Expr& e) {
        switch (e.kind) {
            case ir::ExprKind::Load:
            case ir::ExprKind::ArrayDim: note(e); return;
            case ir::ExprKind::Atomic:
                note(e);
                if (e.as<ir::Atomic>()->expected) expr(*e.as<ir::Atomic>()->expected);
                expr(*e.as<ir::Atomic>()->value);
                return;
            case ir::ExprKind::VarRef: {
                int v = e.as<ir::VarRef>()->var;
                if (std::find(loop_vars_.begin(), loop_vars_.end(), v) == loop_vars_.end()) note(e);
                return;
            }
            case ir::ExprKind::Cast:
                // An index computed from a loop variable converts it first.
                note(e);
                expr(*e.as<ir::Cast>()->operand);
                return;
            default:
                note(e);
                ir::for_each_child(
                    e, [&](const ir::ExprPtr& c) { expr(*c); }, [&](const ir::Block& b) { block(b); });
        }
    }
    void note(const ir::Expr& e) {
        if (e.type && e.kind != ir::ExprKind::ArrayDim) widest_ = std::max(widest_, bits_of(*e.type));
    }

    const ir::Kernel& k_;
    std::vector<int> loop_vars_;
    int widest_ = 32;
};

}  // namespace

LanePlan plan_lanes(const ir::Kernel& k, int vector_bits) {
    LanePlan plan;
    int widest = WidestValue(k).of_body();
    // Two registers' worth of lanes: each value is two independent
    // halves, so a loop-carried chain of operations (Mandelbrot's escape
    // loop) keeps the vector units busy while the other half waits.
    int lanes = std::min(16, 2 * vector_bits / widest);
    if (lanes < 2) {
        plan.why_scalar = "the host has no SIMD registers for " + std::to_string(widest) + "-bit values";
        return plan;
    }
    // Each lane has its own copy of the local arrays, on the stack of the
    // thread running the chunk.
    int64_t local_bytes = ir::private_scratch_bytes(k);
    if (local_bytes * lanes > ir::kPrivateScratchLimit) {
        plan.why_scalar = "the local arrays (" + std::to_string(local_bytes) + " bytes per iteration) would need " +
                          std::to_string(local_bytes * lanes) + " bytes of stack for " + std::to_string(lanes) +
                          " lanes";
        return plan;
    }
    plan.lanes = lanes;
    plan.straight_groups = std::max(1, 4 * vector_bits / (lanes * widest));
    return plan;
}

}  // namespace tack::codegen
