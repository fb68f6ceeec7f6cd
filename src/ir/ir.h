// Tack's kernel IR: structured statements over scalar expressions.
//
// A kernel is a prologue (statements outside the parallel loop, which only
// bind locals and load arrays), one parallel loop over a flat iteration
// space, and an optional epilogue computing a return value. Control flow is
// structured (if / for / while / break / continue), so the same IR lowers to
// LLVM and to C-family GPU source. Values are scalars of the ten dtypes;
// vectors and matrices are scalarized by the frontend.
//
// Every expression carries its dtype once the type pass has run
// (analysis/infer_types); emitters never re-infer types, and every
// conversion is an explicit Cast node.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "syntax/source.h"
#include "tack/dtype.h"

namespace tack::ir {

using syntax::Span;

// ------------------------------------------------------------------ operators

enum class UnOp { Neg, Not, Invert };
enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Shl, Shr, BitAnd, BitOr, BitXor, Min, Max };
enum class CmpOp { Lt, Le, Gt, Ge, Eq, Ne };
enum class LogicOp { And, Or };

// Math builtins of one to three floating arguments: the source name, the
// number of arguments and the C library's name for the f64 function (f32
// appends `f`). `round` is the C library's `rint`: ties to even in the
// default rounding mode, as Python's round and NumPy's rint. `fma` (x * y +
// z rounded once) is not a name kernels can call (the Python resolver does
// not offer it): the tile lowering emits it for `mma`'s fused steps.
#define TACK_MATH_FUNCS(X)          \
    X(Sqrt, sqrt, 1, sqrt)          \
    X(Sin, sin, 1, sin)             \
    X(Cos, cos, 1, cos)             \
    X(Tan, tan, 1, tan)             \
    X(Asin, asin, 1, asin)          \
    X(Acos, acos, 1, acos)          \
    X(Atan, atan, 1, atan)          \
    X(Atan2, atan2, 2, atan2)       \
    X(Exp, exp, 1, exp)             \
    X(Log, log, 1, log)             \
    X(Floor, floor, 1, floor)       \
    X(Ceil, ceil, 1, ceil)          \
    X(Abs, abs, 1, fabs)            \
    X(Pow, pow, 2, pow)             \
    X(Tanh, tanh, 1, tanh)          \
    X(Sinh, sinh, 1, sinh)          \
    X(Cosh, cosh, 1, cosh)          \
    X(Asinh, asinh, 1, asinh)       \
    X(Acosh, acosh, 1, acosh)       \
    X(Atanh, atanh, 1, atanh)       \
    X(Log2, log2, 1, log2)          \
    X(Log10, log10, 1, log10)       \
    X(Exp2, exp2, 1, exp2)          \
    X(Expm1, expm1, 1, expm1)       \
    X(Log1p, log1p, 1, log1p)       \
    X(Cbrt, cbrt, 1, cbrt)          \
    X(Hypot, hypot, 2, hypot)       \
    X(Copysign, copysign, 2, copysign) \
    X(Fmod, fmod, 2, fmod)          \
    X(Trunc, trunc, 1, trunc)       \
    X(Round, round, 1, rint)        \
    X(Erf, erf, 1, erf)             \
    X(Erfc, erfc, 1, erfc)          \
    X(Fma, fma, 3, fma)

enum class MathFn {
#define X(E, name, arity, c_name) E,
    TACK_MATH_FUNCS(X)
#undef X
};

const char* to_string(UnOp op);
const char* to_string(BinOp op);
const char* to_string(CmpOp op);
const char* to_string(LogicOp op);
const char* to_string(MathFn fn);
int arity(MathFn fn);
// The C library's f64 name (`fabs` for abs, `rint` for round).
const char* c_name(MathFn fn);

// ---------------------------------------------------------------- expressions

#define TACK_IR_EXPRS(X) \
    X(IntConst)          \
    X(FloatConst)        \
    X(VarRef)            \
    X(Load)              \
    X(ArrayDim)          \
    X(Unary)             \
    X(Binary)            \
    X(Compare)           \
    X(Logical)           \
    X(Select)            \
    X(Cast)              \
    X(Math)              \
    X(Atomic)            \
    X(ThreadId)          \
    X(BlockReduce)       \
    X(TextureSample)     \
    X(StmtExpr)

enum class ExprKind {
#define X(name) name,
    TACK_IR_EXPRS(X)
#undef X
};
const char* to_string(ExprKind k);

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct Expr {
    const ExprKind kind;
    Span span;
    std::optional<DType> type;  // set by infer_types
    // A weak float literal expression (NEP 50): it takes the floating type
    // of what it meets. Set by infer_types.
    bool weak = false;

    explicit Expr(ExprKind k) : kind(k) {}
    virtual ~Expr() = default;
    DType dtype() const;  // the annotated type; internal error if unset

    template <typename T> T* as() { return kind == T::static_kind ? static_cast<T*>(this) : nullptr; }
    template <typename T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};
