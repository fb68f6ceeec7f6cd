// The LLVM emitter's state, shared by emit_llvm.cpp (entry points, control
// flow, memory) and emit_arith.cpp (operators, conversions, math). Private
// to the LLVM code generator.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/uniformity.h"
#include "codegen/llvm/emit_llvm.h"
#include "codegen/llvm/lane_cost.h"
#include "ir/ir.h"

namespace tack::codegen {

using namespace ir;
using llvm::BasicBlock;
using llvm::IRBuilder;
using llvm::Type;
using llvm::Value;

inline constexpr const char* kEmitPass = "emit_llvm";

// Loop hints (llvm.loop.* properties, with an integer value or, given -1,
// none) on the back edge `latch` of a loop.
void hint_loop(llvm::Instruction* latch, std::initializer_list<std::pair<const char*, int>> hints);

class Emitter {
public:
    // In debug mode, checked accesses are appended to `accesses`; a report
    // names one by its position there, unique across the module's entries.
    Emitter(const Kernel& k, llvm::LLVMContext& ctx, llvm::Module& m, std::string prefix, bool debug,
            std::vector<DebugAccess>* accesses)
        : k_(k), ctx_(ctx), m_(m), b_(ctx), prefix_(std::move(prefix)), debug_(debug), debug_accesses_(accesses) {}

    void set_noalias(bool on) { noalias_ = on; }
    // Debug mode's race detector (emit_races.cpp): the scalar program
    // reports its accesses to the arrays the kernel writes, and to every
    // array unless the variant is the disjoint-storage one. After
    // set_noalias.
    void set_races(bool on);
    // The SPMD body (emit_lanes.cpp): `lanes` consecutive iterations of the
    // innermost dimension per group, values labeled by `labels`
    // (analysis::simd_lane_labels). Set before emit_body.
    // The iterations that do not fill a group run `scalar_body`, the scalar
    // program's body entry.
    void set_lanes(int lanes, int straight_groups, const analysis::Uniformity* labels, std::string scalar_body) {
        lanes_ = lanes;
        straight_groups_ = straight_groups;
        labels_ = labels;
        scalar_body_ = std::move(scalar_body);
        note_assignments();
    }
    void emit_count(const std::string& name);
    void emit_body(const std::string& name);
    void emit_result(const std::string& name);
    // SPMD: what the body's lanes do, counted as it was emitted.
    const LaneWork& lane_work() const { return work_; }

private:
    struct LoopTargets {
        BasicBlock* break_to;
        BasicBlock* continue_to;
        // SPMD: the masked-control depth of the loop's body, and the lanes
        // that took a masked `continue` this iteration (null for a loop
        // whose exits all lanes take together).
        int depth = 0;
        llvm::AllocaInst* continued = nullptr;
    };
    struct Access {
        Value* ptr = nullptr;        // SPMD: a vector of pointers when the offset varies
        Value* in_bounds = nullptr;  // debug mode only
        // SPMD, varying offsets: the first lane's pointer, and whether the
        // lanes' elements are consecutive (a runtime i1; true for a local
        // array at a uniform offset).
        Value* first = nullptr;
        Value* consecutive = nullptr;
        // Race-checking code, scalar program: the indices, as 64-bit values.
        std::vector<Value*> indices;
    };
    struct ArrayValues {
        Value* data = nullptr;
        std::vector<Value*> shape, strides;
        Value* component_stride = nullptr;
        int64_t element_stride = 1;  // scalars per element of a contiguous array
    };

    // ------------------------------------------------------------ types

    Type* i64() { return b_.getInt64Ty(); }
    Type* ptr() { return b_.getPtrTy(); }
    Type* ty(DType t);
    // SPMD: a varying variable's or value's type, <W x T>.
    Type* vec(Type* t) { return llvm::FixedVectorType::get(t, static_cast<unsigned>(lanes_)); }
    // `elem`, as a vector of as many lanes as `shape` has (scalar for a scalar).
    Type* like(Type* elem, Value* shape);

    // ------------------------------------------------------- functions

    void begin_function(llvm::FunctionType* fty, const std::string& name);

    void end_function();

    llvm::AllocaInst* entry_alloca(Type* t, const std::string& name);

    Value* slot(int var);

    BasicBlock* block(const char* name) { return BasicBlock::Create(ctx_, name, fn_); }

    bool open() const { return b_.GetInsertBlock()->getTerminator() == nullptr; }
    void branch_if_open(BasicBlock* to);

    // ---------------------------------------------------- iteration space

    // The number of values start, start + step, ... below end, in 128 bits
    // (a 64-bit interval can hold 2^64 values); 0 for an empty or reversed
    // interval or a zero step.
    // Debug mode: reports a division by zero (`by_zero` true) at `span`.
    void check_divisor(Value* by_zero, Span span);
    void report_failure(DebugAccess check, Value* values);
    Value* trip_count_wide(Value* start, Value* end, Value* step, DType t);
    // The same, capped at 2^63 - 1, for a sequential loop's 64-bit counter.
    Value* trip_count(Value* start, Value* end, Value* step, DType t);

