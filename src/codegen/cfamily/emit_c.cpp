// Legality per target, the argument slots, entry signatures and the
// translation unit.
#include "codegen/cfamily/emit_c.h"

#include <functional>
#include <set>

#include "analysis/effects.h"
#include "analysis/uniformity.h"
#include "analysis/workgroups.h"
#include "codegen/cfamily/printer.h"

namespace tack::codegen::cfamily {

namespace {

bool atomic_dtype_supported(Dialect d, DType t) {
    if (t == DType::I32 || t == DType::U32 || t == DType::F32) return true;
    if (t == DType::I64 || t == DType::U64 || t == DType::F64) return table(d).atomics64;
    return false;
}

const char* atomic_name(AtomicOp op) { return to_string(op); }

// C99 math functions the Metal standard library does not provide.
bool missing_from_msl(MathFn fn) {
    switch (fn) {
        case MathFn::Erf:
        case MathFn::Erfc:
        case MathFn::Expm1:
        case MathFn::Log1p:
        case MathFn::Cbrt:
        case MathFn::Hypot: return true;
        default: return false;
    }
}

}  // namespace

void check_legal(const Kernel& k, Dialect d) {
    std::string target = std::string("the ") + to_string(d) + " target";
    analysis::require_participation(k);
    std::string domain = table(d).atomics64 ? "i32, u32, i64, u64, f32 and f64" : "i32, u32 and f32";
    bool metal = d == Dialect::Metal;
    auto no_f64 = [&](Span span, const std::string& what) {
        k.fail(syntax::ErrorKind::Type, span, what + " is f64, which " + target + " does not support (MSL has no double)",
               "f64", "use f32 on Metal");
    };
    ir::visit(
        k,
        [&](const Expr& e) {
            if (auto* a = e.as<Atomic>()) {
                auto& p = k.params[a->array];
                if (p.kind != ParamKind::Array)
                    k.fail(syntax::ErrorKind::Type, e.span,
                           std::string(atomic_name(a->op)) + " on '" + p.name + "' is not supported by " + target +
                               ": atomics update global array parameters only",
                           atomic_name(a->op));
                if (!atomic_dtype_supported(d, p.dtype))
                    k.fail(syntax::ErrorKind::Type, e.span,
                           std::string(atomic_name(a->op)) + " on the " + std::string(name_of(p.dtype)) + " array '" +
                               p.name + "' is not supported by " + target + ": its atomics cover " + domain + " arrays",
                           atomic_name(a->op));
            }
            if (auto* t = e.as<TextureSample>(); t && !table(d).texture_sample)
                k.fail(syntax::ErrorKind::Type, e.span,
                       "texture '" + k.params[t->texture].name + "' is a hardware texture, which " + target +
                           " does not sample",
                       "sample");
            if (metal && e.type && *e.type == DType::F64) no_f64(e.span, "a value");
            if (auto* m = e.as<Math>(); m && metal && missing_from_msl(m->fn))
                k.fail(syntax::ErrorKind::Type, e.span,
                       std::string(to_string(m->fn)) + "() is not supported by " + target +
                           ": the Metal standard library has no " + to_string(m->fn),
                       to_string(m->fn), "run this kernel on another backend");
        },
        [](const Stmt&) {});
    if (!metal) return;
    for (auto& p : k.params)
        if (p.kind != ParamKind::Object && p.dtype == DType::F64)
            no_f64(k.loop_span, std::string(p.is_array() ? "array" : "parameter") + " '" + p.name + "'");
    for (auto& v : k.vars)
        if (v.type == DType::F64) no_f64(k.loop_span, "local '" + v.name + "'");
}

// ---------------------------------------------------------------- the printer

Printer::Printer(const Kernel& k, Dialect d, bool debug, Prelude& prelude, std::vector<DebugAccess>& accesses)
    : k_(k), t_(table(d)), debug_(debug), prelude_(prelude), accesses_(accesses) {
    workgroups_ = !analysis::workgroup_uses(k).empty();
    full_groups_ = analysis::needs_complete_groups(k);
    ir::visit(
        k, [&](const Expr& e) { block_reduces_ = block_reduces_ || e.kind == ExprKind::BlockReduce; },
        [&](const Stmt& s) {
            if (auto* p = s.as<Print>()) {
                print_index_[&s] = static_cast<int>(prints_.size());
                prints_.push_back(PrintFormat{ir::print_kinds(*p)});
            }
        });
    name_bindings();
    build_slots();
}

void Printer::name_bindings() {
    BindingNames names;
    array_names_.assign(k_.params.size(), "");
    scalar_slots_.assign(k_.params.size(), "");
    for (size_t p = 0; p < k_.params.size(); ++p) {
        auto& param = k_.params[p];
        if (param.is_array()) array_names_[p] = names.add(param.name);
        if (param.kind == ParamKind::Scalar) scalar_slots_[p] = "tk_arg_v_" + encode_identifier(param.name);
    }
    var_names_.assign(k_.vars.size(), "");
    for (size_t v = 0; v < k_.vars.size(); ++v) {
        auto& var = k_.vars[v];
        var_names_[v] = var.role == VarRole::Temp ? "tk_t" + std::to_string(v) : names.add(var.name);
    }
}

void Printer::build_slots() {
    using K = ArgSlot::Kind;
    auto add = [&](K kind, int param, int dim, DType dt, int bytes, std::string name, std::string c_type) {
        slots_.push_back(ArgSlot{kind, param, dim, dt, bytes});
        slot_names_.push_back(SlotName{std::move(name), std::move(c_type)});
    };
    for (size_t p = 0; p < k_.params.size(); ++p) {
        auto& param = k_.params[p];
        int pi = static_cast<int>(p);
        if (param.kind == ParamKind::Texture && param.image) {
            add(K::Image, pi, 0, DType::U64, 8, array_names_[p], ty(DType::U64));
        } else if (param.kind == ParamKind::Array || param.kind == ParamKind::Texture) {
            const std::string& n = array_names_[p];
            std::string pointer = std::string(t_.global) + ty(param.dtype) + "*";
            if (!t_.byte_offsets) add(K::Data, pi, 0, param.dtype, 8, n, pointer);
            if (!param.used) {
                if (t_.byte_offsets) add(K::Data, pi, 0, param.dtype, 8, n, pointer);
                continue;
            }
            if (t_.byte_offsets) {
                // The buffer and the offset of the first element; each entry
                // rebinds the array's name to the element (declare_locals).
                add(K::Data, pi, 0, param.dtype, 8, "tk_b_" + n, std::string(t_.global) + "char*");
                add(K::ByteOffset, pi, 0, DType::I64, 8, "tk_o_" + n, i64());
            }
            for (int d = 0; d < param.ndim; ++d)
                add(K::Extent, pi, d, DType::I64, 8, "tk_n" + std::to_string(d) + "_" + n, i64());
            if (!param.contiguous)
                for (int d = 0; d < param.ndim; ++d)
                    add(K::Stride, pi, d, DType::I64, 8, "tk_s" + std::to_string(d) + "_" + n, i64());
            if (param.soa) add(K::ComponentStride, pi, 0, DType::I64, 8, "tk_c_" + n, i64());
        } else if (param.kind == ParamKind::Scalar) {
            DType c = param.dtype;
            if (is_int(c) && bits_of(c) < 32) c = is_signed_int(c) ? DType::I32 : DType::U32;
            add(K::Scalar, pi, 0, param.dtype, size_of(c), scalar_slots_[p], ty(c));
        }
    }
    add(K::Count, -1, 0, DType::I64, 8, "tk_count", i64());
    add(K::Out, -1, 0, DType::I64, 8, "tk_out", std::string(t_.global) + i64() + "*");
    if (debug_) add(K::Debug, -1, 0, DType::I64, 8, "tk_debug", std::string(t_.global) + i64() + "*");
    if (!prints_.empty()) add(K::Print, -1, 0, DType::I64, 8, "tk_print", std::string(t_.global) + i64() + "*");
}

std::string Printer::argument_struct() const {
    std::string s = "struct tk_arrays {\n";
    int id = 0;
    for (size_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].kind == ArgSlot::Kind::Data)
            s += "    " + slot_names_[i].c_type + " " + slot_names_[i].name + " [[id(" + std::to_string(id++) + ")]];\n";
    return s + "};\n";
}