using ExprPtr = std::unique_ptr<Expr>;

#define TACK_IR_EXPR(Name_) \
    static constexpr ExprKind static_kind = ExprKind::Name_; \
    Name_() : Expr(ExprKind::Name_) {}

// An integer literal: the exact value as two's-complement bits, and whether
// the source wrote it negative (a literal's type follows its full value).
// `adopts`: a number the front end adds beside a user's integer (a vector
// component's position compared with a runtime index, a matrix's row length,
// the 0 a mask's truth compares with, range()'s implicit start and step):
// where its own type cannot be mixed with that integer's (u64), it takes
// that integer's type. Its value fits every integer type.
struct IntConst : Expr { TACK_IR_EXPR(IntConst) uint64_t bits = 0; bool negative = false; bool adopts = false; };
// A float literal keeps its exact Python (binary64) value; it is converted to
// its settled type once, directly.
struct FloatConst : Expr { TACK_IR_EXPR(FloatConst) double value = 0; };
struct VarRef : Expr { TACK_IR_EXPR(VarRef) int var = -1; };
// One index per dimension, or one flat row-major index. On an array of
// vector or matrix elements, `component` picks one scalar of the element
// (row-major for a matrix); it is 0 for scalar elements.
struct Load : Expr { TACK_IR_EXPR(Load) int array = -1; std::vector<ExprPtr> indices; int component = 0; };
// The extent of one dimension of an array parameter (len(a), a.shape[k]).
struct ArrayDim : Expr { TACK_IR_EXPR(ArrayDim) int array = -1; int dim = 0; };
struct Unary : Expr { TACK_IR_EXPR(Unary) UnOp op; ExprPtr operand; };
struct Binary : Expr { TACK_IR_EXPR(Binary) BinOp op; ExprPtr lhs, rhs; };
// Produces i32 0 or 1.
struct Compare : Expr { TACK_IR_EXPR(Compare) CmpOp op; ExprPtr lhs, rhs; };
// Short-circuit `and` / `or`; produces i32 0 or 1.
struct Logical : Expr { TACK_IR_EXPR(Logical) LogicOp op; ExprPtr lhs, rhs; };
// `a if cond else b`: evaluates only the selected arm.
// `joins_all`: one link of the front end's choice among a vector's or a
// matrix's components by a runtime index (an arm that is another link
// continues the choice; a matrix's rows nest their columns): the whole
// choice has the type of all its components together, as if each met every
// other at once, not that of the last two first (an i16, a u64 and an f32
// component choose an f32).
struct Select : Expr { TACK_IR_EXPR(Select) ExprPtr cond, if_true, if_false; bool joins_all = false; };
struct Cast : Expr { TACK_IR_EXPR(Cast) DType to = DType::I32; ExprPtr operand; };
struct Math : Expr { TACK_IR_EXPR(Math) MathFn fn; std::vector<ExprPtr> args; };
// Exch stores the value; Cas stores it only where the element equals
// `expected` (compared as the element type's bits, see docs/language.md).
enum class AtomicOp { Add, Min, Max, Sub, Exch, Cas };
const char* to_string(AtomicOp op);
// An atomic read-modify-write of one array element; its value is the
// element's old value. The operands (Cas: `expected`, then `value`) are
// evaluated before the update.
struct Atomic : Expr {
    TACK_IR_EXPR(Atomic)
    AtomicOp op = AtomicOp::Add;
    int array = -1;
    std::vector<ExprPtr> indices;
    int component = 0;
    ExprPtr expected;  // Cas only
    ExprPtr value;
};
// Workgroup primitives (contract, "Workgroups and synchronization"): only a
// backend with workgroups runs them; the driver rejects them elsewhere
// (driver/pipeline.h, check_supported).
// tack.thread_id(): this work item's lane in its workgroup, i32.
struct ThreadId : Expr { TACK_IR_EXPR(ThreadId) };
// tack.block_sum/block_min/block_max(x): x over the workgroup's lanes, f32.
enum class BlockOp { Sum, Min, Max };
const char* to_string(BlockOp op);  // "block_sum", ...
struct BlockReduce : Expr { TACK_IR_EXPR(BlockReduce) BlockOp op = BlockOp::Sum; ExprPtr value; };
// tex.sample(u, v, w) on a texture the device filters in hardware (a
// Texture parameter with `image` set): f32 coordinates, f32 value. Where
// textures are snapshots in memory the frontend writes sampling out as
// loads and arithmetic instead, so only the C-family emitter for CUDA
// sees this node.
struct TextureSample : Expr { TACK_IR_EXPR(TextureSample) int texture = -1; std::vector<ExprPtr> coords; };
// Runs `stmts`, then evaluates `value`. Inlined device-function calls and
// evaluation-order temporaries lower to this.
struct StmtExpr : Expr { TACK_IR_EXPR(StmtExpr) Block stmts; ExprPtr value; };

