#include "codegen/llvm/emit_llvm.h"

#include <cstddef>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "analysis/workgroups.h"
#include "codegen/llvm/abi.h"
#include "codegen/llvm/emitter.h"

namespace tack::codegen {

void Emitter::emit_count(const std::string& name) {
    auto* fty = llvm::FunctionType::get(i64(), {ptr(), ptr()}, false);
    begin_function(fty, name);
    Value* refusal = fn_->getArg(1);
    auto word = [&](int64_t k) { return b_.CreateConstInBoundsGEP1_64(i64(), refusal, k); };
    auto refuse = [&](codegen::LaunchRefusal::Reason why) {
        b_.CreateStore(b_.getInt64(why), word(0));
        b_.CreateRet(b_.getInt64(-1));
    };
    emit_block(k_.prologue);
    std::vector<Value*> counts = dim_counts();

    // A step that is not positive is refused rather than run (a zero step
    // would divide by zero; Python raises ValueError for it too).
    for (size_t d = 0; d < k_.dims.size(); ++d) {
        if (!k_.dims[d].step) continue;
        DType t = *k_.vars[k_.dims[d].var].type;
        Value* step = dim_step_[d];
        Value* zero = llvm::ConstantInt::get(step->getType(), 0);
        Value* bad = is_signed_int(t) ? b_.CreateICmpSLE(step, zero) : b_.CreateICmpEQ(step, zero);
        auto* refused = block("step.refused");
        auto* fine = block("step.ok");
        b_.CreateCondBr(bad, refused, fine);
        b_.SetInsertPoint(refused);
        b_.CreateStore(b_.getInt64(static_cast<int64_t>(d)), word(1));
        b_.CreateStore(is_signed_int(t) ? b_.CreateSExt(step, i64()) : b_.CreateZExt(step, i64()), word(2));
        refuse(codegen::LaunchRefusal::StepNotPositive);
        b_.SetInsertPoint(fine);
    }

    // The product of the trip counts, refused when it passes 2^63 - 1 (the
    // flat index is an int64) unless some dimension is empty.
    Type* wide = b_.getInt128Ty();
    Value* total = llvm::ConstantInt::get(wide, 1);
    Value* overflow = b_.getFalse();
    Value* empty = b_.getFalse();
    for (auto* c : counts) {
        Value* product = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umul_with_overflow, total, c);
        total = b_.CreateExtractValue(product, 0);
        overflow = b_.CreateOr(overflow, b_.CreateExtractValue(product, 1));
        empty = b_.CreateOr(empty, b_.CreateICmpEQ(c, llvm::ConstantInt::get(wide, 0)));
    }
    Value* too_many = b_.CreateOr(overflow, b_.CreateICmpUGT(total, llvm::ConstantInt::get(wide, INT64_MAX)));
    too_many = b_.CreateAnd(too_many, b_.CreateNot(empty));
    auto* refused = block("count.refused");
    auto* fine = block("count.ok");
    b_.CreateCondBr(too_many, refused, fine);
    b_.SetInsertPoint(refused);
    b_.CreateStore(b_.getInt64(static_cast<int64_t>(counts.size())), word(3));
    for (size_t d = 0; d < counts.size(); ++d) {
        b_.CreateStore(b_.CreateTrunc(counts[d], i64()), word(4 + 2 * static_cast<int64_t>(d)));
        b_.CreateStore(b_.CreateTrunc(b_.CreateLShr(counts[d], 64), i64()), word(5 + 2 * static_cast<int64_t>(d)));
    }
    refuse(codegen::LaunchRefusal::TooManyIterations);
    b_.SetInsertPoint(fine);
    // A launch that runs: each dimension's trip count (it fits 64 bits), for
    // the runtime's chunks (the innermost is the rows' length).
    b_.CreateStore(b_.getInt64(static_cast<int64_t>(counts.size())), word(3));
    for (size_t d = 0; d < counts.size(); ++d)
        b_.CreateStore(b_.CreateTrunc(counts[d], i64()), word(4 + 2 * static_cast<int64_t>(d)));
    b_.CreateRet(b_.CreateSelect(empty, b_.getInt64(0), b_.CreateTrunc(total, i64())));
    end_function();
}

void Emitter::emit_body(const std::string& name) {
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr(), i64(), i64()}, false);
    begin_function(fty, name);
    // The lanes' vectors are legal whatever width the target prefers.
    if (lanes_ > 1) fn_->addFnAttr("min-legal-vector-width", std::to_string(lanes_ * 64));
    Value* begin = fn_->getArg(1);
    Value* end = fn_->getArg(2);
    emit_block(k_.prologue);
    // count() has refused any launch whose counts do not fit 64 bits.
    std::vector<Value*> counts = dim_counts();
    for (auto& c : counts) c = b_.CreateTrunc(c, i64());
    size_t nd = k_.dims.size();
    llvm::FunctionCallee scalar_body;
    if (lanes_ > 1) {
        // Rows narrower than a group run the scalar program.
        scalar_body = m_.getOrInsertFunction(scalar_body_, fty);
        auto* narrow = block("rows.narrow");
        auto* wide = block("rows.wide");
        b_.CreateCondBr(b_.CreateICmpULT(counts[nd - 1], b_.getInt64(lanes_)), narrow, wide);
        b_.SetInsertPoint(narrow);
        b_.CreateCall(scalar_body, {fn_->getArg(0), begin, end});
        b_.CreateRetVoid();
        b_.SetInsertPoint(wide);
    }
    std::vector<Value*> starts(nd), steps(nd);
    for (size_t d = 0; d < nd; ++d) {
        starts[d] = dim_start_[d];
        steps[d] = dim_step_[d];
    }

    // Rows of the innermost dimension: the outer indices are unravelled
    // once per row, so the inner loop is a plain counted loop.
    auto* row_head = block("row.head");
    auto* row_body = block("row.body");
    auto* done = block("done");
    auto* k_slot = entry_alloca(i64(), "k");
    b_.CreateStore(begin, k_slot);
    b_.CreateBr(row_head);

    b_.SetInsertPoint(row_head);
    Value* k = b_.CreateLoad(i64(), k_slot);
    b_.CreateCondBr(b_.CreateICmpSLT(k, end), row_body, done);

    b_.SetInsertPoint(row_body);
    Value* inner_first;
    Value* inner_count;
    Value* c_last = counts[nd - 1];
    if (nd == 1) {
        inner_first = k;
        inner_count = b_.CreateSub(end, k);
    } else {
        inner_first = b_.CreateURem(k, c_last);
        Value* q = b_.CreateUDiv(k, c_last);
        for (size_t d = nd - 1; d-- > 0;) {
            Value* idx = d == 0 ? q : b_.CreateURem(q, counts[d]);
            if (d > 0) q = b_.CreateUDiv(q, counts[d]);
            set_dim_var(d, idx, starts[d], steps[d]);
        }
        Value* left_in_row = b_.CreateSub(c_last, inner_first);
        Value* left_in_chunk = b_.CreateSub(end, k);
        inner_count = b_.CreateSelect(b_.CreateICmpULT(left_in_row, left_in_chunk), left_in_row, left_in_chunk);
    }
    Value* inner_end = b_.CreateAdd(inner_first, inner_count);
    auto* row_next = block("row.next");
    if (lanes_ > 1) {
        // Whole groups, then the scalar program for the rest of the row:
        // full groups need no mask, which keeps their loads and stores
        // plain.
        Value* whole = b_.CreateSub(inner_count, b_.CreateURem(inner_count, b_.getInt64(lanes_)));
        emit_groups(inner_first, b_.CreateAdd(inner_first, whole));
        auto* rest = block("row.rest");
        b_.CreateCondBr(b_.CreateICmpULT(whole, inner_count), rest, row_next);
        b_.SetInsertPoint(rest);
        b_.CreateCall(scalar_body, {fn_->getArg(0), b_.CreateAdd(k, whole), b_.CreateAdd(k, inner_count)});
        b_.CreateBr(row_next);
    } else {
        emit_iterations(k, inner_first, inner_end, row_next);
    }

    b_.SetInsertPoint(row_next);
    b_.CreateStore(b_.CreateAdd(k, inner_count), k_slot);
    b_.CreateBr(row_head);

    b_.SetInsertPoint(done);
    b_.CreateRetVoid();
    end_function();
}

