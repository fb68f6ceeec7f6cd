#include "backends/gpu/host_count.h"

#include "runtime/array.h"

namespace tack::backends::gpu {

namespace {

using Wide = __int128;

// `bits` (the low bits_of(t) of them) as the value of type t.
Wide value_of(uint64_t bits, DType t) {
    const int w = bits_of(t);
    if (w < 64) {
        bits &= (uint64_t{1} << w) - 1;
        if (is_signed_int(t) && (bits >> (w - 1))) bits |= ~((uint64_t{1} << w) - 1);
    }
    return is_signed_int(t) ? Wide(static_cast<int64_t>(bits)) : Wide(bits);
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

}  // namespace

std::optional<HostCount::Bound> HostCount::bound(const ir::Kernel& typed, const ir::Expr& e) {
    if (auto* c = e.as<ir::Cast>()) {
        auto inner = bound(typed, *c->operand);
        if (!inner || !is_int(c->to)) return std::nullopt;
        inner->casts.push_back(c->to);
        return inner;
    }
    Bound b;
    b.type = e.dtype();
    if (!is_int(b.type)) return std::nullopt;
    if (auto* lit = e.as<ir::IntConst>()) {
        b.leaf = Bound::Leaf::Constant;
        b.value = static_cast<int64_t>(lit->bits);  // its bits; value_of reads them in its type
        return b;
    }
    if (auto* ref = e.as<ir::VarRef>()) {
        const ir::Var& v = typed.vars[ref->var];
        if (v.role != ir::VarRole::Param || v.param < 0) return std::nullopt;
        const ir::Param& p = typed.params[v.param];
        if (p.kind != ir::ParamKind::Scalar || p.dtype != b.type) return std::nullopt;
        b.leaf = Bound::Leaf::Scalar;
        b.param = v.param;
        return b;
    }
    if (auto* dim = e.as<ir::ArrayDim>()) {
        const ir::Param& p = typed.params[dim->array];
        if (p.kind != ir::ParamKind::Array) return std::nullopt;
        b.leaf = Bound::Leaf::Extent;
        b.param = dim->array;
        b.dim = dim->dim;
        return b;
    }
    return std::nullopt;
}

std::optional<HostCount> HostCount::plan(const ir::Kernel& typed) {
    if (!typed.prologue.empty() || typed.dims.empty() || int(typed.dims.size()) > codegen::kMaxDims)
        return std::nullopt;
    HostCount h;
    for (const ir::ParallelDim& d : typed.dims) {
        Dim dim;
        dim.type = *typed.vars[d.var].type;
        if (!is_signed_int(dim.type)) return std::nullopt;
        auto start = bound(typed, *d.start), end = bound(typed, *d.end);
        if (!start || !end) return std::nullopt;
        dim.start = *start;
        dim.end = *end;
        if (d.step) {
            auto step = bound(typed, *d.step);
            if (!step) return std::nullopt;
            dim.step = *step;
            dim.has_step = true;
        }
        h.dims_.push_back(std::move(dim));
    }
    return h;
}

std::optional<int64_t> HostCount::value(const Bound& b, const LaunchArg* args, size_t n, DType to) {
    Wide v = 0;
    switch (b.leaf) {
        case Bound::Leaf::Constant: v = value_of(static_cast<uint64_t>(b.value), b.type); break;
        case Bound::Leaf::Scalar:
            if (b.param < 0 || size_t(b.param) >= n) return std::nullopt;
            v = value_of(args[b.param].bits, b.type);
            break;
        case Bound::Leaf::Extent: {
            if (b.param < 0 || size_t(b.param) >= n || !args[b.param].array) return std::nullopt;
            const runtime::Array& a = *args[b.param].array;
            if (b.dim < 0 || b.dim >= a.ndim()) return std::nullopt;
            v = a.shape()[b.dim];
            if (!fits(v, b.type)) return std::nullopt;
            break;
        }
    }
    for (DType c : b.casts)
        if (!fits(v, c)) return std::nullopt;
    if (!fits(v, to)) return std::nullopt;
    return static_cast<int64_t>(v);
}

// As codegen/cfamily/emit_stmt.cpp's count entry: every dimension's trip
// count, then the first step that is not positive refused, then the
// product, refused past 2^63 - 1 unless a dimension is empty.
std::optional<int64_t> HostCount::count(const LaunchArg* args, size_t n, codegen::LaunchRefusal* refusal) const {
    std::vector<uint64_t> counts(dims_.size());
    std::vector<int64_t> steps(dims_.size(), 1);
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
    for (uint64_t c : counts) {
        if (c == 0) empty = true;
        else if (big || total > kMax / c) big = true;
        else total *= c;
    }
    if (big && !empty) {
        *refusal = codegen::LaunchRefusal{};
        refusal->reason = codegen::LaunchRefusal::TooManyIterations;
        refusal->ndims = int64_t(dims_.size());
        for (size_t d = 0; d < counts.size(); ++d) refusal->counts[d][0] = counts[d];
        return -1;
    }
    return empty ? 0 : int64_t(total);
}

void HostCount::write(support::ByteWriter& out) const {
    auto write_bound = [&](const Bound& b) {
        out.u8(static_cast<uint8_t>(b.leaf));
        out.u8(static_cast<uint8_t>(b.type));
        out.u64(static_cast<uint64_t>(b.value));
        out.u32(static_cast<uint32_t>(b.param));
        out.u32(static_cast<uint32_t>(b.dim));
        out.u32(static_cast<uint32_t>(b.casts.size()));
        for (DType c : b.casts) out.u8(static_cast<uint8_t>(c));
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
        uint8_t leaf = in.u8();
        auto t = type(in.u8());
        b.value = static_cast<int64_t>(in.u64());
        b.param = static_cast<int>(in.u32());
        b.dim = static_cast<int>(in.u32());
        uint32_t casts = in.u32();
        if (leaf > uint8_t(Bound::Leaf::Extent) || !t || casts > 64) return false;
        b.leaf = static_cast<Bound::Leaf>(leaf);
        b.type = *t;
        for (uint32_t i = 0; i < casts; ++i) {
            auto c = type(in.u8());
            if (!c) return false;
            b.casts.push_back(*c);
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
