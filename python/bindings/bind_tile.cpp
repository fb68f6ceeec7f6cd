// The reference tile library (tack/tile/lib.h) for tack.tile: one
// constructor per library kernel, tile::compile, and a launch that views
// Tack arrays' storage in place. Shapes, axes, dtypes and caching are
// python/tack/tile.py's.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <optional>

#include "backends/tile_kernel.h"
#include "bindings.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/printer.h"

namespace tack::python {

namespace {

namespace lib = tile::lib;
using runtime::Array;

// One launch argument: an array and the view of its storage the kernel
// parameter sees (shape, element strides, element offset from the array's
// first element), and whether the kernel stores through it.
using TileArg = std::tuple<const Array*, std::vector<int64_t>, std::vector<int64_t>, int64_t, bool>;

tile::Scalar tile_scalar(DType t) {
    switch (t) {
        case DType::F32: return tile::Scalar::f32;
        case DType::F64: return tile::Scalar::f64;
        case DType::I32: return tile::Scalar::i32;
        case DType::I64: return tile::Scalar::i64;
        default: throw nb::type_error(("tile kernels take f32, f64, i32 or i64 arrays, not " + std::string(name_of(t))).c_str());
    }
}

// The lowest and highest element offsets, from its first element, that a
// view of `shape` and element `strides` (non-negative extents) reaches;
// none where it has no element. In 128 bits: extents and strides of 63
// bits each over four axes reach no further than 2^127, so no sum or
// product here wraps.
std::optional<std::pair<__int128, __int128>> reach(const std::vector<int64_t>& shape,
                                                   const std::vector<int64_t>& strides) {
    __int128 lo = 0, hi = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 0) return std::nullopt;
        const __int128 r = __int128(shape[d] - 1) * strides[d];
        (r < 0 ? lo : hi) += r;
    }
    return std::pair{lo, hi};
}

// The view of one argument's storage the kernel parameter sees, after
// checking that every element it can touch lies inside the storage: the
// view is Python's arithmetic, and a mistake there must not become a stray
// access. It shares the array's storage, on the CPU or on a device.
Array view_of(const TileArg& arg, size_t position) {
    const auto& [array, shape, strides, offset, writes] = arg;
    if (!array) throw nb::type_error(("tile argument " + std::to_string(position) + ": the view's array is None").c_str());
    const Array& a = *array;
    auto who = [&] { return "tile launch argument " + std::to_string(position) + " (" + a.describe() + ")"; };
    if (!a.element().shape.empty()) throw nb::type_error((who() + ": tile kernels take arrays of numbers").c_str());
    tile_scalar(a.dtype());
    if (writes && a.readonly()) throw nb::value_error((who() + " is read-only").c_str());
    if (shape.size() != strides.size() || shape.empty() || shape.size() > size_t(tile::kMaxRank))
        throw nb::value_error((who() + ": a view needs 1 to 4 extents, one stride each").c_str());
    for (int64_t e : shape)
        if (e < 0) throw nb::value_error((who() + ": negative extent").c_str());
    const auto span = reach(shape, strides);
    // A view with no element touches nothing: its offset is the array's.
    if (!span) return Array(a.storage(), a.byte_offset(), a.dtype(), shape, strides);
    const __int128 size = __int128(size_of(a.dtype())), first = a.byte_offset();
    if (first + (offset + span->first) * size < 0 ||
        first + (offset + span->second + 1) * size > __int128(a.storage()->bytes))
        throw nb::index_error((who() + ": the view reaches outside the array's storage").c_str());
    return Array(a.storage(), int64_t(first + offset * size), a.dtype(), shape, strides);
}

// One launch argument as Python gives it: a whole array (the kernel
// parameter sees it as it is), or a TileArg's tuple.
Array argument(nb::handle item, size_t position) {
    if (nb::isinstance<Array>(item)) return nb::cast<const Array&>(item);
    TileArg arg;
    if (!nb::try_cast(item, arg))
        throw nb::type_error(("tile launch argument " + std::to_string(position) +
                              " must be a tack.Array or (array, shape, element strides, element offset, writes)")
                                 .c_str());
    return view_of(arg, position);
}

