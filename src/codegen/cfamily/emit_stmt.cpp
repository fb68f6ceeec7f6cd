// Statements, sequential loops, and the parallel iteration space of the
// count and body entries.
#include "codegen/cfamily/printer.h"

namespace tack::codegen::cfamily {

namespace {

bool reads_var(const Expr& e, int var) {
    if (auto* v = e.as<VarRef>()) return v->var == var;
    bool found = false;
    for_each_child(
        e, [&](const ExprPtr& c) { found = found || reads_var(*c, var); }, [&](const Block&) { found = true; });
    return found;
}

}  // namespace

// A print evaluates its values left to right, claims a record in the
// print buffer and fills it; the runtime formats the records after the
// launch (abi.h).
void Printer::print(const Print& p) {
    std::vector<std::string> values;
    for (auto& a : p.args) values.push_back(temp(a->dtype(), expr(*a)));
    int index = print_index_.at(&p);
    std::string at = fresh("tk_p");
    line("const " + i64() + " " + at + " = " + prelude_.print_claim() + "(tk_print, " +
         std::to_string(values.size() + 1) + ");");
    open("if (" + at + " >= 0)");
    line("tk_print[" + at + "] = " + std::to_string(index) + ";");
    for (size_t i = 0; i < values.size(); ++i) {
        DType t = p.args[i]->dtype();
        std::string word = is_float(t) ? "(" + i64() + ")" + prelude_.to_bits(t) + "(" + values[i] + ")"
                                       : "(" + i64() + ")" + values[i];
        line("tk_print[" + at + " + " + std::to_string(i + 1) + "] = " + word + ";");
    }
    close();
}

void Printer::block(const Block& b) {
    for (auto& s : b) stmt(*s);
}

void Printer::stmt(const Stmt& s) {
    switch (s.kind) {
        case StmtKind::Assign: {
            auto& a = *s.as<Assign>();
            // MSL: a 64-bit addition updating a local inside a loop goes
            // out of line (see Prelude::add64).
            auto* sum = a.value->as<Binary>();
            add64_next_ = t_.dialect == Dialect::Metal && loop_depth_ > 0 && sum && sum->op == BinOp::Add &&
                          is_int(sum->dtype()) && bits_of(sum->dtype()) == 64 && reads_var(*a.value, a.var);
            // A product bound to a name is rounded once (CUDA would fuse it
            // into a later statement's addition); through a negation or a
            // conversion it is still the first Binary printed.
            const Expr* root = a.value.get();
            while (true) {
                if (auto* u = root->as<Unary>(); u && u->op == UnOp::Neg) root = u->operand.get();
                else if (auto* c = root->as<Cast>()) root = c->operand.get();
                else break;
            }
            auto* product = root->as<Binary>();
            rounded_next_ = product && product->op == BinOp::Mul && is_float(product->dtype()) &&
                            t_.rounded_product[product->dtype() == DType::F64];
            std::string v = expr(*a.value);
            add64_next_ = false;
            rounded_next_ = false;
            line(var_names_[a.var] + " = " + v + ";");
            break;
        }
        case StmtKind::Store: store(*s.as<Store>()); break;
        case StmtKind::Eval: {
            // A value without effects is not printed (tack.barrier()'s is 0);
            // an atomic whose old value is dropped is a call statement.
            if (!effectful(*s.as<Eval>()->value)) break;
            discard_atomic_ = s.as<Eval>()->value->kind == ExprKind::Atomic;
            std::string v = expr(*s.as<Eval>()->value);
            discard_atomic_ = false;
            if (v.empty()) break;
            if (v.rfind("tk_e", 0) != 0) line("(void)(" + v + ");");
            break;
        }
        case StmtKind::Print: print(*s.as<Print>()); break;
        case StmtKind::Barrier:
            note_collective();
            line(std::string(t_.barrier) + ";");
            break;
        case StmtKind::If: {
            auto& i = *s.as<If>();
            open("if " + parenthesized(truth(*i.cond)));
            ++branch_depth_;
            block(i.then_body);
            if (!i.else_body.empty()) {
                --indent_;
                line("} else {");
                ++indent_;
                block(i.else_body);
            }
            --branch_depth_;
            close();
            break;
        }
        case StmtKind::For: for_loop(*s.as<For>()); break;
        case StmtKind::While: while_loop(*s.as<While>()); break;
        case StmtKind::Break: line("break;"); break;
        case StmtKind::Continue:
            // The parallel loop's `continue` ends this work item's iteration.
            ended_early_ = ended_early_ || loop_depth_ == 0;
            line(loop_depth_ == 0 ? "return;" : "continue;");
            break;
    }
}

// A collective inside an if, or after a return that ends the iteration:
// control flow around a barrier, which the participation proof accepts
// where it is uniform, but which PoCL's work-group code has been seen to
// get wrong (CSource::barrier_under_branch).
void Printer::note_collective() { branched_collective_ = branched_collective_ || branch_depth_ > 0 || ended_early_; }

void Printer::store(const Store& s) {
    // The value, then the indices.
    std::vector<const Expr*> kids{s.value.get()};
    for (auto& i : s.indices) kids.push_back(i.get());
    std::vector<std::string> texts = operands(kids);
    std::vector<std::string> value{texts[0]};
    std::vector<std::string> idx = indices(s.array, s.indices, {texts.begin() + 1, texts.end()});
    std::string ok = bounds_check(s.array, idx, s.span);
    std::string target = array_names_[s.array] + "[" + offset(s.array, idx, s.component) + "]";
    if (ok.empty()) {
        line(target + " = " + value[0] + ";");
    } else {
        open("if " + parenthesized(ok));
        line(target + " = " + value[0] + ";");
        close();
    }
}

// `for v in range(start, end, step)`: the bounds once, then a 64-bit
// counter over the trip count (capped at 2^63 - 1); the variable is
// start + k * step, wrapped in its type, so the body may reassign it.
void Printer::for_loop(const For& f) {
    DType t = *k_.vars[f.var].type;
    std::vector<std::string> b = operands({f.start.get(), f.end.get(), f.step.get()});
    for (auto& x : b) x = temp(t, x);
    bool s = is_signed_int(t);
    std::string w = s ? i64() : u64();
    std::string n = temp(DType::I64, prelude_.cap63() + "(" + prelude_.trip_count(s) + "((" + w + ")" + b[0] + ", (" +
                                         w + ")" + b[1] + ", (" + w + ")" + b[2] + "))");
    std::string k = fresh("tk_k");
    open("for (" + i64() + " " + k + " = 0; " + k + " < " + n + "; ++" + k + ")");
    std::string i = convert(DType::I64, t, k);
    std::string step = wrap(t, carrier_cast(t, i) + " * " + carrier_cast(t, b[2]));
    line(var_names_[f.var] + " = " + wrap(t, carrier_cast(t, b[0]) + " + " + carrier_cast(t, step)) + ";");
    ++loop_depth_;
    block(f.body);
    --loop_depth_;
    close();
}

void Printer::while_loop(const While& w) {
    if (!effectful(*w.cond)) {
        open("while " + parenthesized(truth(*w.cond)));
    } else {
        // The condition's statements run before every test.
        open("for (;;)");
        line("if (!" + truth(*w.cond) + ") break;");
    }
    ++loop_depth_;
    block(w.body);
    --loop_depth_;
    close();
}

void Printer::dims(bool want_counts) {
    dim_start_.clear();
    dim_step_.clear();
    dim_count_.clear();
    for (auto& d : k_.dims) {
        DType t = *k_.vars[d.var].type;
        std::vector<const Expr*> kids{d.start.get(), d.end.get()};
        if (d.step) kids.push_back(d.step.get());
        std::vector<std::string> b = operands(kids);
        for (auto& x : b) x = temp(t, x);
        if (!d.step) b.push_back(is_float(t) ? "1" : int_literal(1, t));
        dim_start_.push_back(b[0]);
        dim_step_.push_back(b[2]);
        if (!want_counts) continue;
        bool s = is_signed_int(t);
        std::string w = s ? i64() : u64();
        std::string c = fresh("tk_c");
        line("const " + u64() + " " + c + " = " + prelude_.trip_count(s) + "((" + w + ")" + b[0] + ", (" + w + ")" +
             b[1] + ", (" + w + ")" + b[2] + ");");
        dim_count_.push_back(c);
    }
}

// One work item: the prologue, each dimension's trip count, then out[0] =
// their product, or -1 and the refusal (abi.h) when a step is not positive
// or the product passes 2^63 - 1 with no dimension empty.
void Printer::count_entry() {
    std::vector<const Expr*> exprs;
    for (auto& d : k_.dims) {
        exprs.push_back(d.start.get());
        exprs.push_back(d.end.get());
        if (d.step) exprs.push_back(d.step.get());
    }
    declare_locals({&k_.prologue}, exprs);
    block(k_.prologue);
    dims(true);
    for (size_t d = 0; d < k_.dims.size(); ++d) {
        if (!k_.dims[d].step) continue;
        DType t = *k_.vars[k_.dims[d].var].type;
        const std::string& st = dim_step_[d];
        open(std::string("if (") + (is_signed_int(t) ? st + " <= 0" : st + " == 0") + ")");
        line("tk_out[1] = 1;");
        line("tk_out[2] = " + std::to_string(d) + ";");
        line("tk_out[3] = " + (is_signed_int(t) ? "(" + i64() + ")" + st : std::string("0")) + ";");
        line("tk_out[0] = -1;");
        line("return;");
        close();
    }
    std::string max = lit64(DType::U64, "9223372036854775807");
    line(u64() + " tk_total = 1;");
    line("int tk_big = 0, tk_empty = 0;");
    for (auto& c : dim_count_) {
        line("if (" + c + " == 0) tk_empty = 1;");
        line("else if (tk_big || tk_total > " + max + " / " + c + ") tk_big = 1;");
        line("else tk_total *= " + c + ";");
    }
    open("if (tk_big && !tk_empty)");
    line("tk_out[1] = 2;");
    line("tk_out[4] = " + std::to_string(k_.dims.size()) + ";");
    for (size_t d = 0; d < dim_count_.size(); ++d) {
        line("tk_out[" + std::to_string(5 + 2 * d) + "] = " + prelude_.signed_from_bits(DType::I64) + "(" +
             dim_count_[d] + ");");
        line("tk_out[" + std::to_string(6 + 2 * d) + "] = 0;");
    }
    line("tk_out[0] = -1;");
    line("return;");
    close();
    line("tk_out[0] = tk_empty ? 0 : (" + i64() + ")tk_total;");
}

// One work item per flat index below the count: the prologue, the
// dimensions' values unravelled row-major from the flat index (the last
// dimension fastest), then the iteration. A kernel with barriers or
// collectives runs only complete groups (the runtime refuses any other
// count), so every work item is below the count and it has no early
// return: a return before a barrier, even one no work item takes, makes
// PoCL's work-group code give wrong values (tests/cpp/tile/
// compile_random_test.cpp, seeds 4134 and 3063).
void Printer::body_entry() {
    std::string flat = t_.dialect == Dialect::Metal ? "(" + i64() + ")tk_gid" : std::string(t_.flat_index);
    line("const " + i64() + " tk_i = " + flat + ";");
    if (!full_groups_) line("if (tk_i >= tk_count) return;");
    std::vector<const Expr*> exprs;
    for (auto& d : k_.dims) {
        exprs.push_back(d.start.get());
        exprs.push_back(d.end.get());
        if (d.step) exprs.push_back(d.step.get());
    }
    declare_locals({&k_.prologue, &k_.body}, exprs, true);
    if (block_reduces_) line(std::string(t_.shared) + "float tk_scratch[" + std::to_string(kGroupSize) + "];");
    block(k_.prologue);
    size_t nd = k_.dims.size();
    dims(nd > 1);
    std::vector<std::string> idx(nd);
    std::string i = "(" + u64() + ")tk_i";
    DType idx_type = nd == 1 ? DType::I64 : DType::U64;
    if (nd == 1) {
        idx[0] = "tk_i";
    } else {
        idx[nd - 1] = temp(DType::U64, i + " % " + dim_count_[nd - 1]);
        std::string q = temp(DType::U64, i + " / " + dim_count_[nd - 1]);
        for (size_t d = nd - 1; d-- > 0;) {
            if (d == 0) {
                idx[0] = q;
            } else {
                idx[d] = temp(DType::U64, q + " % " + dim_count_[d]);
                q = temp(DType::U64, q + " / " + dim_count_[d]);
            }
        }
    }
    for (size_t d = 0; d < nd; ++d) {
        DType t = *k_.vars[k_.dims[d].var].type;
        std::string v = convert(idx_type, t, idx[d]);
        std::string step = k_.dims[d].step ? wrap(t, carrier_cast(t, v) + " * " + carrier_cast(t, dim_step_[d])) : v;
        line(var_names_[k_.dims[d].var] + " = " + wrap(t, carrier_cast(t, dim_start_[d]) + " + " + carrier_cast(t, step)) +
             ";");
    }
    block(k_.body);
}

}  // namespace tack::codegen::cfamily