// The scalar program: one iteration after another.
void Emitter::emit_iterations(Value* first_iteration, Value* inner_first, Value* inner_end, BasicBlock* row_next) {
    size_t nd = k_.dims.size();
    auto* head = block("it.head");
    auto* body = block("it.body");
    auto* latch = block("it.latch");
    auto* j_slot = entry_alloca(i64(), "j");
    b_.CreateStore(inner_first, j_slot);
    b_.CreateBr(head);

    b_.SetInsertPoint(head);
    Value* j = b_.CreateLoad(i64(), j_slot);
    b_.CreateCondBr(b_.CreateICmpSLT(j, inner_end), body, row_next);

    b_.SetInsertPoint(body);
    set_dim_var(nd - 1, j, dim_start_[nd - 1], dim_step_[nd - 1]);
    if (races_) {
        if (!iteration_slot_) iteration_slot_ = entry_alloca(i64(), "iteration");
        b_.CreateStore(b_.CreateAdd(first_iteration, b_.CreateSub(j, inner_first)), iteration_slot_);
    }
    loops_.push_back(LoopTargets{row_next, latch});  // `continue` ends the iteration
    in_iteration_ = true;
    emit_block(k_.body);
    in_iteration_ = false;
    loops_.pop_back();
    branch_if_open(latch);

    b_.SetInsertPoint(latch);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64(), j_slot), b_.getInt64(1)), j_slot);
    b_.CreateBr(head);
}

void Emitter::emit_result(const std::string& name) {
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr(), ptr()}, false);
    begin_function(fty, name);
    emit_block(k_.prologue);
    emit_block(k_.epilogue);
    Value* v = emit(*k_.result);
    b_.CreateStore(v, fn_->getArg(1));
    b_.CreateRetVoid();
    end_function();
}

Type* Emitter::ty(DType t) {
    switch (t) {
        case DType::I8: case DType::U8: return b_.getInt8Ty();
        case DType::I16: case DType::U16: return b_.getInt16Ty();
        case DType::I32: case DType::U32: return b_.getInt32Ty();
        case DType::I64: case DType::U64: return b_.getInt64Ty();
        case DType::F32: return b_.getFloatTy();
        case DType::F64: return b_.getDoubleTy();
    }
    return nullptr;
}

Type* Emitter::like(Type* elem, Value* shape) {
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(shape->getType())) return llvm::VectorType::get(elem, v);
    return elem;
}

void Emitter::begin_function(llvm::FunctionType* fty, const std::string& name) {
    fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    entry_ = BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry_);
    slots_.assign(k_.vars.size(), nullptr);
    arrays_.assign(k_.params.size(), ArrayValues{});
    dim_start_.clear();
    dim_step_.clear();
    Value* args = fn_->getArg(0);
    // Parameters are immutable during a launch: read them once, before
    // any store, so array stores cannot force reloads.
    size_t call_params = 0;
    for (auto& param : k_.params)
        if (param.kind != ParamKind::LocalArray) ++call_params;
    set_up_alias_scopes();
    if (debug_) debug_state_ = b_.CreateLoad(ptr(), b_.CreateConstGEP1_64(ptr(), args, call_params), "debug.state");
    for (size_t p = 0; p < k_.params.size(); ++p) {
        auto& param = k_.params[p];
        if (param.kind == ParamKind::LocalArray) {
            // Private scratch: a fixed-size stack slot per worker, reused by
            // each iteration it runs.
            ArrayValues a;
            int64_t n = 1;
            for (auto e : param.local_shape) n *= e;
            // SPMD: one copy per lane, element e of lane l at e * W + l,
            // or one copy for all lanes when they store the same values.
            int64_t copies = shared_local(static_cast<int>(p)) ? 1 : lanes_;
            auto* storage = entry_alloca(llvm::ArrayType::get(ty(param.dtype), n * copies), param.name);
            storage->setAlignment(llvm::Align(16));
            a.data = storage;
            int64_t stride = 1;
            a.strides.assign(param.ndim, nullptr);
            for (int d = param.ndim - 1; d >= 0; --d) {
                a.strides[d] = b_.getInt64(stride);
                stride *= param.local_shape[d];
            }
            for (auto e : param.local_shape) a.shape.push_back(b_.getInt64(e));
            a.component_stride = b_.getInt64(1);
            arrays_[p] = std::move(a);
            continue;
        }
        if (param.kind == ParamKind::Object) continue;  // no storage: its leaves follow
        Value* slot_ptr = b_.CreateLoad(ptr(), b_.CreateConstGEP1_64(ptr(), args, p), "arg." + std::to_string(p));
        if (param.kind == ParamKind::Array || param.kind == ParamKind::Texture) {
            if (!param.used) continue;
            ArrayValues a;
            a.data = b_.CreateLoad(ptr(), slot_ptr, "data");
            for (int d = 0; d < param.ndim; ++d)
                a.shape.push_back(b_.CreateLoad(i64(), b_.CreateConstGEP1_64(b_.getInt8Ty(), slot_ptr, 8 + 8 * d)));
            // Interleaved elements are their components in a row; a
            // structure of arrays reads its component stride.
            a.element_stride = param.soa ? 1 : param.components();
            a.component_stride = b_.getInt64(1);
            if (param.soa)
                a.component_stride = b_.CreateLoad(
                    i64(), b_.CreateConstGEP1_64(b_.getInt8Ty(), slot_ptr, offsetof(ArrayArg, component_stride)));
            if (param.contiguous) {
                a.strides.assign(param.ndim, nullptr);
                Value* s = b_.getInt64(a.element_stride);
                for (int d = param.ndim - 1; d >= 0; --d) {
                    a.strides[d] = s;
                    s = b_.CreateMul(s, a.shape[d]);
                }
            } else {
                for (int d = 0; d < param.ndim; ++d)
                    a.strides.push_back(b_.CreateLoad(
                        i64(), b_.CreateConstGEP1_64(b_.getInt8Ty(), slot_ptr, 8 + 8 * kMaxDims + 8 * d)));
                // Rows whose elements are adjacent, known when compiling:
                // LLVM vectorizes loops along them.
                if (param.unit_inner_stride && param.ndim > 0) a.strides.back() = b_.getInt64(a.element_stride);
            }
            arrays_[p] = std::move(a);
        } else {
            for (size_t v = 0; v < k_.vars.size(); ++v) {
                if (k_.vars[v].role == VarRole::Param && k_.vars[v].param == static_cast<int>(p)) {
                    Value* val = b_.CreateLoad(ty(param.dtype), slot_ptr, param.name);
                    assign(static_cast<int>(v), val);
                }
            }
        }
    }
}

