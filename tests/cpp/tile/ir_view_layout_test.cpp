// Views as layouts (tack/tile/view_layout.h): a nested view is one layout
// over its parameter's strides plus a translation, and that layout, bound to
// a tensor's extents and strides, gives every position the address the view
// operation's definition gives (one coordinate per parent axis, an index or
// a span's origin, followed back to the parameter). The interpreter and the
// lowering address memory only through these layouts; their bit-for-bit
// tests (compile_view_test, compile_lib_test, tile_lib_tests) cover the
// masking beside them.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tack/tile/printer.h"
#include "tack/tile/view_layout.h"

namespace tack::tile {
namespace {

int64_t constant_of(const Value* v) { return v->defining_op()->attrs().integer; }

// The layouts of every view in `k`, in program order (the parameters first).
std::vector<std::pair<const Value*, ViewLayout>> layouts_of(const Kernel& k, std::vector<ParameterLayout>& params) {
  std::vector<std::pair<const Value*, ViewLayout>> out;
  for (unsigned i = 0; i < k.num_params(); ++i) {
    params.push_back(parameter_layout(i, k.param(i)->type().rank()));
    out.emplace_back(k.param(i), view_layout(params.back()));
  }
  k.walk([&](const Operation& op) {
    if (op.kind() != OpKind::view) return;
    for (const auto& [v, l] : out)
      if (v == op.operand(0)) {
        ViewLayout child = view_layout(l, op);
        out.emplace_back(op.result(), std::move(child));
        return;
      }
  });
  return out;
}

TEST(ViewLayout, AParameterIsItsExtentsOverItsStrides) {
  ParameterLayout p = parameter_layout(3, 2);
  ViewLayout v = view_layout(p);
  EXPECT_EQ(v.param, 3u);
  EXPECT_EQ(v.layout(), Layout(IntTuple::tuple({p.extents[0], p.extents[1]}), IntTuple::tuple({p.strides[0], p.strides[1]})));
  EXPECT_TRUE(v.offset.empty());
  EXPECT_EQ(stride_axis(p, p.strides[1]), 1);
  EXPECT_EQ(stride_axis(p, p.extents[1]), std::nullopt);
  EXPECT_EQ(extent_axis(p, p.extents[0]), 0);
  EXPECT_EQ(stride_axis(p, IntTuple(1)), std::nullopt);
}

TEST(ViewLayout, ANestedViewIsOneLayoutAndItsTranslation) {
  Kernel k = parse(R"(kernel @nested(%0: view<?x?x?xf32>) {
  %1 = const 2 : i64
  %2 = const -1 : i64
  %3 = const 5 : i64
  %4 = view %0[%1, %2:8, %3:4] : view<8x4xf32>
  %5 = const 3 : i64
  %6 = view %4[%5:2, %1] : view<2xf32>
  %7 = view %6[%2] : view<f32>
}
)");
  std::vector<ParameterLayout> params;
  auto layouts = layouts_of(k, params);
  ASSERT_EQ(layouts.size(), 4u);
  const ParameterLayout& p = params[0];
  ValueNames names(k);
  auto text = [&](const ViewLayout& v) { return to_string(v, names); };
  const std::string s0 = to_string(p.strides[0]), s1 = to_string(p.strides[1]), s2 = to_string(p.strides[2]);
  // view %0[2, -1:8, 5:4]: the spans' modes over axes 1 and 2, translated by the parent at (2, -1, 5).
  EXPECT_EQ(text(layouts[1].second), "(8,4):(" + s1 + "," + s2 + ") + %1*" + s0 + " + %2*" + s1 + " + %3*" + s2);
  // view %4[3:2, 2]: axis 1 of the parameter kept, axis 2 sliced away.
  EXPECT_EQ(text(layouts[2].second),
            "2:" + s1 + " + %1*" + s0 + " + %2*" + s1 + " + %3*" + s2 + " + %5*" + s1 + " + %1*" + s2);
  // A view of rank 0 is the single point 1:0 and its translation.
  EXPECT_EQ(layouts[3].second.layout(), Layout(1, 0));
  EXPECT_EQ(layouts[3].second.offset.size(), 6u);
}

// Random chains of views over a rank-3 parameter with random extents and
// strides (negative and zero too): the layout's address at every position
// against the view's definition, followed back to the parameter.
TEST(ViewLayout, EveryPositionOfRandomNestedViewsHasTheDefinitionsAddress) {
  std::mt19937_64 rng(20261205);
  auto draw = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    // The text: up to three nested views, each axis an index or a span.
    std::string text = "kernel @chain(%0: view<?x?x?xf32>) {\n";
    int next = 1, rank = 3, parent = 0;
    struct Level { std::vector<int64_t> coordinate, extent; };  // per parent axis; extent -1 for an index
    std::vector<Level> chain;
    const int depth = int(draw(1, 3));
    for (int l = 0; l < depth && rank > 0; ++l) {
      Level level;
      std::string coords, type;
      int kept = 0;
      for (int d = 0; d < rank; ++d) {
        const int64_t c = draw(-3, 9);
        const bool index = draw(0, 2) == 0;
        const int64_t w = index ? -1 : draw(0, 5);
        const int cv = next++;
        text += "  %" + std::to_string(cv) + " = const " + std::to_string(c) + " : i64\n";
        coords += (d ? ", %" : "%") + std::to_string(cv) + (index ? "" : ":" + std::to_string(w));
        if (!index) type += std::to_string(w) + "x", ++kept;
        level.coordinate.push_back(c);
        level.extent.push_back(w);
      }
      const int view = next++;
      text += "  %" + std::to_string(view) + " = view %" + std::to_string(parent) + "[" + coords + "] : view<" + type + "f32>\n";
      parent = view;
      rank = kept;
      chain.push_back(std::move(level));
    }
    text += "}\n";
    Kernel k = parse(text);
    std::vector<ParameterLayout> params;
    const ViewLayout v = layouts_of(k, params).back().second;

    std::vector<int64_t> extents, strides;
    for (int d = 0; d < 3; ++d) extents.push_back(draw(1, 12)), strides.push_back(draw(-40, 40));
    std::map<SymbolId, int64_t> values;
    bind_parameter(params[0], extents, strides, values);
    const Layout bound = tile::bind(v.layout(), values);
    int64_t translation = 0;
    for (const ViewOffsetTerm& t : v.offset) translation += constant_of(t.coordinate) * *tile::bind(t.stride, values).runtime_value();

    // Every position of the innermost view (its type's extents).
    std::vector<int64_t> shape;
    for (int64_t w : chain.back().extent)
      if (w >= 0) shape.push_back(w);
    int64_t count = 1;
    for (int64_t w : shape) count *= w;
    for (int64_t flat = 0; flat < count; ++flat) {
      std::vector<int64_t> position;
      for (int64_t rest = flat, a = 0; a < int64_t(shape.size()); ++a) position.push_back(rest % shape[size_t(a)]), rest /= shape[size_t(a)];
      // The definition: each level's coordinates in its parent, an index as
      // it is, a span's origin plus the position along it.
      std::vector<int64_t> at = position;
      for (auto level = chain.rbegin(); level != chain.rend(); ++level) {
        std::vector<int64_t> up;
        size_t kept = 0;
        for (size_t d = 0; d < level->coordinate.size(); ++d)
          up.push_back(level->coordinate[d] + (level->extent[d] < 0 ? 0 : at[kept++]));
        at = std::move(up);
      }
      int64_t want = 0;
      for (int d = 0; d < 3; ++d) want += at[size_t(d)] * strides[size_t(d)];
      std::optional<int64_t> got = evaluate_coordinate(bound, position.empty() ? std::vector<int64_t>{0} : position);
      ASSERT_TRUE(got.has_value()) << text;
      ASSERT_EQ(*got + translation, want) << text << " at flat position " << flat;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace tack::tile
