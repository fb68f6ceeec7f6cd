// The lowering state shared by lower.cpp (statements and the kernel shape),
// lower_expr.cpp (expressions) and lower_call.cpp (builtins and inlining).
// Private to the frontend.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/lower.h"
#include "frontend/validate.h"

namespace tack::frontend {

// A lowered expression: one scalar, a tuple of values, an array parameter
// (arrays are storage, passed to device functions by reference), a
// vector or matrix: scalar components, row-major, that exist only in the
// frontend (generated code sees the components alone), or a device-class
// instance (its description and where its leaves start among the
// parameters).
struct Value {
    enum class Kind { Scalar, Tuple, Array, Vector, Object } kind = Kind::Scalar;
    ir::ExprPtr expr;           // Scalar
    std::vector<Value> elts;    // Tuple; Vector: Scalar components whose expressions are pure
    ir::Block prelude;          // Vector: statements that must run before any component is read
    std::vector<int> shape;     // Vector: {n}, or {rows, cols} for a matrix
    int array = -1;             // Array: the kernel parameter index; Object: its first leaf's
    const TemplateInfo* object = nullptr;  // Object
    syntax::Span span;
    bool is_void = false;       // a device function call that returns nothing
    bool fresh_local_array = false;  // the value of tack.local_array(...), to be named

    static Value scalar(ir::ExprPtr e, syntax::Span s);
    static Value of_array(int a, syntax::Span s);
    static Value of_object(const TemplateInfo* info, int first_leaf, syntax::Span s);
};

struct Binding {
    enum class Kind { Var, Array, EndedLoopVar, Vector, Object } kind = Kind::Var;
    Binding() = default;
    Binding(Kind k, int id) : kind(k), id(id) {}

    int id = -1;             // Var: the local; Array: the parameter; Object: its first leaf
    std::vector<int> ids;    // Vector: one local per component
    std::vector<int> shape;  // Vector
    const TemplateInfo* object = nullptr;  // Object
    // Var: read before any assignment in program text, at `carried_read` (a
    // value carried round a sequential loop from an earlier trip, which is
    // a number).
    bool carried = false;
    syntax::Span carried_read;
};

// One function being lowered: the kernel, or an inlined device function.
struct Frame {
    const syntax::FunctionDef* fn = nullptr;
    FunctionRole role = FunctionRole::Kernel;
    std::shared_ptr<Resolver> resolver;
    uintptr_t identity = 0;
    std::unordered_map<std::string, Binding> names;
    std::unordered_set<std::string> locals;   // every name the function assigns or loops over
    std::vector<int> result_vars;             // device function results, component by component
    std::vector<std::vector<int>> result_shapes;  // each result's shape; empty for a number
    bool returns_value = false;
    bool returns_seen = false;
    int done_var = -1;                        // set when a return ends the function early
    int loop_depth = 0;                       // sequential loops enclosing the current statement
    // The names each sequential loop around the current statement assigns:
    // a name read before its first assignment in program text holds a value
    // only where one of them assigns it (from an earlier trip round it).
    std::vector<std::unordered_set<std::string>> loop_assigned;
};

enum class Region { Prologue, Body, Epilogue };

class Lowerer {
public:
    Lowerer(ir::Kernel& k, const std::vector<ParamShape>& shapes) : k_(k), shapes_(shapes) {}

    void kernel(const syntax::FunctionDef& fn, std::shared_ptr<Resolver> resolver);

    // ---- lower.cpp: statements
    void body(const syntax::Body& b, ir::Block& out);
    void stmt(const syntax::Stmt& s, ir::Block& out);
    void assign(const syntax::Expr& target, Value v, ir::Block& out, syntax::Span span);
    void aug_assign(const syntax::AugAssign& s, ir::Block& out);
    void sequential_for(const syntax::For& s, ir::Block& out);
    void function_body(const syntax::Body& b, size_t from, ir::Block& out);
    static bool contains_return(const syntax::Body& b);

    // ---- lower_expr.cpp: expressions
    Value expr(const syntax::Expr& e);
    ir::ExprPtr scalar(const syntax::Expr& e, const char* what = "a number");
    ir::ExprPtr scalar(Value v, const char* what = "a number");
    ir::ExprPtr condition(const syntax::Expr& e);
    Value name(const syntax::Name& n);
    bool looks_vector(const syntax::Expr& e);
    Value attribute(const syntax::Attribute& a);
    Value subscript(const syntax::Subscript& s);
    std::vector<ir::ExprPtr> indices(int array, const syntax::Expr& index, syntax::Span span);
    // A chain of comparisons of numbers, its operands already lowered.
    ir::ExprPtr compare(const syntax::Compare& c, std::vector<Value> operands);
    // Binds `e` to a fresh temporary unless it is a constant or a variable.
    ir::ExprPtr reusable(ir::ExprPtr e, ir::Block& prelude);