void Emitter::end_function() {
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyFunction(*fn_, &os)) {
        std::string text;
        llvm::raw_string_ostream ts(text);
        fn_->print(ts);
        syntax::internal_error(kEmitPass, "invalid LLVM function: " + os.str() + "\n" + ts.str());
    }
}

llvm::AllocaInst* Emitter::entry_alloca(Type* t, const std::string& name) {
    IRBuilder<> eb(entry_, entry_->begin());
    return eb.CreateAlloca(t, nullptr, name);
}

Value* Emitter::slot(int var) {
    if (!slots_[var]) {
        auto& v = k_.vars[var];
        if (!v.type) syntax::internal_error(kEmitPass, "local '" + v.name + "' has no type");
        if (!varying_var(var)) {
            slots_[var] = entry_alloca(ty(*v.type), v.name);
        } else {
            // Lanes that never assign a variable read zeros, not poison
            // that a mask or branch could see.
            auto* a = entry_alloca(vec(ty(*v.type)), v.name);
            IRBuilder<> eb(entry_, std::next(a->getIterator()));
            eb.CreateStore(llvm::Constant::getNullValue(a->getAllocatedType()), a);
            slots_[var] = a;
        }
    }
    return slots_[var];
}

void Emitter::branch_if_open(BasicBlock* to) {
    if (open()) b_.CreateBr(to);
}

Value* Emitter::trip_count_wide(Value* start, Value* end, Value* step, DType t) {
    Type* wide = b_.getInt128Ty();
    bool s = is_signed_int(t);
    auto ext = [&](Value* v) { return s ? b_.CreateSExt(v, wide) : b_.CreateZExt(v, wide); };
    Value* ws = ext(start);
    Value* we = ext(end);
    Value* zero = llvm::ConstantInt::get(wide, 0);
    Value* one = llvm::ConstantInt::get(wide, 1);
    Value* given = ext(step);
    // A zero step selects no iteration; dividing by it would trap.
    Value* wst = b_.CreateSelect(b_.CreateICmpEQ(given, zero), one, given);
    Value* up = b_.CreateICmpSGT(given, zero);
    Value* down = b_.CreateICmpSLT(given, zero);
    // Upward: ceil((e - s) / st) when e > s; downward: ceil((s - e) / -st) when s > e.
    Value* up_n = b_.CreateSDiv(b_.CreateAdd(b_.CreateSub(we, ws), b_.CreateSub(wst, one)), wst);
    Value* neg = b_.CreateNeg(wst);
    Value* down_n = b_.CreateSDiv(b_.CreateAdd(b_.CreateSub(ws, we), b_.CreateSub(neg, one)), neg);
    Value* n = b_.CreateSelect(b_.CreateAnd(up, b_.CreateICmpSGT(we, ws)), up_n, zero);
    return b_.CreateSelect(b_.CreateAnd(down, b_.CreateICmpSGT(ws, we)), down_n, n);
}

Value* Emitter::trip_count(Value* start, Value* end, Value* step, DType t) {
    Value* n = trip_count_wide(start, end, step, t);
    Value* cap = llvm::ConstantInt::get(n->getType(), INT64_MAX);
    n = b_.CreateSelect(b_.CreateICmpSGT(n, cap), cap, n);
    return b_.CreateTrunc(n, i64());
}

std::vector<Value*> Emitter::dim_counts() {
    std::vector<Value*> counts;
    for (auto& d : k_.dims) {
        DType t = *k_.vars[d.var].type;
        Value* start = emit(*d.start);
        Value* end = emit(*d.end);
        Value* step = d.step ? emit(*d.step) : llvm::ConstantInt::get(ty(t), 1);
        dim_start_.push_back(start);
        dim_step_.push_back(step);
        counts.push_back(trip_count_wide(start, end, step, t));
    }
    return counts;
}

void Emitter::set_dim_var(size_t d, Value* idx, Value* start, Value* step) {
    int var = k_.dims[d].var;
    Value* i = b_.CreateTrunc(idx, like(ty(*k_.vars[var].type), idx));  // wraps in the variable's type: exact, as the value is in range
    unify(i, start);
    unify(i, step);
    assign(var, b_.CreateAdd(start, b_.CreateMul(i, step)));
}

