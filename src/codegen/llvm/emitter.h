// The LLVM emitter's state, shared by emit_llvm.cpp (entry points, control
// flow, memory) and emit_arith.cpp (operators, conversions, math). Private
// to the LLVM code generator.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <string>
#include <vector>

#include "codegen/llvm/emit_llvm.h"
#include "ir/ir.h"

namespace tack::codegen {

using namespace ir;
using llvm::BasicBlock;
using llvm::IRBuilder;
using llvm::Type;
using llvm::Value;

inline constexpr const char* kEmitPass = "emit_llvm";

class Emitter {
public:
    // In debug mode, checked accesses are appended to `accesses`; a report
    // names one by its position there, unique across the module's entries.
    Emitter(const Kernel& k, llvm::LLVMContext& ctx, llvm::Module& m, std::string prefix, bool debug,
            std::vector<DebugAccess>* accesses)
        : k_(k), ctx_(ctx), m_(m), b_(ctx), prefix_(std::move(prefix)), debug_(debug), debug_accesses_(accesses) {}

    void set_noalias(bool on) { noalias_ = on; }
    void emit_count(const std::string& name);
    void emit_body(const std::string& name);
    void emit_result(const std::string& name);

private:
    struct LoopTargets {
        BasicBlock* break_to;
        BasicBlock* continue_to;
    };
    struct Access {
        Value* ptr = nullptr;
        Value* in_bounds = nullptr;  // debug mode only
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

    // ------------------------------------------------------- statements

    void emit_block(const Block& bl);

    void emit(const Stmt& s);

    void emit_for(const For& f);
    void emit_print(const Print& p);

    // ------------------------------------------------------ expressions

    Value* index64(const Expr& e);

    Access address(int array, const std::vector<ExprPtr>& indices, int component, Span span);
    Value* bounds_check(int array, const std::vector<Value*>& idx, Span span);
    Value* guarded(const Access& a, Type* result, const std::function<Value*()>& emit_access);
    Value* atomic(const Atomic& at);
    void set_up_alias_scopes();
    template <typename I>
    I* tag(I* inst, int array);

    Value* truth(const Expr& e);

    Value* bool32(Value* i1) { return b_.CreateZExt(i1, b_.getInt32Ty()); }

    Value* emit(const Expr& e);

    Value* unary(const Unary& u);

    Value* binary(const Binary& bin);

    Value* compare(const Compare& c);

    Value* logical(const Logical& l);

    Value* select(const Select& s);

    Value* cast(const Cast& c);

    Value* math(const Math& m);

    llvm::FunctionCallee libm(DType t, const std::string& base, int n);

    llvm::Function* float_divmod(DType t, bool want_div);

    llvm::Function* int_pow(DType base, DType exp);

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
};

}  // namespace tack::codegen