void launch(const tile::CompiledKernel& kernel, const std::vector<nb::handle>& args) {
    auto* compiled = dynamic_cast<const backends::TileKernel*>(&kernel);
    if (!compiled) throw nb::type_error("tile launch: the kernel was not compiled by a Tack backend");
    std::vector<Array> views;
    views.reserve(args.size());
    for (size_t i = 0; i < args.size(); ++i) views.push_back(argument(args[i], i));
    // A whole array the kernel stores to (a tuple says so itself).
    for (int w : compiled->written())
        if (size_t(w) < views.size() && views[size_t(w)].readonly())
            throw nb::value_error(("tile launch argument " + std::to_string(w) + " (" + views[size_t(w)].describe() +
                                   ") is read-only")
                                      .c_str());
    nb::gil_scoped_release running;
    compiled->launch(views);
}

// [first, last) of the bytes an array's elements can touch, where
// element_address puts its first element; first == last where it has none.
std::pair<uint64_t, uint64_t> byte_span(const Array& a) {
    const auto span = reach(a.shape(), a.strides());
    if (!span) return {0, 0};
    const __int128 size = __int128(size_of(a.dtype()));
    const uint64_t first = element_address(a);
    return {first + uint64_t(span->first * size), first + uint64_t((span->second + 1) * size)};
}

// For each of `outs`, whether it overlaps an input, another out or itself
// (tack.tile then computes it into a fresh array and copies).
std::vector<bool> clashes(const std::vector<nb::handle>& out_handles, const std::vector<nb::handle>& in_handles) {
    auto arrays = [](const std::vector<nb::handle>& handles) {
        std::vector<const Array*> out;
        for (nb::handle h : handles) {
            if (!nb::isinstance<Array>(h)) throw nb::type_error("_tile_clashes takes tack.Array objects");
            out.push_back(&nb::cast<const Array&>(h));
        }
        return out;
    };
    const std::vector<const Array*> outs = arrays(out_handles), ins = arrays(in_handles);
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const Array* a : ins) spans.push_back(byte_span(*a));
    for (const Array* a : outs) spans.push_back(byte_span(*a));
    std::vector<bool> out;
    for (size_t i = 0; i < outs.size(); ++i) {
        const size_t me = ins.size() + i;
        const auto [first, last] = spans[me];
        bool clash = first != last && runtime::may_overlap_itself(outs[i]->shape(), outs[i]->strides());
        for (size_t j = 0; j < spans.size() && first != last && !clash; ++j)
            clash = j != me && spans[j].first != spans[j].second && first < spans[j].second && spans[j].first < last;
        out.push_back(clash);
    }
    return out;
}

// The interpreter, the correctness oracle an autotuned candidate is checked
// against (python/tack/_tile_tuning.py), on the same views as launch.
// It reads and writes host memory: arrays on the CPU only.
void interpret(const tile::Kernel& kernel, const std::vector<TileArg>& args, bool scalar_trees) {
    std::vector<tile::HostTensor> tensors;
    for (size_t i = 0; i < args.size(); ++i) {
        Array view = view_of(args[i], i);
        if (view.storage()->device)
            throw nb::value_error(("tile interpret argument " + std::to_string(i) + " lives on '" +
                                   view.storage()->device_name() + "'; the interpreter runs on the cpu")
                                      .c_str());
        tile::HostTensor t;
        t.data = view.address();
        t.elem = tile_scalar(view.dtype());
        t.shape = tile::Shape(std::span<const int64_t>(view.shape().data(), view.shape().size()));
        std::copy(view.strides().begin(), view.strides().end(), t.strides.begin());
        tensors.push_back(t);
    }
    tile::RunOptions options;
    options.scalar_trees = scalar_trees;
    nb::gil_scoped_release running;
    tile::interpret(kernel, tensors, options);
}

template <int RA, int RC>
tile::Kernel einsum1(const std::string& spec) { return lib::einsum<RA, RC>(spec); }
template <int RA, int RB, int RC>
tile::Kernel einsum2(const std::string& spec) { return lib::einsum<RA, RB, RC>(spec); }