void Emitter::assign(int var, Value* v) {
    Value* to = slot(var);
    if (!varying_var(var)) {
        if (v->getType()->isVectorTy())
            syntax::internal_error(kEmitPass, "a varying value assigned to uniform '" + k_.vars[var].name + "'");
        b_.CreateStore(v, to);
        return;
    }
    v = widen(v);
    // Lanes outside masked control that are inactive have left the
    // iteration (or lie past the launch): their values are never read.
    if (in_lanes() && depth_ > 0) v = b_.CreateSelect(mask(), v, b_.CreateLoad(v->getType(), to));
    b_.CreateStore(v, to);
}

void Emitter::emit_block(const Block& bl) {
    size_t scope = known_steps_.size();
    emit_statements(bl);
    known_steps_.resize(scope);
}

void Emitter::emit_statements(const Block& bl) {
    for (auto& s : bl) {
        if (!open()) b_.SetInsertPoint(block("dead"));
        emit(*s);
    }
}

void Emitter::emit(const Stmt& s) {
    switch (s.kind) {
        case StmtKind::Assign: {
            auto& a = *s.as<Assign>();
            assign(a.var, emit(*a.value));
            if (in_lanes()) note_lane_step(a);
            break;
        }
        case StmtKind::Store: {
            auto& st = *s.as<Store>();
            const Load* augmented = races_ ? augmented_load(st) : nullptr;
            augmented_load_ = augmented;
            Value* v = emit(*st.value);  // the value before the index
            augmented_load_ = nullptr;
            if (in_lanes()) {
                lane_store(st, v);
                break;
            }
            Access a = address(st.array, st.indices, st.component, st.span);
            guarded(a, nullptr, [&]() -> Value* {
                note_race(st.array, a, st.component, st.span, DebugAccess::RaceUse::Write, augmented != nullptr);
                tag(b_.CreateAlignedStore(v, a.ptr, llvm::Align(1)), st.array);
                return nullptr;
            });
            break;
        }
        case StmtKind::Eval: emit(*s.as<Eval>()->value); break;
        case StmtKind::Print: emit_print(*s.as<Print>()); break;
        case StmtKind::If: emit_if(*s.as<If>()); break;
        case StmtKind::For: emit_for(*s.as<For>()); break;
        case StmtKind::While: emit_while(*s.as<While>()); break;
        case StmtKind::Break: emit_exit(true); break;
        case StmtKind::Continue: emit_exit(false); break;
        case StmtKind::Barrier: syntax::internal_error(kEmitPass, "a barrier reached the CPU backend");
    }
}

void Emitter::emit_if(const If& i) {
    if (varying(*i.cond)) return lane_if(i);
    Value* c = truth(*i.cond);
    auto* then_bb = block("then");
    auto* else_bb = block("else");
    auto* join = block("endif");
    b_.CreateCondBr(c, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    emit_block(i.then_body);
    branch_if_open(join);
    b_.SetInsertPoint(else_bb);
    emit_block(i.else_body);
    branch_if_open(join);
    b_.SetInsertPoint(join);
}

void Emitter::emit_while(const While& w) {
    if (in_lanes() && (varying(*w.cond) || analysis::has_partial_exit(w.body, *labels_))) return lane_loop(w);
    auto* head = block("while.head");
    auto* body = block("while.body");
    auto* exit = block("while.exit");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    b_.CreateCondBr(truth(*w.cond), body, exit);
    b_.SetInsertPoint(body);
    loops_.push_back(LoopTargets{exit, head, depth_});
    emit_block(w.body);
    loops_.pop_back();
    branch_if_open(head);
    b_.SetInsertPoint(exit);
}

// A `break` or `continue` that every active lane takes is a branch; one
// under masked control within its loop removes the lanes taking it.
void Emitter::emit_exit(bool is_break) {
    if (loops_.empty()) syntax::internal_error(kEmitPass, is_break ? "break outside a loop" : "continue outside a loop");
    LoopTargets& loop = loops_.back();
    if (!in_lanes() || depth_ == loop.depth) {
        b_.CreateBr(is_break ? loop.break_to : loop.continue_to);
        return;
    }
    Value* none = llvm::Constant::getNullValue(vec(b_.getInt1Ty()));
    if (!is_break) {
        if (loop.continued) store_mask(loop.continued, b_.CreateOr(load_mask(loop.continued), mask()));
        else iteration_left_ = true;  // the parallel loop's: the lanes' iteration is over
    }
    set_mask(none);
}

// Values go to the runtime as (dtype, 64-bit payload) pairs; it formats
// and writes the whole line at once. SPMD: each active lane prints its
// line, in lane order.
void Emitter::emit_print(const Print& p) {
    std::vector<Value*> values;
    for (auto& a : p.args) values.push_back(emit(*a));
    if (!in_lanes()) {
        print_values(p, values);
        return;
    }
    count_work(&LaneWork::serial);
    for (auto*& v : values) v = widen(v);
    each_active_lane(nullptr, [&](Value* lane) -> Value* {
        std::vector<Value*> scalars;
        for (auto* v : values) scalars.push_back(b_.CreateExtractElement(v, lane));
        print_values(p, scalars);
        return nullptr;
    });
}

void Emitter::print_values(const Print& p, const std::vector<Value*>& args) {
    size_t n = std::max<size_t>(p.args.size(), 1);
    auto* kinds = entry_alloca(llvm::ArrayType::get(b_.getInt8Ty(), n), "print.kinds");
    auto* values = entry_alloca(llvm::ArrayType::get(i64(), n), "print.values");
    std::vector<uint8_t> marks = ir::print_kinds(p);
    for (size_t i = 0; i < p.args.size(); ++i) {
        Value* v = args[i];
        DType t = p.args[i]->dtype();
        Value* payload;
        if (is_float(t)) {
            if (t == DType::F32) v = b_.CreateFPExt(v, b_.getDoubleTy());
            payload = b_.CreateBitCast(v, i64());
        } else if (bits_of(t) == 64) {
            payload = v;
        } else {
            payload = is_signed_int(t) ? b_.CreateSExt(v, i64()) : b_.CreateZExt(v, i64());
        }
        b_.CreateStore(b_.getInt8(marks[i]), b_.CreateConstGEP1_64(b_.getInt8Ty(), kinds, i));
        b_.CreateStore(payload, b_.CreateConstGEP1_64(i64(), values, i));
    }
    auto callee = m_.getOrInsertFunction(
        "tack_rt_print", llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt32Ty(), ptr(), ptr()}, false));
    b_.CreateCall(callee, {b_.getInt32(static_cast<int>(p.args.size())), kinds, values});
}