    // ---- lower_vector.cpp: vectors and matrices
    bool is_vector_builtin(const std::string& name) const;
    Value vector_builtin(const std::string& name, const syntax::Call& c);
    Value vector_method(Value obj, const std::string& name, const syntax::Call& c);
    Value make_vector(std::vector<ir::ExprPtr> comps, std::vector<int> shape, ir::Block prelude, syntax::Span span);
    // Components as pure expressions, with what must run first in `prelude`.
    std::vector<ir::ExprPtr> components(Value v, ir::Block& prelude, int count = -1);
    ir::ExprPtr pure(ir::ExprPtr e, ir::Block& prelude);
    ir::ExprPtr with_prelude(ir::Block prelude, ir::ExprPtr e);
    Value vector_unary(ir::UnOp op, Value v, syntax::Span span);
    Value vector_binary(syntax::BinaryOp op, Value a, Value b, syntax::Span span);
    Value vector_compare(const syntax::Compare& c, std::vector<Value> operands);
    Value vector_logical(ir::LogicOp op, std::vector<Value> operands, syntax::Span span);
    Value vector_select(ir::ExprPtr cond, Value a, Value b, syntax::Span span);
    Value vector_component(Value v, const syntax::Expr& index, syntax::Span span);
    Value select_components(const std::vector<int>& shape, const syntax::Expr& index, ir::Block pre,
                            syntax::Span span, const std::function<ir::ExprPtr(int)>& component);
    ir::ExprPtr select_by_index(std::vector<ir::ExprPtr> comps, const ir::Expr& k, syntax::Span span);
    Value vector_attribute(Value v, const std::string& attr, syntax::Span span);
    Value matmul(Value a, Value b, syntax::Span span);
    Value componentwise(std::vector<Value> args, const std::function<ir::ExprPtr(std::vector<ir::ExprPtr>)>& make,
                        syntax::Span span);
    void assign_vector(const std::string& name, Value v, ir::Block& out, syntax::Span span);
    void assign_component(const syntax::Expr& target, Value v, ir::Block& out, syntax::Span span);
    // Runs `store(k, block)` for the component `index` selects in a value
    // of `shape` (a matrix takes a row and a column): directly for literal
    // indices, under a test of each position for runtime ones, so a runtime
    // index outside the value stores nothing.
    int component_position(const syntax::Expr& e, int extent, const std::vector<int>& shape);
    static int component_named(const std::string& attr, const std::vector<int>& shape);
    void assign_together(const std::vector<int>& ids, std::vector<ir::ExprPtr> values, ir::Block& out,
                         syntax::Span span);
    int row_of(const syntax::Expr& index, const std::vector<int>& shape);
    std::vector<ir::ExprPtr> row_values(Value v, const std::vector<int>& shape, ir::Block& out, syntax::Span span);
    void store_component(const syntax::Expr& index, const std::vector<int>& shape, ir::Block& out, syntax::Span span,
                         const std::function<void(int, ir::Block&)>& store);
    static std::string shape_name(const std::vector<int>& shape);
    // The shape the vector and matrix values share (numbers serve every
    // component); `what` names them when two differ ("operands have ...").
    std::vector<int> common_shape(const std::vector<const Value*>& values, const char* what, syntax::Span span);

    // ---- lower_elements.cpp: arrays of vector and matrix elements
    // The array parameter `e` names when it has vector or matrix elements; -1 otherwise.
    int element_array(const syntax::Expr& e);
    std::vector<ir::ExprPtr> element_index(int array, const syntax::Expr& index, syntax::Span span, ir::Block& out);
    ir::ExprPtr component_load(int array, const std::vector<ir::ExprPtr>& index, int component, syntax::Span span);
    void component_store(int array, const std::vector<ir::ExprPtr>& index, int component, ir::ExprPtr value,
                         ir::Block& out, syntax::Span span);
    Value load_element(int array, const syntax::Expr& index, syntax::Span span);
    struct ElementView {
        int array = -1;
        const syntax::Subscript* element = nullptr;  // a[j]
        std::vector<int> positions;                  // the flat components selected, row-major
        std::vector<int> shape;                      // theirs: {} for one number
    };
    bool element_view(const syntax::Expr& e, ElementView* view);
    bool selected_components(const syntax::Expr& e, Value* out);
    void store_element(int array, const syntax::Expr& index, Value v, ir::Block& out, syntax::Span span);
    void store_element_component(int array, const syntax::Subscript& element, const syntax::Expr& target, Value v,
                                 ir::Block& out, syntax::Span span);
    void aug_assign_element(int array, const syntax::Subscript& target, const syntax::AugAssign& s, ir::Block& out);
    Value atomic_element(ir::AtomicOp op, const std::string& bname, int array, const syntax::Call& c);

    // ---- lower_texture.cpp: 3D textures
    // Fails when `array` is a texture, which is sampled and never `what` (indexed, written, ...).
    void refuse_texture(int array, syntax::Span span, const std::string& what);
    Value texture_sample(int texture, const syntax::Call& c);