// lib::einsum's ranks are template arguments: a table over 1..4 each.
tile::Kernel einsum(const std::string& spec, const std::vector<int>& ranks) {
    using One = tile::Kernel (*)(const std::string&);
    auto in_range = [](int r) { return r >= 1 && r <= tile::kMaxRank; };
    if (!std::all_of(ranks.begin(), ranks.end(), in_range) || ranks.size() < 2 || ranks.size() > 3)
        throw nb::value_error("tile einsum takes one or two operands and an output, each of rank 1 to 4");
    if (ranks.size() == 2) {
        static const auto table = []<int... I>(std::integer_sequence<int, I...>) {
            return std::array<One, 16>{&einsum1<I / 4 + 1, I % 4 + 1>...};
        }(std::make_integer_sequence<int, 16>{});
        return table[size_t((ranks[0] - 1) * 4 + ranks[1] - 1)](spec);
    }
    static const auto table = []<int... I>(std::integer_sequence<int, I...>) {
        return std::array<One, 64>{&einsum2<I / 16 + 1, I / 4 % 4 + 1, I % 4 + 1>...};
    }(std::make_integer_sequence<int, 64>{});
    return table[size_t((ranks[0] - 1) * 16 + (ranks[1] - 1) * 4 + ranks[2] - 1)](spec);
}

}  // namespace