namespace {

// The most iterations of a loop over a tile's elements that vectorize_first
// hints: a longer loop is not unrolled before the vectorizer anyway, and
// unrolled in full after it would make code in proportion to the tile (a
// chain of 40 operations on tiles of 16384 elements took minutes to compile).
constexpr int64_t kVectorizeFirstTrips = 256;

// A loop over a tile's elements, hinted on its back edge `latch`: not
// unrolled before the loop vectorizer runs (LLVM unrolls small constant
// loops first, and without the SLP vectorizer the unrolled copies stay
// scalar), and unrolled in full once vectorized, so that SROA then keeps
// the tile's vectors in registers.
void vectorize_first(llvm::Instruction* latch) {
    auto& c = latch->getContext();
    auto node = [&](std::initializer_list<llvm::Metadata*> ops) { return llvm::MDNode::get(c, ops); };
    auto name = [&](const char* s) { return llvm::MDString::get(c, s); };
    auto* unroll_full = node({name("llvm.loop.unroll.full")});
    std::vector<llvm::Metadata*> props = {nullptr, node({name("llvm.loop.unroll.disable")}),
                                          node({name("llvm.loop.vectorize.followup_vectorized"), unroll_full}),
                                          node({name("llvm.loop.vectorize.followup_epilogue"), unroll_full})};
    auto* loop = llvm::MDNode::getDistinct(c, props);
    loop->replaceOperandWith(0, loop);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
}

}  // namespace

void hint_loop(llvm::Instruction* latch, std::initializer_list<std::pair<const char*, int>> hints) {
    auto& c = latch->getContext();
    std::vector<llvm::Metadata*> props = {nullptr};
    for (auto& [name, value] : hints) {
        std::vector<llvm::Metadata*> prop = {llvm::MDString::get(c, name)};
        if (value >= 0)
            prop.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), value)));
        props.push_back(llvm::MDNode::get(c, prop));
    }
    auto* loop = llvm::MDNode::getDistinct(c, props);
    loop->replaceOperandWith(0, loop);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
}

void Emitter::emit_for(const For& f) {
    if (in_lanes() && (varying(*f.start) || varying(*f.end) || varying(*f.step) ||
                       analysis::has_partial_exit(f.body, *labels_)))
        return lane_loop(f);
    DType t = *k_.vars[f.var].type;
    Value* start = emit(*f.start);
    Value* end = emit(*f.end);
    Value* step = emit(*f.step);
    Value* count = trip_count(start, end, step, t);
    auto* counter = entry_alloca(i64(), "for.k");
    b_.CreateStore(b_.getInt64(0), counter);
    auto* trips = llvm::dyn_cast<llvm::ConstantInt>(count);
    // A loop over a tile's elements (a constant count of at least one) tests
    // at its bottom alone, the form LLVM's LoopRotate gives loops: tile
    // kernels have hundreds of such loops, and rotating them took LLVM as
    // long as optimizing the rest of them (docs/backends.md, "The CPU's LLVM
    // pipeline"). Any other loop tests at its top and is rotated by LLVM,
    // which derives ranges of its counter from the top test first (a
    // bottom test alone lost them for loops of varying counts: a tuned
    // matmul ran 10-25 % slower; Python kernels' loops keep the form their
    // code was tuned under).
    const bool bottom_tested = f.over_elements && trips && trips->getSExtValue() > 0;
    auto* head = bottom_tested ? nullptr : block("for.head");
    auto* body = block("for.body");
    auto* latch = block("for.latch");
    auto* exit = block("for.exit");
    b_.CreateBr(bottom_tested ? body : head);
    if (head) {
        b_.SetInsertPoint(head);
        b_.CreateCondBr(b_.CreateICmpSLT(b_.CreateLoad(i64(), counter), count), body, exit);
    }
    b_.SetInsertPoint(body);
    Value* i = b_.CreateTrunc(b_.CreateLoad(i64(), counter), ty(t));
    assign(f.var, b_.CreateAdd(start, b_.CreateMul(i, step)));
    loops_.push_back(LoopTargets{exit, latch, depth_});
    emit_block(f.body);
    loops_.pop_back();
    branch_if_open(latch);
    b_.SetInsertPoint(latch);
    // Below the count, which fits 63 bits: the next count wraps neither way
    // (which LLVM learns of the top-tested form from its test).
    Value* next = b_.CreateAdd(b_.CreateLoad(i64(), counter), b_.getInt64(1), "", bottom_tested, bottom_tested);
    b_.CreateStore(next, counter);
    auto* back = head ? b_.CreateBr(head) : b_.CreateCondBr(b_.CreateICmpSLT(next, count), body, exit);
    if (f.over_elements && !in_lanes() && trips && trips->getSExtValue() <= kVectorizeFirstTrips)
        vectorize_first(back);
    else if (f.rolled)
        hint_loop(back, {{"llvm.loop.unroll.disable", -1}, {"llvm.loop.vectorize.width", 1},
                         {"llvm.loop.interleave.count", 1}});
    b_.SetInsertPoint(exit);
}

Value* Emitter::index64(const Expr& e) {
    Value* v = emit(e);
    DType t = e.dtype();
    if (bits_of(t) == 64) return v;
    return is_signed_int(t) ? b_.CreateSExt(v, like(i64(), v)) : b_.CreateZExt(v, like(i64(), v));
}

Emitter::Access Emitter::address(int array, const std::vector<ExprPtr>& indices, int component, Span span) {
    auto& param = k_.params[array];
    auto& a = arrays_[array];
    if (!a.data) syntax::internal_error(kEmitPass, "array '" + param.name + "' used but not loaded");
    std::vector<Value*> idx;
    for (auto& e : indices) idx.push_back(index64(*e));
    Access out;
    if (debug_) out.in_bounds = bounds_check(array, idx, span);
    if (races_) out.indices = idx;
    out.ptr = b_.CreateGEP(ty(param.dtype), a.data, offset_of(array, idx, component));
    return out;
}