std::string Printer::signature(EntryKind kind) const {
    std::vector<std::string> args;
    bool metal = t_.dialect == Dialect::Metal;
    bool has_data = false;
    int buffer = 1;
    for (size_t i = 0; i < slots_.size(); ++i) {
        auto& n = slot_names_[i];
        if (!metal) {
            args.push_back(n.c_type + " " + n.name);
        } else if (slots_[i].kind == ArgSlot::Kind::Data) {
            has_data = true;
        } else {
            bool pointer = slots_[i].kind == ArgSlot::Kind::Out || slots_[i].kind == ArgSlot::Kind::Debug ||
                           slots_[i].kind == ArgSlot::Kind::Print;
            std::string type = pointer ? n.c_type : "constant " + n.c_type + "&";
            args.push_back(type + " " + n.name + " [[buffer(" + std::to_string(buffer++) + ")]]");
        }
    }
    if (metal) {
        if (has_data) args.insert(args.begin(), "constant tk_arrays& tk_ab [[buffer(0)]]");
        if (kind == EntryKind::Body) args.push_back("uint tk_gid [[thread_position_in_grid]]");
        if (kind == EntryKind::Body && workgroups_) args.push_back("uint tk_lane [[thread_position_in_threadgroup]]");
    }
    std::string s;
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ",\n        " : "") + args[i];
    return "(" + s + ")";
}