#undef TACK_IR_EXPR

// ----------------------------------------------------------------- statements

#define TACK_IR_STMTS(X) \
    X(Assign)            \
    X(Store)             \
    X(Eval)              \
    X(Print)             \
    X(If)                \
    X(For)               \
    X(While)             \
    X(Break)             \
    X(Continue)          \
    X(Barrier)

enum class StmtKind {
#define X(name) name,
    TACK_IR_STMTS(X)
#undef X
};
const char* to_string(StmtKind k);

struct Stmt {
    const StmtKind kind;
    Span span;
    explicit Stmt(StmtKind k) : kind(k) {}
    virtual ~Stmt() = default;

    template <typename T> T* as() { return kind == T::static_kind ? static_cast<T*>(this) : nullptr; }
    template <typename T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};

#define TACK_IR_STMT(Name_) \
    static constexpr StmtKind static_kind = StmtKind::Name_; \
    Name_() : Stmt(StmtKind::Name_) {}

struct Assign : Stmt { TACK_IR_STMT(Assign) int var = -1; ExprPtr value; };
// The value is evaluated before the indices (Python's assignment order).
struct Store : Stmt {
    TACK_IR_STMT(Store)
    int array = -1;
    std::vector<ExprPtr> indices;
    int component = 0;
    ExprPtr value;
};
// Evaluates an expression for its effects.
struct Eval : Stmt { TACK_IR_STMT(Eval) ExprPtr value; };
// print(...): one line of the values, separated by spaces, written whole.
struct Print : Stmt {
    TACK_IR_STMT(Print)
    std::vector<ExprPtr> args;
    // Each printed value: 0 for a number (one of `args`), n for an n-vector
    // (n of `args`, printed as a bracketed list).
    std::vector<int> groups;
};
// What print's runtime formatter reads for each value (runtime/print.h): the
// value's DType index, with 0x40 where a vector's bracketed list opens and
// 0x80 where it closes. Every backend passes these.
std::vector<uint8_t> print_kinds(const Print& p);
struct If : Stmt { TACK_IR_STMT(If) ExprPtr cond; Block then_body, else_body; };
// A sequential `for var in range(start, end, step)`. The bounds are
// evaluated once, before the loop; the loop variable is assigned from a
// hidden counter each iteration, so the body may reassign it freely.
struct For : Stmt {
    TACK_IR_STMT(For)
    int var = -1;
    ExprPtr start, end, step;
    Block body;
    // A loop over a tile's elements (the tile lowering's innermost element
    // loops): the CPU backend vectorizes it before it unrolls it, where
    // other constant-trip loops are unrolled first (docs/backends.md).
    bool over_elements = false;
    // A loop the CPU backend keeps rolled, neither unrolled nor vectorized
    // (mma's k loop over a register block: unrolled, LLVM's scheduler
    // hoisted every copy's operand loads above the multiply-adds and
    // spilled them; docs/backends.md).
    bool rolled = false;
};
struct While : Stmt { TACK_IR_STMT(While) ExprPtr cond; Block body; };
struct Break : Stmt { TACK_IR_STMT(Break) };
struct Continue : Stmt { TACK_IR_STMT(Continue) };
// tack.barrier(): every lane of the workgroup arrives before any goes on.
struct Barrier : Stmt { TACK_IR_STMT(Barrier) };

#undef TACK_IR_STMT

// ------------------------------------------------------------------ the kernel

enum class VarRole {
    Local,      // a user local
    Temp,       // a lowering temporary; never collides with a user name
    LoopVar,    // a sequential or parallel loop variable
    Param,      // a scalar parameter's value (read-only after localization)
};

struct Var {
    std::string name;  // the user's spelling, or a fresh temporary name
    VarRole role = VarRole::Local;
    std::optional<DType> type;  // settled by infer_types
    int param = -1;             // for VarRole::Param: the parameter index
};

// Arrays are numbered with the parameters: a local array (private scratch
// declared with tack.local_array) is an entry after the kernel's own
// parameters, so every array reference is one index. A texture reaches
// code as its f32 snapshot, a read-only (depth, height, width) array that
// sampling loads from, or (`image`) as a handle the device samples through
// its texture hardware. A device-class instance is an Object parameter with
// no storage of its own, followed by its leaves (frontend/template.h), each
// an Array or Scalar parameter.
enum class ParamKind { Array, Scalar, LocalArray, Texture, Object };