// An element's offset from the data pointer, in scalars; a vector of
// offsets when an index varies.
Value* Emitter::offset_of(int array, const std::vector<Value*>& idx_in, int component) {
    auto& param = k_.params[array];
    auto& a = arrays_[array];
    std::vector<Value*> idx = idx_in;
    bool lanes = false;
    for (auto* i : idx) lanes = lanes || i->getType()->isVectorTy();
    auto u = [&](Value* v) { return lanes ? widen(v) : v; };
    if (lanes)
        for (auto*& i : idx) i = widen(i);
    Value* offset;
    if (static_cast<int>(idx.size()) == param.ndim) {
        offset = b_.CreateMul(idx[0], u(a.strides[0]));
        for (size_t d = 1; d < idx.size(); ++d) offset = b_.CreateAdd(offset, b_.CreateMul(idx[d], u(a.strides[d])));
    } else if (param.contiguous) {
        offset = b_.CreateMul(idx[0], u(b_.getInt64(a.element_stride)));  // a flat row-major index
    } else {
        // A flat index into a strided view: unravel by the extents. (Lanes
        // with an inactive, garbage index may divide by anything but zero:
        // an extent of zero leaves no element to index.)
        Value* q = idx[0];
        offset = u(b_.getInt64(0));
        for (int d = param.ndim - 1; d >= 0; --d) {
            Value* i = d == 0 ? q : b_.CreateSRem(q, u(a.shape[d]));
            if (d > 0) q = b_.CreateSDiv(q, u(a.shape[d]));
            offset = b_.CreateAdd(offset, b_.CreateMul(i, u(a.strides[d])));
        }
    }
    if (component != 0)
        offset = b_.CreateAdd(offset, b_.CreateMul(u(b_.getInt64(component)), u(a.component_stride)));
    return offset;
}

// The disjoint-storage variant: each array parameter is its own alias
// scope, and an access to one promises not to touch the others. Dispatch
// uses this variant only for calls whose written arrays share no byte with
// any other array argument.
void Emitter::set_up_alias_scopes() {
    if (!noalias_) return;
    llvm::MDBuilder mdb(ctx_);
    llvm::MDNode* domain = mdb.createAliasScopeDomain(prefix_ + ".arguments");
    scopes_.assign(k_.params.size(), nullptr);
    for (size_t p = 0; p < k_.params.size(); ++p)
        if (k_.params[p].kind == ParamKind::Array) scopes_[p] = mdb.createAliasScope(k_.params[p].name, domain);
}


// Debug mode: every index within its extent, one dimension at a time (a
// flat index within the element count). A failure is reported to the
// runtime, which keeps the first, and the access is skipped.
Value* Emitter::bounds_check(int array, const std::vector<Value*>& idx, Span span) {
    auto& param = k_.params[array];
    auto& a = arrays_[array];
    Value* ok = b_.getTrue();
    Value* extent_total = nullptr;
    if (static_cast<int>(idx.size()) == param.ndim) {
        for (size_t d = 0; d < idx.size(); ++d) ok = b_.CreateAnd(ok, b_.CreateICmpULT(idx[d], a.shape[d]));
    } else {
        extent_total = b_.getInt64(1);
        for (auto* s : a.shape) extent_total = b_.CreateMul(extent_total, s);
        ok = b_.CreateICmpULT(idx[0], extent_total);
    }
    auto* fail_bb = block("bounds.fail");
    auto* cont = block("bounds.ok");
    b_.CreateCondBr(ok, cont, fail_bb);
    b_.SetInsertPoint(fail_bb);
    auto* values = entry_alloca(llvm::ArrayType::get(i64(), 16), "bounds.values");
    for (size_t d = 0; d < idx.size(); ++d) b_.CreateStore(idx[d], b_.CreateConstGEP1_64(i64(), values, d));
    if (extent_total) {
        b_.CreateStore(extent_total, b_.CreateConstGEP1_64(i64(), values, 8));
    } else {
        for (size_t d = 0; d < a.shape.size(); ++d) b_.CreateStore(a.shape[d], b_.CreateConstGEP1_64(i64(), values, 8 + d));
    }
    report_failure(DebugAccess{array, span, static_cast<int>(idx.size())}, values);
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
    return ok;
}

void Emitter::check_divisor(Value* by_zero, Span span) {
    auto* fail_bb = block("divisor.zero");
    auto* cont = block("divisor.ok");
    b_.CreateCondBr(by_zero, fail_bb, cont);
    b_.SetInsertPoint(fail_bb);
    report_failure(DebugAccess{-1, span, 0, DebugAccess::Check::ZeroDivisor},
                   entry_alloca(llvm::ArrayType::get(i64(), 16), "bounds.values"));
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
}

// Records `check` and reports it, with the 16 words at `values`, to the
// runtime, which keeps the first report of a launch.
void Emitter::report_failure(DebugAccess check, Value* values) {
    int id = static_cast<int>(debug_accesses_->size());
    debug_accesses_->push_back(check);
    auto callee = m_.getOrInsertFunction(
        "tack_rt_bounds_failure", llvm::FunctionType::get(b_.getVoidTy(), {ptr(), b_.getInt32Ty(), ptr()}, false));
    b_.CreateCall(callee, {debug_state_, b_.getInt32(id), values});
}

// Runs `emit_access` only where the access is in bounds (always outside
// debug mode); a skipped load yields zero.
Value* Emitter::guarded(const Access& a, Type* result, const std::function<Value*()>& emit_access) {
    if (!a.in_bounds) return emit_access();
    return only_if(a.in_bounds, result, emit_access, "access");
}

Value* Emitter::only_if(Value* cond, Type* result, const std::function<Value*()>& emit_then, const char* name) {
    auto* do_bb = block(name);
    auto* join = block("only_if.join");
    BasicBlock* from = b_.GetInsertBlock();
    b_.CreateCondBr(cond, do_bb, join);
    b_.SetInsertPoint(do_bb);
    Value* v = emit_then();
    BasicBlock* do_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    if (!result) return nullptr;
    auto* phi = b_.CreatePHI(result, 2);
    phi->addIncoming(llvm::Constant::getNullValue(result), from);
    phi->addIncoming(v, do_end);
    return phi;
}

// An atomic read-modify-write (LLVM monotonic ordering, natural alignment,
// which dispatch checks for imported storage). Floating extrema use a
// compare-and-swap loop on the integer bits, contributing the value once.
Value* Emitter::atomic(const Atomic& at) {
    if (in_lanes()) {
        // Each active lane's update, in lane order.
        count_work(&LaneWork::serial);
        Access acc = lane_address(at.array, at.indices, at.component, at.span);
        Value* ptrs = widen(acc.ptr);
        Value* expected = at.expected ? widen(emit(*at.expected)) : nullptr;
        Value* v = widen(emit(*at.value));
        return each_lane_of(access_lanes(acc), ty(at.dtype()), [&](Value* lane) {
            return atomic_at(at, b_.CreateExtractElement(ptrs, lane),
                             expected ? b_.CreateExtractElement(expected, lane) : nullptr,
                             b_.CreateExtractElement(v, lane));
        });
    }
    Access acc = address(at.array, at.indices, at.component, at.span);
    Value* expected = at.expected ? emit(*at.expected) : nullptr;
    Value* v = emit(*at.value);
    return guarded(acc, ty(at.dtype()), [&]() -> Value* {
        note_race(at.array, acc, at.component, at.span, DebugAccess::RaceUse::Atomic, false);
        return atomic_at(at, acc.ptr, expected, v);
    });
}