void bind_tile(nb::module_& m) {
    nb::class_<tile::Kernel>(m, "TileKernel", "A kernel of the reference tile library, as TileIR.")
        .def_prop_ro("name", &tile::Kernel::name)
        .def("__str__", [](const tile::Kernel& k) { return tile::print(k); }, "The kernel in TileIR's text form.");
    m.def("tile_parse", [](std::string_view text) { return tile::parse(text); }, nb::arg("text"),
          "A tile kernel from TileIR's text form (docs/tile/ir.md), verified.");
    nb::class_<tile::CompiledKernel>(m, "CompiledTileKernel", "A tile kernel compiled for one device.")
        .def_prop_ro("name", &tile::CompiledKernel::name)
        .def_prop_ro("device", &tile::CompiledKernel::device)
        .def("launch", &launch, nb::arg("args"),
             "Runs once over its arguments, one per parameter: a tack.Array, seen whole, or an (array, shape, "
             "element strides, element offset, writes) view of an array's storage.");

    m.def(
        "tile_compile",
        [](const tile::Kernel& k, const std::string& device, bool simd_lanes, bool overlap_stages,
           std::pair<int, int> mma_block, const std::string& workgroups, const std::vector<int64_t>& nest_split,
           const std::vector<int>& nest_order, const std::vector<int>& nest_fuse) {
            using W = tile::CompileOptions::Workgroups;
            tile::CompileOptions options;
            options.simd_lanes = simd_lanes;
            options.overlap_stages = overlap_stages;
            options.mma_block[0] = mma_block.first;
            options.mma_block[1] = mma_block.second;
            options.nest_split = nest_split;
            options.nest_order = nest_order;
            options.nest_fuse = nest_fuse;
            if (workgroups == "fill") options.workgroups = W::fill;
            else if (workgroups == "always") options.workgroups = W::always;
            else if (workgroups == "never") options.workgroups = W::never;
            else throw nb::value_error(("tile_compile: workgroups must be 'fill', 'always' or 'never', not '" +
                                        workgroups + "'").c_str());
            nb::gil_scoped_release compiling;
            return tile::compile(device, k, options);
        },
        nb::arg("kernel"), nb::arg("device"), nb::arg("simd_lanes") = true, nb::arg("overlap_stages") = false,
        nb::arg("mma_block") = std::pair<int, int>{0, 0}, nb::arg("workgroups") = "fill",
        nb::arg("nest_split") = std::vector<int64_t>{}, nb::arg("nest_order") = std::vector<int>{},
        nb::arg("nest_fuse") = std::vector<int>{},
        "Compiles a tile kernel for a device; simd_lanes=False runs the CPU's iterations one at a time, "
        "overlap_stages=True overlaps pipeline stages across iterations where that is legal, "
        "mma_block=(rows, cols) sets mma's register block ((0, 0): the device's), workgroups ('fill', 'always', "
        "'never') where a GPU backend runs an iteration in a workgroup; nest_split=[factor per level] splits the "
        "parallel nest's levels into outer and inner parts, nest_order=[parts, outermost first] orders the launch's "
        "dimensions over them and nest_fuse=[counts] fuses consecutive dimensions, where the layout prover proves "
        "the binding a bijection (tack/tile/compile.h).");
    m.def(
        "tile_lowered_ir",
        [](const tile::Kernel& k, bool workgroups, bool overlap_stages, const std::vector<int64_t>& nest_split,
           const std::vector<int>& nest_order, const std::vector<int>& nest_fuse) {
            tile::CompileOptions options;
            options.overlap_stages = overlap_stages;
            options.nest_split = nest_split;
            options.nest_order = nest_order;
            options.nest_fuse = nest_fuse;
            options.workgroups = tile::CompileOptions::Workgroups::always;
            return tile::lowered_kernel_ir(k, options, workgroups ? tile::workgroup_target() : tile::LoweringTarget{});
        },
        nb::arg("kernel"), nb::arg("workgroups") = false, nb::arg("overlap_stages") = false,
        nb::arg("nest_split") = std::vector<int64_t>{}, nb::arg("nest_order") = std::vector<int>{},
        nb::arg("nest_fuse") = std::vector<int>{},
        "The kernel IR a tile kernel lowers to, as text: for the CPU, or with workgroups=True for the GPU "
        "backends' workgroups wherever they can take it; the first comment lines say how it runs and how its "
        "parallel nest binds to the launch.");

    m.def("_tile_may_overlap_itself", &runtime::may_overlap_itself, nb::arg("shape"), nb::arg("strides"),
          "Whether two elements of a view of these extents and element strides may share memory.");
    m.def("_tile_clashes", &clashes, nb::arg("outs"), nb::arg("ins"),
          "For each of outs, whether it overlaps one of ins, another of outs or itself (the whole arrays).");
    m.def("tile_interpret", &interpret, nb::arg("kernel"), nb::arg("args"), nb::arg("scalar_trees") = false,
          "Runs a tile kernel in the TileIR interpreter over the views launch takes: the correctness oracle. "
          "scalar_trees: unordered reductions of scalars merge as the ordered tree, the grouping of kernels "
          "compiled in workgroups.");

    m.def("tile_matmul",
          [](int64_t tm, int64_t tn, int64_t tk, int64_t panel_lanes, bool batched, bool shared_b) {
              if (panel_lanes < 0) throw nb::value_error("tile_matmul: panel_lanes must be 0 (B unpacked) or positive");
              if (shared_b && !(batched && panel_lanes > 0))
                  throw nb::value_error("tile_matmul: shared_b is for a batch of products on packed panels");
              lib::MatmulTiles tiles{tm, tn, tk, panel_lanes};
              return batched ? lib::batched_matmul(tiles, shared_b) : lib::matmul(tiles);
          },
          nb::arg("tile_m"), nb::arg("tile_n"), nb::arg("tile_k"), nb::arg("panel_lanes") = 0, nb::arg("batched") = false,
          nb::arg("shared_b") = false);
    m.def("tile_pack_panels",
          [](int64_t tn, int64_t lanes, bool batched) {
              if (tn < 1 || lanes < 1) throw nb::value_error("tile_pack_panels: tile_n and lanes must be positive");
              return batched ? lib::batched_pack_panels(tn, lanes) : lib::pack_panels(tn, lanes);
          },
          nb::arg("tile_n"), nb::arg("lanes"), nb::arg("batched") = false);
    m.def("tile_einsum", &einsum, nb::arg("spec"), nb::arg("ranks"));
    m.def("tile_conv2d",
          [](int64_t padding, int64_t width, int64_t filters) {
              if (padding < 0 || width < 1 || filters < 1)
                  throw nb::value_error("tile_conv2d: padding must be 0 or more, width and filters positive");
              return lib::conv2d({.padding = padding, .width = width, .filters = filters});
          },
          nb::arg("padding"), nb::arg("width") = 32, nb::arg("filters") = 1);
    m.def("tile_conv2d_columns",
          [](std::pair<int64_t, int64_t> kernel, std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> stride,
             std::pair<int64_t, int64_t> dilation, int64_t width) {
              if (kernel.first < 1 || kernel.second < 1 || padding.first < 0 || padding.second < 0 || stride.first < 1 ||
                  stride.second < 1 || dilation.first < 1 || dilation.second < 1 || width < 1)
                  throw nb::value_error("tile_conv2d_columns: padding must be 0 or more; kernel, stride, dilation and "
                                        "width positive");
              return lib::conv2d_columns({.kh = kernel.first, .kw = kernel.second, .pad_h = padding.first,
                                          .pad_w = padding.second, .stride_h = stride.first, .stride_w = stride.second,
                                          .dilation_h = dilation.first, .dilation_w = dilation.second, .width = width});
          },
          nb::arg("kernel"), nb::arg("padding") = std::pair<int64_t, int64_t>{0, 0},
          nb::arg("stride") = std::pair<int64_t, int64_t>{1, 1}, nb::arg("dilation") = std::pair<int64_t, int64_t>{1, 1},
          nb::arg("width") = 32,
          "conv2d's windows as a matrix per image (im2col): kernel=(KH, KW), padding, stride and dilation as "
          "(rows, columns).");
    auto positive_width = [](const char* fn, int64_t width) {
        if (width < 1) throw nb::value_error((std::string(fn) + ": width must be positive").c_str());
        return width;
    };
    m.def("tile_softmax", [positive_width](int64_t width) { return lib::softmax(positive_width("tile_softmax", width)); },
          nb::arg("width") = 32);
    m.def("tile_layer_norm",
          [positive_width](float eps, int64_t width) { return lib::layer_norm(eps, positive_width("tile_layer_norm", width)); },
          nb::arg("eps"), nb::arg("width") = 32);
    m.def("tile_rms_norm",
          [positive_width](float eps, int64_t width) { return lib::rms_norm(eps, positive_width("tile_rms_norm", width)); },
          nb::arg("eps"), nb::arg("width") = 32);
    m.def("tile_topk", [](int64_t k, int64_t width) { return lib::topk(k, tile::ReductionPolicy::unordered_tree, width); },
          nb::arg("k"), nb::arg("width") = 0);
    m.def("tile_sort", [] { return lib::sort(); });
    auto order = [](bool descending) { return descending ? lib::Order::descending : lib::Order::ascending; };
    m.def("tile_sort_runs", [order](int64_t run, bool descending) { return lib::sort_runs(run, order(descending)); },
          nb::arg("run"), nb::arg("descending") = false);
    m.def("tile_sort_runs_bitonic",
          [order](int64_t run, bool descending) { return lib::sort_runs_bitonic(run, order(descending)); },
          nb::arg("run"), nb::arg("descending") = false);
    m.def("tile_merge_runs", [] { return lib::merge_runs(); });
    m.def("tile_merge_path",
          [order](int64_t block, bool descending, int64_t keep) {
              if (keep < 0) throw nb::value_error("tile_merge_path: keep must be 0 (all) or positive");
              return lib::merge_path(block, order(descending), keep);
          },
          nb::arg("block"), nb::arg("descending") = false, nb::arg("keep") = 0);
    m.def("tile_topk_first", [] { return lib::topk_first(); });
    // Top-K's prefilter for the tournament (lib/topk.h).
    m.def("tile_topk_threshold", [](int64_t rank, int64_t width) { return lib::topk_threshold(rank, width); },
          nb::arg("rank"), nb::arg("width") = 16);
    m.def("tile_topk_compact", [] { return lib::topk_compact(); });
    m.def("tile_topk_columns", [] { return lib::topk_columns(); });
    m.def("tile_scan", [](bool exclusive) {
        return lib::scan(exclusive ? lib::ScanKind::exclusive : lib::ScanKind::inclusive);
    }, nb::arg("exclusive"));
    m.def("tile_gather_rows",
          [positive_width](int64_t width) { return lib::gather_rows(positive_width("tile_gather_rows", width)); },
          nb::arg("width") = 32);
    m.def("tile_scatter_rows",
          [positive_width](int64_t width) { return lib::scatter_rows(positive_width("tile_scatter_rows", width)); },
          nb::arg("width") = 32);
}

}  // namespace tack::python