    // Each parallel dimension's trip count, in 128 bits.
    std::vector<Value*> dim_counts();

    void set_dim_var(size_t d, Value* idx, Value* start, Value* step);
    // Stores `v` to a variable: broadcast to a varying variable's lanes, and
    // under masked control only in the active lanes.
    void assign(int var, Value* v);

    // ------------------------------------------------------- statements

    // A block's statements; what they teach the lanes about their variables
    // (note_lane_step) holds until the block ends.
    void emit_block(const Block& bl);
    void emit_statements(const Block& bl);

    void emit(const Stmt& s);

    // `first_iteration`: the flat iteration number of `inner_first`.
    void emit_iterations(Value* first_iteration, Value* inner_first, Value* inner_end, BasicBlock* row_next);
    void emit_if(const If& i);
    void emit_while(const While& w);
    void emit_for(const For& f);
    void emit_exit(bool is_break);
    void emit_print(const Print& p);
    void print_values(const Print& p, const std::vector<Value*>& values);

    // ------------------------------------------------------ expressions

    Value* index64(const Expr& e);

    Access address(int array, const std::vector<ExprPtr>& indices, int component, Span span);
    Value* bounds_check(int array, const std::vector<Value*>& idx, Span span);
    Value* offset_of(int array, const std::vector<Value*>& idx, int component);
    Value* guarded(const Access& a, Type* result, const std::function<Value*()>& emit_access);
    // Race-checking code: reports an in-bounds access inside the parallel
    // loop to an array the kernel writes (emit_races.cpp).
    void note_race(int array, const Access& a, int component, Span span, DebugAccess::RaceUse use, bool augmented);
    // The load of `st`'s own element that an augmented store (a[i] += v)
    // lowers to, if `st` is one.
    static const Load* augmented_load(const Store& st);
    // Runs `emit_then` only when `cond` holds; its value (of type `result`,
    // or nothing) or zero.
    Value* only_if(Value* cond, Type* result, const std::function<Value*()>& emit_then, const char* name);
    Value* atomic(const Atomic& at);
    Value* atomic_at(const Atomic& at, Value* ptr, Value* expected, Value* v);
    void set_up_alias_scopes();
    // Marks an access to `array` with its alias scope (the disjoint-storage
    // variant).
    template <typename I>
    I* tag(I* inst, int array) {
        if (!noalias_ || array < 0 || !scopes_[array]) return inst;
        std::vector<llvm::Metadata*> others;
        for (size_t p = 0; p < scopes_.size(); ++p)
            if (scopes_[p] && static_cast<int>(p) != array) others.push_back(scopes_[p]);
        inst->setMetadata(llvm::LLVMContext::MD_alias_scope, llvm::MDNode::get(ctx_, {scopes_[array]}));
        if (!others.empty()) inst->setMetadata(llvm::LLVMContext::MD_noalias, llvm::MDNode::get(ctx_, others));
        return inst;
    }

    Value* truth(const Expr& e);

    Value* bool32(Value* i1) { return b_.CreateZExt(i1, like(b_.getInt32Ty(), i1)); }

    Value* emit(const Expr& e);

    Value* unary(const Unary& u);

    Value* binary(const Binary& bin);

    Value* compare(const Compare& c);

    Value* logical(const Logical& l);

    Value* select(const Select& s);

    Value* cast(const Cast& c);

    Value* math(const Math& m);

    llvm::FunctionCallee libm(DType t, const std::string& base, int n);

    llvm::Function* float_divmod(Type* ft, bool want_div);

    llvm::Function* int_pow(DType base, DType exp);
    Value* int_divmod(Value* l, Value* r, bool is_signed, bool want_div, Span span);

    // ------------------------------------------- SPMD lanes (emit_lanes.cpp)