// Declares what the statements and expressions of one entry read: MSL's
// array pointers from the argument buffer, local arrays, and every local
// (zero, or a scalar parameter's value from its slot).
void Printer::declare_locals(const std::vector<const Block*>& blocks, const std::vector<const Expr*>& exprs,
                             bool dim_vars) {
    std::set<int> vars, arrays;
    if (dim_vars)
        for (auto& d : k_.dims) vars.insert(d.var);
    auto on_expr = [&](const Expr& e) {
        if (auto* v = e.as<VarRef>()) vars.insert(v->var);
        if (auto* l = e.as<Load>()) arrays.insert(l->array);
        if (auto* a = e.as<Atomic>()) arrays.insert(a->array);
        if (auto* d = e.as<ArrayDim>()) arrays.insert(d->array);
    };
    auto on_stmt = [&](const Stmt& s) {
        if (auto* a = s.as<Assign>()) vars.insert(a->var);
        if (auto* f = s.as<For>()) vars.insert(f->var);
        if (auto* st = s.as<Store>()) arrays.insert(st->array);
    };
    for (auto* b : blocks) ir::visit(*b, on_expr, on_stmt);
    for (auto* e : exprs) ir::visit(*e, on_expr, on_stmt);
    for (int a : arrays) {
        auto& p = k_.params[a];
        if (p.kind == ParamKind::LocalArray) {
            int64_t n = 1;
            for (auto e : p.local_shape) n *= e;
            line((p.shared ? std::string(t_.shared) : std::string()) + ty(p.dtype) + " " + array_names_[a] + "[" +
                 std::to_string(n) + "];");
        } else if (t_.dialect == Dialect::Metal) {
            line("device " + ty(p.dtype) + "* " + array_names_[a] + " = tk_ab." + array_names_[a] + ";");
        } else if (t_.byte_offsets) {
            const std::string& n = array_names_[a];
            line(std::string(t_.global) + ty(p.dtype) + "* " + n + " = (" + t_.global + ty(p.dtype) + "*)(tk_b_" + n +
                 " + tk_o_" + n + ");");
        }
    }
    for (int v : vars) {
        auto& var = k_.vars[v];
        TACK_CHECK(var.type.has_value(), kEmitPass, "local '" + var.name + "' has no type");
        DType t = *var.type;
        std::string init = is_float(t) ? (t == DType::F32 ? "0.0f" : "0.0") : "0";
        if (var.role == VarRole::Param) {
            DType from = k_.params[var.param].dtype;
            DType carrier = is_int(from) && bits_of(from) < 32 ? (is_signed_int(from) ? DType::I32 : DType::U32) : from;
            init = convert(carrier, t, scalar_slots_[var.param]);
        }
        line(ty(t) + " " + var_names_[v] + " = " + init + ";");
    }
}

