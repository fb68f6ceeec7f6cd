// The C-family printer's state, shared by emit_c.cpp (slots, entry points),
// emit_stmt.cpp (statements, loops, the iteration space) and emit_expr.cpp
// (expressions, memory, atomics). Private to codegen/cfamily.
//
// Expressions print as nested C expressions where that keeps Tack's
// evaluation order: a subtree without effects. An expression with an
// effect (an atomic, a StmtExpr, a debug check) is printed as statements in
// program order, with the operands to its left bound to temporaries first,
// since C leaves the order of operands unspecified. Conditional arms and
// short-circuit operands with effects become if statements.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/cfamily/abi.h"
#include "codegen/cfamily/emit_c.h"
#include "codegen/cfamily/names.h"
#include "codegen/cfamily/prelude.h"
#include "ir/ir.h"
#include "ir/traverse.h"

namespace tack::codegen::cfamily {

using namespace ir;

inline constexpr const char* kEmitPass = "emit_c";

// `if` and `while` take a condition in parentheses; one that already has
// its own outer pair is not wrapped again.
inline std::string parenthesized(const std::string& c) {
    int depth = 0;
    for (size_t i = 0; i < c.size(); ++i) {
        depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
        if (depth == 0 && i + 1 < c.size()) return "(" + c + ")";
    }
    return c[0] == '(' ? c : "(" + c + ")";
}

enum class EntryKind { Count, Body, Result };

class Printer {
public:
    Printer(const Kernel& k, Dialect d, bool debug, Prelude& prelude, std::vector<DebugAccess>& accesses);

    const std::vector<ArgSlot>& slots() const { return slots_; }
    const std::vector<PrintFormat>& prints() const { return prints_; }
    bool uses_workgroups() const { return workgroups_; }
    bool barrier_under_branch() const { return branched_collective_; }
    // MSL: the argument buffer struct the entries take at buffer 0.
    std::string argument_struct() const;
    // One entry point's definition.
    std::string entry(EntryKind kind, const std::string& name);

private:
    struct SlotName {
        std::string name, c_type;
    };

    // ------------------------------------------------------------ names (emit_c.cpp)

    void name_bindings();
    void build_slots();
    std::string signature(EntryKind kind) const;
    void declare_locals(const std::vector<const Block*>& blocks, const std::vector<const Expr*>& exprs,
                        bool dim_vars = false);

    // ----------------------------------------------------- output helpers

    void line(const std::string& text);
    void open(const std::string& head);  // `head {` and indent
    void close();                         // `}`
    std::string temp(DType t, const std::string& value);  // `const T tk_eN = value;`
    std::string fresh(const char* stem);
    std::string ty(DType t) const { return type_name(t_, t); }
    std::string i64() const { return ty(DType::I64); }
    std::string u64() const { return ty(DType::U64); }
    std::string lit64(DType t, const std::string& digits) const { return literal64(t_, t, digits); }

    // -------------------------------------------- statements (emit_stmt.cpp)

    void block(const Block& b);
    void stmt(const Stmt& s);
    void for_loop(const For& f);
    void while_loop(const While& w);
    void store(const Store& s);
    void note_collective();
    void print(const Print& p);
    // Each parallel dimension's start, end and step, bound once; their trip
    // counts when `want_counts`.
    void dims(bool want_counts);
    void count_entry();
    void body_entry();

    // -------------------------------------------- expressions (emit_expr.cpp)

    std::string expr(const Expr& e);
    bool effectful(const Expr& e);
    // The operands' texts, in order; those left of an operand with effects
    // are bound to temporaries before its statements run.
    std::vector<std::string> operands(const std::vector<const Expr*>& kids);
    std::string truth(const std::string& text, DType t) const;
    std::string truth(const Expr& e);  // a C condition: nonzero, and NaN, are true
    std::string int_literal(uint64_t bits, DType t) const;
    std::string float_literal(double v, DType t);
    // Wraps a value computed in t's carrier (u32 or u64) back to t.
    std::string wrap(DType t, const std::string& carrier_value);
    std::string carrier_cast(DType t, const std::string& v) const;
    std::string convert(DType from, DType to, const std::string& v);
    std::string index64(const Expr& e, const std::string& text);

    std::string unary(const Unary& u);
    std::string binary(const Binary& b);
    std::string compare(const Compare& c);
    std::string logical(const Logical& l);
    std::string select(const Select& s);
    std::string math(const Math& m);
    std::string load(const Load& l);
    std::string atomic(const Atomic& a);
    std::string stmt_expr(const StmtExpr& s);

    // Arrays: the element's offset in scalars, and in debug mode the check
    // (an int temporary, 1 when every index is within its extent).
    std::string extent(int array, int dim) const;
    std::string offset(int array, std::vector<std::string> idx, int component);
    std::string bounds_check(int array, std::vector<std::string>& idx, Span span);
    void check_divisor(const std::string& divisor, Span span);
    std::vector<std::string> indices(int array, const std::vector<ExprPtr>& idx, const std::vector<std::string>& texts);

    const Kernel& k_;
    const DialectTable& t_;
    bool debug_;
    bool workgroups_ = false;    // the kernel uses a workgroup primitive: groups of kGroupSize
    bool block_reduces_ = false; // it has a block reduction: the body declares tk_scratch
    bool full_groups_ = false;   // it has a barrier or collective: every launched group is complete
    int branch_depth_ = 0;       // the ifs around the statement being printed
    bool ended_early_ = false;   // a return that ends the iteration has been printed
    bool branched_collective_ = false;  // CSource::barrier_under_branch
    Prelude& prelude_;
    std::vector<DebugAccess>& accesses_;

    std::vector<std::string> var_names_;    // by var index
    std::vector<std::string> array_names_;  // by param index: arrays, textures, local arrays
    std::vector<std::string> scalar_slots_; // by param index: scalar parameters' slot names
    std::vector<ArgSlot> slots_;
    std::vector<SlotName> slot_names_;

    // Per entry.
    std::string out_;
    int indent_ = 0;
    int temps_ = 0;
    int loop_depth_ = 0;  // sequential loops around the statement being printed
    bool add64_next_ = false;      // the next Binary is an Add that MSL keeps out of line
    bool rounded_next_ = false;    // the next Binary is a float product bound to a name (rounded_product)
    bool discard_atomic_ = false;  // the next Atomic is a statement
    std::vector<std::string> dim_start_, dim_step_, dim_count_;
    std::unordered_map<const Expr*, bool> effectful_;
    // Print statements, numbered in program order (abi.h's PrintFormat).
    std::unordered_map<const Stmt*, int> print_index_;
    std::vector<PrintFormat> prints_;
};

}  // namespace tack::codegen::cfamily