// `expected` is the compare-and-swap's comparand (null for the others).
// Compare-and-swap and exchange work on the element's integer bits, so a
// floating compare-and-swap compares bit patterns: -0.0 is not 0.0, and a
// NaN matches the same NaN.
Value* Emitter::atomic_at(const Atomic& at, Value* ptr, Value* expected, Value* v) {
    DType t = at.dtype();
    Type* vt = ty(t);
    llvm::Align align(size_of(t));
    Access acc;
    acc.ptr = ptr;
    {
        auto order = llvm::AtomicOrdering::Monotonic;
        if (at.op == AtomicOp::Cas || at.op == AtomicOp::Exch) {
            Type* it = b_.getIntNTy(bits_of(t));
            Value* bits = b_.CreateBitCast(v, it);
            Value* seen;
            if (at.op == AtomicOp::Exch) {
                seen = tag(b_.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, acc.ptr, bits, align, order), at.array);
            } else {
                auto* cas = tag(b_.CreateAtomicCmpXchg(acc.ptr, b_.CreateBitCast(expected, it), bits, align, order, order),
                                at.array);
                seen = b_.CreateExtractValue(cas, 0);
            }
            return b_.CreateBitCast(seen, vt);
        }
        if (is_int(t)) {
            llvm::AtomicRMWInst::BinOp op = llvm::AtomicRMWInst::Add;
            bool s = is_signed_int(t);
            if (at.op == AtomicOp::Sub) op = llvm::AtomicRMWInst::Sub;
            if (at.op == AtomicOp::Min) op = s ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin;
            if (at.op == AtomicOp::Max) op = s ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax;
            return tag(b_.CreateAtomicRMW(op, acc.ptr, v, align, order), at.array);
        }
        if (at.op == AtomicOp::Add || at.op == AtomicOp::Sub)
            return tag(b_.CreateAtomicRMW(at.op == AtomicOp::Add ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::FSub,
                                          acc.ptr, v, align, order),
                       at.array);
        Type* it = b_.getIntNTy(bits_of(t));
        auto* head = block("cas.head");
        auto* done = block("cas.done");
        auto* init = b_.CreateAlignedLoad(it, acc.ptr, align);
        init->setAtomic(order);
        tag(init, at.array);
        BasicBlock* from = b_.GetInsertBlock();
        b_.CreateBr(head);
        b_.SetInsertPoint(head);
        auto* old_bits = b_.CreatePHI(it, 2);
        old_bits->addIncoming(init, from);
        Value* old = b_.CreateBitCast(old_bits, vt);
        Value* want = b_.CreateBinaryIntrinsic(
            at.op == AtomicOp::Min ? llvm::Intrinsic::minnum : llvm::Intrinsic::maxnum, old, v);
        auto* cas = tag(b_.CreateAtomicCmpXchg(acc.ptr, old_bits, b_.CreateBitCast(want, it), align, order, order), at.array);
        Value* seen = b_.CreateExtractValue(cas, 0);
        Value* ok = b_.CreateExtractValue(cas, 1);
        old_bits->addIncoming(seen, b_.GetInsertBlock());
        b_.CreateCondBr(ok, done, head);
        b_.SetInsertPoint(done);
        return old;
    }
}

// A scalar as a condition: nonzero is true, and NaN is true.
Value* Emitter::truth(const Expr& e) {
    Value* v = emit(e);
    if (is_float(e.dtype())) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
}

Value* Emitter::emit(const Expr& e) {
    if (in_lanes() && labels_->varying(e)) {
        switch (e.kind) {
            case ExprKind::Load:
            case ExprKind::Unary:
            case ExprKind::Binary:
            case ExprKind::Compare:
            case ExprKind::Logical:
            case ExprKind::Select:
            case ExprKind::Cast:
            case ExprKind::Math: count_work(&LaneWork::in_vectors); break;
            default: break;
        }
    }
    switch (e.kind) {
        case ExprKind::IntConst:
            return llvm::ConstantInt::get(ty(e.dtype()), e.as<IntConst>()->bits, false);
        case ExprKind::FloatConst:
            // The literal's exact binary64 value, rounded once to its type.
            return llvm::ConstantFP::get(ty(e.dtype()), e.as<FloatConst>()->value);
        case ExprKind::VarRef: {
            int v = e.as<VarRef>()->var;
            Value* s = slot(v);
            Value* x = b_.CreateLoad(varying_var(v) ? vec(ty(*k_.vars[v].type)) : ty(*k_.vars[v].type), s);
            // Before the lanes part (the prologue, the bounds), every lane
            // holds the same value.
            if (varying_var(v) && !in_lanes()) x = b_.CreateExtractElement(x, b_.getInt32(0));
            return x;
        }
        case ExprKind::Load: {
            auto& l = *e.as<Load>();
            if (in_lanes()) return lane_load(l);
            Access a = address(l.array, l.indices, l.component, l.span);
            return guarded(a, ty(e.dtype()), [&] {
                note_race(l.array, a, l.component, l.span, DebugAccess::RaceUse::Read, &l == augmented_load_);
                return tag(b_.CreateAlignedLoad(ty(e.dtype()), a.ptr, llvm::Align(1)), l.array);
            });
        }
        case ExprKind::Atomic: {
            return atomic(*e.as<Atomic>());
        }
        case ExprKind::ArrayDim: {
            auto& d = *e.as<ArrayDim>();
            return arrays_[d.array].shape[d.dim];
        }
        case ExprKind::Unary: return unary(*e.as<Unary>());
        case ExprKind::Binary: return binary(*e.as<Binary>());
        case ExprKind::Compare: return compare(*e.as<Compare>());
        case ExprKind::Logical: return logical(*e.as<Logical>());
        case ExprKind::Select: return select(*e.as<Select>());
        case ExprKind::Cast: return cast(*e.as<Cast>());
        case ExprKind::Math: return math(*e.as<Math>());
        case ExprKind::ThreadId:
        case ExprKind::BlockReduce: syntax::internal_error(kEmitPass, "a workgroup primitive reached the CPU backend");
        case ExprKind::TextureSample: syntax::internal_error(kEmitPass, "a hardware texture sample reached the CPU backend");
        case ExprKind::StmtExpr: {
            auto& s = *e.as<StmtExpr>();
            size_t scope = known_steps_.size();
            emit_statements(s.stmts);
            if (!open()) b_.SetInsertPoint(block("dead"));
            Value* v = emit(*s.value);
            known_steps_.resize(scope);
            return v;
        }
    }
    syntax::internal_error(kEmitPass, "unknown expression");
}