void Printer::line(const std::string& text) { out_ += std::string(4 * indent_, ' ') + text + "\n"; }

void Printer::open(const std::string& head) {
    line(head + " {");
    ++indent_;
}

void Printer::close() {
    --indent_;
    line("}");
}

std::string Printer::fresh(const char* stem) { return std::string(stem) + std::to_string(temps_++); }

std::string Printer::temp(DType t, const std::string& value) {
    std::string n = fresh("tk_e");
    line("const " + ty(t) + " " + n + " = " + value + ";");
    return n;
}

std::string Printer::entry(EntryKind kind, const std::string& name) {
    out_.clear();
    indent_ = 0;
    temps_ = 0;
    loop_depth_ = 0;
    effectful_.clear();
    std::string head = t_.kernel;
    if (kind == EntryKind::Body && workgroups_ && *t_.group_size_attribute) head += std::string(" ") + t_.group_size_attribute;
    open(head + " void " + name + signature(kind));
    switch (kind) {
        case EntryKind::Count: count_entry(); break;
        case EntryKind::Body: body_entry(); break;
        case EntryKind::Result: {
            std::vector<const Expr*> exprs{k_.result.get()};
            declare_locals({&k_.prologue, &k_.epilogue}, exprs);
            block(k_.prologue);
            block(k_.epilogue);
            DType t = k_.result->dtype();
            std::string r = temp(t, expr(*k_.result));
            // The value's bits in the low bytes of out[0], the rest zero.
            std::string bits;
            if (is_float(t)) {
                bits = t == DType::F32 ? "(" + i64() + ")" + prelude_.to_bits(t) + "(" + r + ")"
                                       : prelude_.signed_from_bits(DType::I64) + "(" + prelude_.to_bits(t) + "(" + r + "))";
            } else if (bits_of(t) == 64) {
                bits = prelude_.signed_from_bits(DType::I64) + "((" + u64() + ")" + r + ")";
            } else {
                bits = "(" + i64() + ")(" + ty(int_type(bits_of(t), false)) + ")" + r;
            }
            line("tk_out[0] = " + bits + ";");
            break;
        }
    }
    close();
    return out_;
}

// ------------------------------------------------------------------- emit_c

CSource emit_c(const Kernel& typed, Dialect dialect, const EmitOptions& options) {
    TACK_CHECK(typed.typed, kEmitPass, "kernel '" + typed.name + "' is not typed");
    check_legal(typed, dialect);
    CSource src;
    src.dialect = dialect;
    const DialectTable& t = table(dialect);
    src.compile_options = t.compile_options;
    src.entries.count = entry_symbol(typed.name, "count");
    src.entries.body = entry_symbol(typed.name, "body");
    if (typed.result) src.entries.result = entry_symbol(typed.name, "result");

    Prelude prelude(dialect);
    Printer p(typed, dialect, options.debug, prelude, src.debug_accesses);
    std::string entries = p.entry(EntryKind::Count, src.entries.count) + "\n" + p.entry(EntryKind::Body, src.entries.body);
    if (typed.result) entries += "\n" + p.entry(EntryKind::Result, src.entries.result);
    src.slots = p.slots();
    src.prints = p.prints();
    src.workgroups = p.uses_workgroups();
    src.full_groups = analysis::needs_complete_groups(typed);
    src.barrier_under_branch = p.barrier_under_branch() || typed.barriers_out_of_branches;

    src.count_reads_memory = analysis::count_reads_memory(typed);

    bool uses_f64 = false;
    ir::visit(
        typed, [&](const Expr& e) { uses_f64 = uses_f64 || (e.type && *e.type == DType::F64); }, [](const Stmt&) {});
    for (auto& param : typed.params) uses_f64 = uses_f64 || (param.kind != ParamKind::Object && param.dtype == DType::F64);

    src.text = "// Tack kernel '" + typed.name + "' for " + to_string(dialect) + "\n";
    src.text += t.preamble;
    if (dialect == Dialect::OpenCL && uses_f64) src.text += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    if (!prelude.text().empty()) src.text += "\n" + prelude.text();
    if (dialect == Dialect::Metal) src.text += "\n" + p.argument_struct();
    src.text += "\n" + entries;
    return src;
}

}  // namespace tack::codegen::cfamily