    // ---- lower_call.cpp: calls
    Value call(const syntax::Call& c);
    Value builtin(const std::string& name, const syntax::Call& c);
    Value cast_call(DType to, const syntax::Call& c);
    Value atomic(const std::string& name, const syntax::Call& c);
    Value local_array(const std::string& name, const syntax::Call& c);
    Value inline_call(const DeviceFunctionRef& f, const syntax::Call& c);
    // Inlines `f` with arguments already evaluated, left to right;
    // `value_used` is false where the call is a statement of its own.
    Value inline_call(const DeviceFunctionRef& f, std::vector<Value> args, syntax::Span span, bool value_used = true);
    // Whether `c` is an expression statement's whole value, so its result
    // is thrown away.
    bool is_discarded(const syntax::Call& c) const { return static_cast<const syntax::Expr*>(&c) == discarded_; }
    // Whether every path through `b` ends in a return.
    static bool always_returns(const syntax::Body& b);
    const syntax::FunctionDef& parsed_function(const DeviceFunctionRef& f);
    Resolution resolve_callee(const syntax::Expr& func);
    // A dotted name path (a.b.c) whose root is not a local; empty otherwise.
    std::vector<std::string> global_path(const syntax::Expr& e);

    // ---- lower_template.cpp: device-class instances
    Value member(const Value& obj, const std::string& name, syntax::Span span);
    Value method_call(const Value& obj, const std::string& name, const syntax::Call& c);
    Value object_index(const Value& obj, const syntax::Subscript& s);      // obj[i]
    Value object_subscript(const Value& obj, const syntax::Subscript& s);  // obj.attr[k]
    Value index_value(const syntax::Expr& index, ir::Block& out);          // i, or (i, j) as a vector
    Value held(Value v, ir::Block& out);  // evaluated now into temporaries
    Value copy_of(const Value& held_value);
    // Runs a value for its effects (an expression statement).
    void discard(Value v, ir::Block& out, syntax::Span span);
    void object_store(const Value& obj, const syntax::Subscript& s, Value v, ir::Block& out, syntax::Span span);
    void object_aug_store(const Value& obj, const syntax::AugAssign& s, ir::Block& out);
    Value object_len(const Value& obj, syntax::Span span);
    const TemplateMember& special_method(const Value& obj, const char* name, const char* use, syntax::Span span);

    // ---- helpers
    // A literal integer index into `extent` items, negative ones counting
    // from the end: its position, or -1 when `e` is not a literal. A literal
    // outside the items fails with `out_of_range` (a TypeError).
    int literal_position(const syntax::Expr& e, int extent, const std::string& out_of_range, const char* construct);
    // A constant's value: a literal, or a vector or matrix of literals.
    Value constant_value(const Resolution& r, syntax::Span span);
    Frame& frame() { return *frames_.back(); }
    [[noreturn]] void fail(syntax::ErrorKind kind, syntax::Span span, std::string message, std::string construct = {},
                           std::string hint = {});
    int temp(const char* hint = "t");
    int local_var(const std::string& name);
    // A carried local (Binding::carried) that a later assignment would make
    // `what` (a vector, a local array): refused at the read.
    [[noreturn]] void fail_carried(const std::string& name, const Binding& b, const std::string& what,
                                   std::string hint);
    // A hint for indexing or reading an attribute of `base` when it names a
    // carried local; empty otherwise.
    std::string carried_hint(const syntax::Expr& base);
    ir::ExprPtr var_ref(int var, syntax::Span span);
    ir::StmtPtr assign_stmt(int var, ir::ExprPtr value, syntax::Span span);
    ir::ExprPtr int_const(int64_t v, syntax::Span span);
    // A small number beside a user's integer, in that integer's type
    // (IntConst::adopts).
    ir::ExprPtr adopting_const(int64_t v, syntax::Span span);
    void require_side_effects_allowed(syntax::Span span, const char* what);

    ir::Kernel& k_;
    const std::vector<ParamShape>& shapes_;
    std::vector<Frame*> frames_;
    Region region_ = Region::Prologue;
    int parallel_depth_ = 0;  // sequential loops inside the parallel body
    int temp_counter_ = 0;
    const syntax::Expr* discarded_ = nullptr;  // the value of the expression statement being lowered
    std::vector<int> param_vars_;  // each scalar parameter's variable; -1 for others
    // Device functions parsed and validated for this kernel, by identity.
    std::unordered_map<uintptr_t, std::unique_ptr<syntax::FunctionDef>> parsed_;
};

ir::BinOp lower_binop(syntax::BinaryOp op);
ir::CmpOp lower_cmpop(syntax::CmpOp op);

// A constant's literal (a tack.constant, math.pi, a device-class constant),
// under its dtype's cast when it has one.
ir::ExprPtr constant_literal(const Resolution& r, syntax::Span span);

// Collects every name a function assigns (targets, loop targets).
void collect_locals(const syntax::Body& b, std::unordered_set<std::string>& out);

}  // namespace tack::frontend