Value* Emitter::logical(const Logical& l) {
    if (varying(*l.lhs)) return lane_logical(l);
    Value* lhs = truth(*l.lhs);
    BasicBlock* from = b_.GetInsertBlock();
    auto* rhs_bb = block(l.op == LogicOp::And ? "and.rhs" : "or.rhs");
    auto* join = block("logic.join");
    if (l.op == LogicOp::And) b_.CreateCondBr(lhs, rhs_bb, join);
    else b_.CreateCondBr(lhs, join, rhs_bb);
    b_.SetInsertPoint(rhs_bb);
    Value* rhs = truth(*l.rhs);
    if (varying(l)) rhs = widen(rhs);
    BasicBlock* rhs_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    auto* phi = b_.CreatePHI(rhs->getType(), 2);
    phi->addIncoming(llvm::ConstantInt::get(rhs->getType(), l.op == LogicOp::Or), from);
    phi->addIncoming(rhs, rhs_end);
    return bool32(phi);
}

Value* Emitter::select(const Select& s) {
    if (varying(*s.cond)) return lane_select(s);
    Value* c = truth(*s.cond);
    bool lanes = varying(s);
    auto* t_bb = block("sel.true");
    auto* f_bb = block("sel.false");
    auto* join = block("sel.join");
    b_.CreateCondBr(c, t_bb, f_bb);
    b_.SetInsertPoint(t_bb);
    Value* tv = emit(*s.if_true);
    if (lanes) tv = widen(tv);
    BasicBlock* t_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(f_bb);
    Value* fv = emit(*s.if_false);
    if (lanes) fv = widen(fv);
    BasicBlock* f_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    auto* phi = b_.CreatePHI(tv->getType(), 2);
    phi->addIncoming(tv, t_end);
    phi->addIncoming(fv, f_end);
    return phi;
}



namespace {

std::unique_ptr<llvm::Module> emit_module(const Kernel& k, llvm::LLVMContext& ctx, const std::string& symbol_prefix,
                                          const EmitOptions& options, EntryNames* names,
                                          std::vector<DebugAccess>* debug_accesses, LaneWork* work,
                                          ScalarBodyModule* apart) {
    auto m = std::make_unique<llvm::Module>(symbol_prefix, ctx);
    names->count = symbol_prefix + ".count";
    names->body = symbol_prefix + ".body";
    names->result = k.result ? symbol_prefix + ".result" : "";
    std::vector<DebugAccess> accesses;
    auto run = [&](llvm::LLVMContext& c, llvm::Module& into, auto&& emit_entry) {
        Emitter e(k, c, into, symbol_prefix, options.debug, &accesses);
        e.set_noalias(options.noalias);
        e.set_races(options.races);
        emit_entry(e);
    };
    run(ctx, *m, [&](Emitter& e) { e.emit_count(names->count); });
    analysis::Uniformity labels;
    std::string scalar_body;
    if (options.lanes > 1) {
        labels = analysis::simd_lane_labels(k);
        // The scalar program runs what does not fill a group: in this
        // module, or in a module of its own that compiles beside it.
        scalar_body = symbol_prefix + ".body.scalar";
        llvm::Module* into = m.get();
        if (apart) {
            apart->module = std::make_unique<llvm::Module>(scalar_body, *apart->context);
            into = apart->module.get();
        }
        run(apart ? *apart->context : ctx, *into, [&](Emitter& e) { e.emit_body(scalar_body); });
        // Called once per chunk or row at most for fewer iterations than a
        // group: one copy, not inlined, optimized for size (no loop
        // vectorizing or unrolling to compile for so few iterations).
        llvm::Function* scalar = into->getFunction(scalar_body);
        if (!apart) scalar->setLinkage(llvm::GlobalValue::InternalLinkage);
        scalar->addFnAttr(llvm::Attribute::NoInline);
        scalar->addFnAttr(llvm::Attribute::OptimizeForSize);
    }
    run(ctx, *m, [&](Emitter& e) {
        if (options.lanes > 1) e.set_lanes(options.lanes, options.straight_groups, &labels, scalar_body);
        e.emit_body(names->body);
        *work = e.lane_work();
    });
    if (k.result) run(ctx, *m, [&](Emitter& e) { e.emit_result(names->result); });
    if (debug_accesses) *debug_accesses = std::move(accesses);
    return m;
}

}  // namespace

std::unique_ptr<llvm::Module> emit_llvm(const Kernel& k, llvm::LLVMContext& ctx, const std::string& symbol_prefix,
                                        const EmitOptions& options, EntryNames* names,
                                        std::vector<DebugAccess>* debug_accesses, LanePlan* chosen,
                                        ScalarBodyModule* apart) {
    // The CPU has no workgroups (the driver refuses such kernels before
    // this; a direct caller is refused the same way).
    analysis::require_no_workgroups(k, "the CPU backend", analysis::kWithoutWorkgroupsHint);
    if (options.races && options.lanes > 1) syntax::internal_error(kEmitPass, "race checks need the scalar program");
    LaneWork work;
    auto m = emit_module(k, ctx, symbol_prefix, options, names, debug_accesses, &work, apart);
    if (chosen) chosen->lanes = options.lanes;
    if (options.lanes == 1 || options.always_lanes) return m;
    // What the lanes do is known once their body is emitted; where it is
    // mostly lane by lane, the scalar program replaces it.
    auto why = why_lanes_do_not_pay(work, options.lanes);
    if (!why) return m;
    if (chosen) *chosen = LanePlan{1, *why};
    if (apart) apart->module.reset();
    EmitOptions scalar = options;
    scalar.lanes = 1;
    return emit_module(k, ctx, symbol_prefix, scalar, names, debug_accesses, &work, nullptr);
}

}  // namespace tack::codegen
