#include "backends/gpu/host_count.h"

#include <algorithm>
#include <array>

#include "runtime/array.h"

namespace tack::backends::gpu {

namespace {

using Wide = __int128;

// `bits` (the low bits_of(t) of them) as the value of type t.
Wide value_of(uint64_t bits, DType t) {
    const uint64_t wide = widened_bits(bits, t);
    return is_signed_int(t) ? Wide(static_cast<int64_t>(wide)) : Wide(wide);
}

bool fits(Wide v, DType t) {
    if (!is_int(t)) return false;
    const int w = bits_of(t);
    if (is_signed_int(t)) return v >= -(Wide(1) << (w - 1)) && v < (Wide(1) << (w - 1));
    return v >= 0 && v < (Wide(1) << w);
}

// The count entry's trip count of one dimension (codegen/cfamily/prelude.cpp,
// tk_trip_s): how many of start, start + step, ... lie before end.
uint64_t trip_count(int64_t s, int64_t e, int64_t st) {
    if (st > 0 && e > s) return (uint64_t(e) - uint64_t(s) - 1) / uint64_t(st) + 1;
    if (st < 0 && s > e) return (uint64_t(s) - uint64_t(e) - 1) / (uint64_t{0} - uint64_t(st)) + 1;
    return 0;
}

// Whether `s` stores, prints, synchronizes or updates memory atomically.
bool has_effects(const ir::Stmt& s) {
    bool effects = false;
    ir::visit(
        s, [&](const ir::Expr& e) { effects |= e.as<ir::Atomic>() || e.as<ir::BlockReduce>(); },
        [&](const ir::Stmt& t) { effects |= t.as<ir::Store>() || t.as<ir::Print>() || t.as<ir::Barrier>(); });
    return effects;
}

}  // namespace

bool HostCount::compile(const ir::Kernel& typed, const Locals& locals, const ir::Expr& e, Bound& out) {
    Step step;
    step.type = e.dtype();
    if (!is_int(step.type)) return false;
    if (auto* c = e.as<ir::Cast>()) {
        if (!compile(typed, locals, *c->operand, out)) return false;
        step.op = Step::Op::Cast;
        step.type = c->to;
    } else if (auto* bin = e.as<ir::Binary>()) {
        static const std::pair<ir::BinOp, Step::Op> kExact[] = {{ir::BinOp::Add, Step::Op::Add},
                                                                 {ir::BinOp::Sub, Step::Op::Sub},
                                                                 {ir::BinOp::Mul, Step::Op::Mul},
                                                                 {ir::BinOp::Min, Step::Op::Min},
                                                                 {ir::BinOp::Max, Step::Op::Max}};
        auto op = std::find_if(std::begin(kExact), std::end(kExact), [&](auto& p) { return p.first == bin->op; });
        if (op == std::end(kExact) || bin->lhs->dtype() != step.type || bin->rhs->dtype() != step.type ||
            !compile(typed, locals, *bin->lhs, out) || !compile(typed, locals, *bin->rhs, out))
            return false;
        step.op = op->second;
    } else if (auto* lit = e.as<ir::IntConst>()) {
        step.op = Step::Op::Constant;
        step.bits = lit->bits;  // value_of reads them in their type
    } else if (auto* ref = e.as<ir::VarRef>()) {
        const ir::Var& v = typed.vars[ref->var];
        if (locals.assigned[ref->var]) {
            // The value the prologue last assigned it, in its type: its
            // program in place of the read.
            const std::optional<Bound>& assigned = locals.program[ref->var];
            if (!assigned || v.type != step.type || out.size() + assigned->size() > kMaxSteps) return false;
            out.insert(out.end(), assigned->begin(), assigned->end());
            return true;
        }
        if (v.role != ir::VarRole::Param || v.param < 0) return false;
        const ir::Param& p = typed.params[v.param];
        if (p.kind != ir::ParamKind::Scalar || p.dtype != step.type) return false;
        step.op = Step::Op::Scalar;
        step.param = v.param;
    } else if (auto* dim = e.as<ir::ArrayDim>()) {
        if (typed.params[dim->array].kind != ir::ParamKind::Array) return false;
        step.op = Step::Op::Extent;
        step.param = dim->array;
        step.dim = dim->dim;
    } else {
        return false;
    }
    if (out.size() >= kMaxSteps) return false;
    out.push_back(step);
    return true;
}

std::optional<HostCount> HostCount::plan(const ir::Kernel& typed) {
    if (typed.dims.empty() || int(typed.dims.size()) > codegen::kMaxDims) return std::nullopt;
    // The prologue in order, as the count entry runs it: each assignment
    // gives its variable a new program, the value converted to the
    // variable's type (a Cast step, so a value the conversion would change
    // leaves the count to the device). A value the host cannot follow, and
    // every assignment inside another statement (a branch, a loop), leave
    // the variable without one. A statement with an effect (which the
    // front end keeps out of the prologue) leaves the whole count to the
    // device.
    Locals locals{std::vector<bool>(typed.vars.size(), false),
                  std::vector<std::optional<Bound>>(typed.vars.size())};
    // What a statement assigns, the host does not know.
    auto unknown = [&](const ir::Stmt& t) {
        if (auto* a = t.as<ir::Assign>()) {
            locals.assigned[a->var] = true;
            locals.program[a->var] = std::nullopt;
        }
    };
    for (const ir::StmtPtr& s : typed.prologue) {
        if (has_effects(*s)) return std::nullopt;
        const ir::Assign* a = s->as<ir::Assign>();
        std::optional<Bound> value;
        if (a && typed.vars[a->var].type && is_int(*typed.vars[a->var].type)) {
            const DType type = *typed.vars[a->var].type;
            Bound b;
            if (compile(typed, locals, *a->value, b) && (a->value->dtype() == type || b.size() < kMaxSteps)) {
                if (a->value->dtype() != type) {
                    Step cast;
                    cast.op = Step::Op::Cast;
                    cast.type = type;
                    b.push_back(cast);
                }
                value = std::move(b);
            }
        }
        ir::visit(*s, [](const ir::Expr&) {}, unknown);  // (an inlined call's temporaries too)
        if (value) locals.program[a->var] = std::move(value);
    }
    HostCount h;
    for (const ir::ParallelDim& d : typed.dims) {
        Dim dim;
        dim.type = *typed.vars[d.var].type;
        dim.has_step = d.step != nullptr;
        if (!is_signed_int(dim.type) || !compile(typed, locals, *d.start, dim.start) ||
            !compile(typed, locals, *d.end, dim.end) || (d.step && !compile(typed, locals, *d.step, dim.step)))
            return std::nullopt;
        h.dims_.push_back(std::move(dim));
    }
    return h;
}

std::optional<int64_t> HostCount::value(const Bound& b, const LaunchArg* args, size_t n, DType to) {
    // At most kMaxSteps values: a bound has no more steps (plan, read).
    std::array<Wide, kMaxSteps> stack;
    size_t depth = 0;
    for (const Step& s : b) {
        Wide v = 0;
        switch (s.op) {
            case Step::Op::Constant: v = value_of(s.bits, s.type); break;
            case Step::Op::Scalar:
                if (s.param < 0 || size_t(s.param) >= n) return std::nullopt;
                v = value_of(args[s.param].bits, s.type);
                break;
            case Step::Op::Extent: {
                if (s.param < 0 || size_t(s.param) >= n || !args[s.param].array) return std::nullopt;
                const runtime::Array& a = *args[s.param].array;
                if (s.dim < 0 || s.dim >= a.ndim()) return std::nullopt;
                v = a.shape()[s.dim];
                break;
            }
            case Step::Op::Cast:
                if (depth < 1) return std::nullopt;
                v = stack[--depth];
                break;
            default: {
                if (depth < 2) return std::nullopt;
                const Wide r = stack[--depth];
                const Wide l = stack[--depth];
                switch (s.op) {
                    case Step::Op::Add: v = l + r; break;
                    case Step::Op::Sub: v = l - r; break;
                    case Step::Op::Mul: v = l * r; break;  // of two values of at most 64 bits: exact
                    case Step::Op::Min: v = std::min(l, r); break;
                    default: v = std::max(l, r); break;
                }
            }
        }
        if (!fits(v, s.type)) return std::nullopt;
        stack[depth++] = v;
    }
    if (depth != 1 || !fits(stack[0], to)) return std::nullopt;
    return static_cast<int64_t>(stack[0]);
}

// As codegen/cfamily/emit_stmt.cpp's count entry: every dimension's trip
// count, then the first step that is not positive refused, then the
// product, refused past 2^63 - 1 unless a dimension is empty.
std::optional<int64_t> HostCount::count(const LaunchArg* args, size_t n, codegen::LaunchRefusal* refusal) const {
    std::array<uint64_t, codegen::kMaxDims> counts{};
    std::array<int64_t, codegen::kMaxDims> steps;
    steps.fill(1);
    for (size_t d = 0; d < dims_.size(); ++d) {
        const Dim& dim = dims_[d];
        auto start = value(dim.start, args, n, dim.type), end = value(dim.end, args, n, dim.type);
        if (!start || !end) return std::nullopt;
        if (dim.has_step) {
            auto step = value(dim.step, args, n, dim.type);
            if (!step) return std::nullopt;
            steps[d] = *step;
        }
        counts[d] = trip_count(*start, *end, steps[d]);
    }
    for (size_t d = 0; d < dims_.size(); ++d) {
        if (!dims_[d].has_step || steps[d] > 0) continue;
        *refusal = codegen::LaunchRefusal{};
        refusal->reason = codegen::LaunchRefusal::StepNotPositive;
        refusal->dim = int64_t(d);
        refusal->step = steps[d];
        return -1;
    }
    constexpr uint64_t kMax = uint64_t{9223372036854775807};
    uint64_t total = 1;
    bool big = false, empty = false;
    for (size_t d = 0; d < dims_.size(); ++d) {
        const uint64_t c = counts[d];
        if (c == 0) empty = true;
        else if (big || total > kMax / c) big = true;
        else total *= c;
    }
    if (big && !empty) {
        *refusal = codegen::LaunchRefusal{};
        refusal->reason = codegen::LaunchRefusal::TooManyIterations;
        refusal->ndims = int64_t(dims_.size());
        for (size_t d = 0; d < dims_.size(); ++d) refusal->counts[d][0] = counts[d];
        return -1;
    }
    return empty ? 0 : int64_t(total);
}

void HostCount::write(support::ByteWriter& out) const {
    auto write_bound = [&](const Bound& b) {
        out.u32(static_cast<uint32_t>(b.size()));
        for (const Step& s : b) {
            out.u8(static_cast<uint8_t>(s.op));
            out.u8(static_cast<uint8_t>(s.type));
            out.u64(s.bits);
            out.u32(static_cast<uint32_t>(s.param));
            out.u32(static_cast<uint32_t>(s.dim));
        }
    };
    out.u32(static_cast<uint32_t>(dims_.size()));
    for (const Dim& d : dims_) {
        out.u8(static_cast<uint8_t>(d.type));
        out.u8(d.has_step);
        write_bound(d.start);
        write_bound(d.end);
        write_bound(d.step);
    }
}

std::optional<HostCount> HostCount::read(support::ByteReader& in) {
    auto type = [&](uint8_t t) -> std::optional<DType> {
        if (t >= kNumDTypes) return std::nullopt;
        return static_cast<DType>(t);
    };
    auto read_bound = [&](Bound& b) {
        uint32_t steps = in.u32();
        if (steps > kMaxSteps) return false;
        for (uint32_t i = 0; i < steps; ++i) {
            Step s;
            uint8_t op = in.u8();
            auto t = type(in.u8());
            s.bits = in.u64();
            s.param = static_cast<int>(in.u32());
            s.dim = static_cast<int>(in.u32());
            if (op > uint8_t(Step::Op::Max) || !t) return false;
            s.op = static_cast<Step::Op>(op);
            s.type = *t;
            b.push_back(s);
        }
        return true;
    };
    HostCount h;
    uint32_t dims = in.u32();
    if (dims == 0 || dims > uint32_t(codegen::kMaxDims)) return std::nullopt;
    for (uint32_t i = 0; i < dims; ++i) {
        Dim d;
        auto t = type(in.u8());
        d.has_step = in.u8() != 0;
        if (!t || !read_bound(d.start) || !read_bound(d.end) || !read_bound(d.step)) return std::nullopt;
        d.type = *t;
        h.dims_.push_back(std::move(d));
    }
    return h;
}

}  // namespace tack::backends::gpu