    bool in_lanes() const { return mask_slot_ != nullptr; }
    bool varying(const Expr& e) const { return in_lanes() && labels_->varying(e); }
    bool varying_var(int var) const { return lanes_ > 1 && labels_->varying_vars[var]; }
    // SPMD: a local array the lanes share, one copy for all of them
    // (analysis::simd_lane_labels), addressed as a parameter array is.
    bool shared_local(int array) const {
        return lanes_ > 1 && labels_ && k_.params[array].kind == ParamKind::LocalArray &&
               labels_->lockstep_arrays[array];
    }
    // Lane l's value of a varying `v`; a uniform `v` broadcast to the lanes.
    Value* widen(Value* v);
    // Broadcasts whichever of `a` and `b` is uniform when the other varies.
    void unify(Value*& a, Value*& b);
    // The active lanes and other masks are <W x i1>, each in a slot.
    llvm::AllocaInst* mask_alloca(const std::string& name) { return entry_alloca(vec(b_.getInt1Ty()), name); }
    Value* load_mask(llvm::AllocaInst* slot) { return b_.CreateLoad(vec(b_.getInt1Ty()), slot); }
    void store_mask(llvm::AllocaInst* slot, Value* m) { b_.CreateStore(m, slot); }
    Value* mask() { return load_mask(mask_slot_); }
    void set_mask(Value* m) { store_mask(mask_slot_, m); }
    Value* any(Value* lanes) { return b_.CreateOrReduce(lanes); }
    Value* lane_iota(Type* elem);
    // Whether code here may run with no active lane: masked control, or
    // after some lanes left the iteration by `continue`.
    bool maybe_idle() const { return depth_ > 0 || iteration_left_; }
    // Runs `emit_then` only when some lane is active; yields its value (of
    // type `result`, or nothing) or zero.
    Value* when_any_active(Type* result, const std::function<Value*()>& emit_then);
    // `fn` on each lane's scalars of `args`, every lane, in a function of
    // the module's own named by `kind` and the arguments' types, which `fn`
    // must determine with them; the results as a vector of `result` (null
    // for none).
    // A call of `f` (scalar operands), or of `f` per lane (per_lane) when
    // the first operand is a vector.
    Value* call(llvm::FunctionCallee f, const std::vector<Value*>& args, Type* result);
    Value* per_lane(const std::string& kind, const std::vector<Value*>& args, Type* result,
                    const std::function<Value*(const std::vector<Value*>&)>& fn);
    // `fn` for each active lane in lane order, in a loop over the lanes;
    // `fn` gets the lane's index (i32) and returns its scalar result.
    Value* each_active_lane(Type* result, const std::function<Value*(Value* lane)>& fn) {
        return each_lane_of(mask(), result, fn);
    }
    // The same over the lanes of `lanes`.
    Value* each_lane_of(Value* lanes, Type* result, const std::function<Value*(Value* lane)>& fn);
    // Debug mode: each index within its extent, per lane; each active lane
    // out of bounds reported, in lane order. The lanes (or, for uniform
    // indices, the i1) that may access.
    Value* lane_bounds_check(int array, const std::vector<Value*>& idx, Span span);
    // The lanes an access runs in: the active ones, in debug mode those in
    // bounds.
    Value* access_lanes(const Access& a) {
        return a.in_bounds ? b_.CreateSelect(mask(), widen(a.in_bounds), llvm::Constant::getNullValue(mask()->getType()))
                           : mask();
    }
    void emit_groups(Value* first, Value* end);
    Access lane_address(int array, const std::vector<ExprPtr>& indices, int component, Span span);
    // How far apart consecutive lanes' values of an integer index are, when
    // the compiler can tell: exactly, in 64-bit two's complement, for every
    // active lane.
    std::optional<int64_t> lane_step(const Expr& index) const;
    void note_assignments();
    bool assigned_in_body(int var) const { return assignments_[var] > 0; }
    // After `a`, the rest of its block reads the value it stored.
    void note_lane_step(const Assign& a);
    std::optional<int64_t> offset_lane_step(int array, const std::vector<ExprPtr>& indices) const;
    Value* lane_load(const Load& l);
    void lane_store(const Store& st, Value* v);
    void lane_if(const If& i);
    // Whether `bl` (an `if` arm, through nested arms) breaks or continues
    // the loop around it.
    static bool leaves_loop(const Block& bl);
    void lane_loop(const Stmt& loop);
    Value* lane_logical(const Logical& l);
    Value* lane_select(const Select& s);
    // Adds one operation of a kind to the lanes' work, weighted by the
    // sequential loops around it (the parallel loop is the first of
    // loops_).
    void count_work(double LaneWork::*kind);

    const Kernel& k_;
    llvm::LLVMContext& ctx_;
    llvm::Module& m_;
    IRBuilder<> b_;
    std::string prefix_;
    llvm::Function* fn_ = nullptr;
    BasicBlock* entry_ = nullptr;
    std::vector<Value*> slots_;
    std::vector<ArrayValues> arrays_;
    std::vector<Value*> dim_start_, dim_step_;
    std::vector<LoopTargets> loops_;
    bool debug_ = false;
    bool noalias_ = false;
    std::vector<llvm::MDNode*> scopes_;
    Value* debug_state_ = nullptr;
    std::vector<DebugAccess>* debug_accesses_;
    bool races_ = false;
    std::vector<bool> race_checked_;             // by parameter: arrays the kernel writes
    llvm::AllocaInst* iteration_slot_ = nullptr;  // the running iteration's flat number
    bool in_iteration_ = false;                   // emitting the parallel loop's body
    const Load* augmented_load_ = nullptr;        // the store being emitted is augmented: its load
    int lanes_ = 1;
    int straight_groups_ = 2;  // SPMD: groups per turn of a body without control flow
    const analysis::Uniformity* labels_ = nullptr;
    std::string scalar_body_;
    std::vector<int> assignments_;  // SPMD: how often the kernel assigns each variable
    // SPMD: variables whose lanes differ by a known step, in the scope
    // where that holds.
    std::vector<std::pair<int, int64_t>> known_steps_;
    llvm::AllocaInst* mask_slot_ = nullptr;  // SPMD body: the active lanes, <W x i1>
    int depth_ = 0;                          // SPMD: nesting of masked control
    bool iteration_left_ = false;            // SPMD: some lanes took a masked parallel `continue`
    LaneWork work_;                          // SPMD: the body's work (count_work)
};

}  // namespace tack::codegen