struct Param {
    std::string name;
    ParamKind kind = ParamKind::Scalar;
    DType dtype = DType::I32;  // filled per variant
    int ndim = 0;              // arrays; filled per variant
    bool contiguous = true;    // arrays; filled per variant (row-major compact)
    // Arrays that are not contiguous: the last axis's stride is one
    // element, the others are read at run time (filled per variant).
    bool unit_inner_stride = false;
    bool used = false;
    std::vector<int64_t> local_shape;  // LocalArray: its fixed extents
    bool shared = false;               // LocalArray: the workgroup's (tack.shared), not the work item's
    Span declared;                     // LocalArray: where it was declared, and by which builtin
    std::string declared_with;         // "local_array", "shared", "shared_like", ...
    // Arrays of vector or matrix elements: {n} or {rows, cols}; empty for
    // scalar elements. Each element is `components()` scalars of `dtype`,
    // one component stride apart: 1 when interleaved, a runtime ArrayArg
    // field for a structure of arrays (`soa`).
    std::vector<int> element_shape;
    bool soa = false;
    bool image = false;  // Texture: sampled by the device's texture hardware (TextureSample)

    std::string object_class;  // Object: the instance's class, for printing

    bool is_array() const { return kind != ParamKind::Scalar && kind != ParamKind::Object; }
    int components() const {
        int n = 1;
        for (int e : element_shape) n *= e;
        return n;
    }
};

// One dimension of the parallel iteration space: `var` takes the values
// start, start + step, ... below `end`.
struct ParallelDim {
    int var = -1;
    ExprPtr start, end, step;  // step is null for ndindex (step 1)
    Span span;
};

// A function whose source contributed IR: the kernel (origin 0) or an
// inlined device function. Span::origin indexes Kernel::origins.
struct Origin {
    std::string function;
    bool is_kernel = true;
    std::shared_ptr<const syntax::Source> source;
};

struct Kernel {
    std::string name;
    std::vector<Origin> origins;
    std::vector<Param> params;
    std::vector<Var> vars;
    Block prologue;                   // statements before the parallel loop
    std::vector<ParallelDim> dims;    // evaluated after the prologue
    Block body;                       // one iteration
    Span loop_span;
    Block epilogue;                   // statements after the parallel loop
    ExprPtr result;                   // the trailing `return` value, or null
    std::optional<DType> result_type;
    std::shared_ptr<const syntax::Source> source;
    bool typed = false;  // set by infer_types
    // Workgroup code whose barriers a pass took out of uniform branches (the
    // tile lowering's straight_barriers): printed C marks it as it would
    // have marked them in the branches (CSource::barrier_under_branch).
    bool barriers_out_of_branches = false;

    int add_var(std::string name, VarRole role);

    // A user diagnostic at `span`, naming the function the span is in.
    syntax::Diagnostic diagnostic(syntax::ErrorKind kind, Span span, std::string message, std::string construct = {},
                                  std::string hint = {}) const;
    [[noreturn]] void fail(syntax::ErrorKind kind, Span span, std::string message, std::string construct = {},
                           std::string hint = {}) const;
};

// Visits every expression and statement below `b`, parents first; the
// statement and expression forms include the node itself.
void visit(Block& b, const std::function<void(Expr&)>& on_expr, const std::function<void(Stmt&)>& on_stmt);
void visit(Expr& e, const std::function<void(Expr&)>& on_expr, const std::function<void(Stmt&)>& on_stmt);
// The same walks over nodes they may not change.
void visit(const Block& b, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt);
void visit(const Stmt& s, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt);
void visit(const Expr& e, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt);
// Every expression and statement of a kernel: prologue, iteration space,
// body, epilogue and result.
void visit(const Kernel& k, const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt);

// Deep copies: variants mutate a copy, never the cached template.
ExprPtr clone(const Expr& e);
StmtPtr clone(const Stmt& s);
Block clone(const Block& b);
std::unique_ptr<Kernel> clone(const Kernel& k);

// A work item's local arrays (not the workgroup's shared ones) live on the
// stack of the thread that runs it; together they may take at most this
// many bytes (one array at most 64 KiB). Past it a CPU worker's stack
// would overflow; the frontend and the tile lowering refuse such kernels.
constexpr int64_t kPrivateScratchLimit = int64_t(1) << 20;
// The bytes of `k`'s local arrays that are private to a work item, and of
// those a workgroup shares (tack.shared).
int64_t private_scratch_bytes(const Kernel& k);
int64_t shared_scratch_bytes(const Kernel& k);

// The lanes of one workgroup on the backends that have workgroups: parallel
// iteration i runs on lane i % kWorkgroupLanes of group i / kWorkgroupLanes
// (docs/workgroups.md).
constexpr int kWorkgroupLanes = 256;

// Textual form for `tackc --ir`, inspect("ir") and golden tests.
std::string print(const Kernel& k);
std::string print(const Expr& e, const Kernel& k);

}  // namespace tack::ir
