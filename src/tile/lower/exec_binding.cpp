#include "tile/lower/exec_binding.h"

#include <algorithm>
#include <numeric>

#include "tack/tile/prover.h"

namespace tack::tile::lower {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return "(" + s + ")";
}

std::string numbers(const std::vector<int>& values) {
  std::vector<std::string> items;
  for (int v : values) items.push_back(std::to_string(v));
  return joined(items);
}

std::string name(const ExecPart& p) {
  const std::string level = std::to_string(p.level);
  switch (p.role) {
    case ExecPart::Role::whole: return level;
    case ExecPart::Role::outer: return level + " outer";
    case ExecPart::Role::inner: return level + " inner";
  }
  return level;
}

// One launch dimension per level, in the nest's order: the binding that
// needs no proof.
ExecBinding per_level(std::vector<SymbolId> extents, std::string why) {
  ExecBinding b;
  b.extents = std::move(extents);
  b.split.assign(b.extents.size(), 1);
  for (size_t l = 0; l < b.extents.size(); ++l) b.parts.push_back({l, ExecPart::Role::whole, IntTuple::dynamic(b.extents[l])});
  b.groups.assign(b.parts.size(), 1);
  b.why = std::move(why);
  return b;
}

}  // namespace

bool ExecBinding::is_split() const {
  return std::any_of(split.begin(), split.end(), [](int64_t f) { return f > 1; });
}

ExecBinding bind_nest(const Kernel& kernel, const LaunchNest& nest, const CompileOptions& options) {
  const std::string where = "compile @" + kernel.name() + ": CompileOptions::";
  const size_t depth = nest.levels.size();
  std::vector<SymbolId> extents;
  for (size_t l = 0; l < depth; ++l) extents.push_back(fresh_symbol());

  // Split: the parts in the nest's order, a split level's outer part first.
  if (options.nest_split.size() > depth)
    throw Error(where + "nest_split has " + std::to_string(options.nest_split.size()) +
                " factors, but its launch nest has " + std::to_string(depth) + " levels.");
  std::vector<int64_t> split(depth, 1);
  std::vector<ExecPart> parts;
  for (size_t l = 0; l < depth; ++l) {
    const int64_t f = l < options.nest_split.size() ? options.nest_split[l] : 1;
    if (f < 0)
      throw Error(where + "nest_split splits level " + std::to_string(l) + " by " + std::to_string(f) +
                  ", not a factor of 1 or more.");
    if (f <= 1) {
      parts.push_back({l, ExecPart::Role::whole, IntTuple::dynamic(extents[l])});
      continue;
    }
    split[l] = f;
    parts.push_back({l, ExecPart::Role::outer, IntTuple::dynamic(fresh_symbol())});
    parts.push_back({l, ExecPart::Role::inner, IntTuple(f)});
  }
  const bool is_split = parts.size() > depth;
  const std::string what_parts = is_split ? " parts (its levels after nest_split)" : " levels";

  // Permute.
  std::vector<size_t> order(parts.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (!options.nest_order.empty()) {
    std::vector<int> sorted = options.nest_order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> expected(parts.size());
    std::iota(expected.begin(), expected.end(), 0);
    if (sorted != expected)
      throw Error(where + "nest_order " + numbers(options.nest_order) + " is not an order of its launch nest's " +
                  std::to_string(parts.size()) + what_parts + ".");
    order.assign(options.nest_order.begin(), options.nest_order.end());
  }

  // Fuse.
  std::vector<size_t> groups(parts.size(), 1);
  if (!options.nest_fuse.empty()) {
    int64_t total = 0;
    bool counts = true;
    for (int n : options.nest_fuse) {
      counts = counts && n >= 1;
      total += n;
    }
    if (!counts || total != int64_t(parts.size()))
      throw Error(where + "nest_fuse " + numbers(options.nest_fuse) + " does not fuse its launch nest's " +
                  std::to_string(parts.size()) + what_parts +
                  ": it must count consecutive dimensions, each count 1 or more, adding up to them.");
    groups.assign(options.nest_fuse.begin(), options.nest_fuse.end());
  }

  const bool permuted = !std::is_sorted(order.begin(), order.end());
  const bool fused = groups.size() < parts.size();
  if (!is_split && !permuted && !fused) {
    std::string why = depth == 0   ? "a launch of one iteration (no parallel nest)"
                      : depth == 1 ? "one launch dimension per level (the nest has one level)"
                                   : "one launch dimension per level, in the nest's order";
    return per_level(std::move(extents), std::move(why));
  }

  // What is asked for, in words.
  std::vector<std::string> launch_names;
  for (size_t p : order) launch_names.push_back(name(parts[p]));
  std::string what;
  for (size_t l = 0; l < depth; ++l)
    if (split[l] > 1) {
      const size_t outer = size_t(std::find_if(parts.begin(), parts.end(), [&](const ExecPart& p) {
                                    return p.level == l;
                                  }) - parts.begin());
      what += "level " + std::to_string(l) + " split by " + std::to_string(split[l]) + " into " +
              to_string(parts[outer].extent) + " = ceil(" + to_string(IntTuple::dynamic(extents[l])) + " / " +
              std::to_string(split[l]) + ") outer and " + std::to_string(split[l]) + " inner, the points past " +
              to_string(IntTuple::dynamic(extents[l])) + " skipped; ";
    }
  const std::string units = is_split ? "parts " : "levels ";
  if (groups.size() == 1) {
    what += (is_split ? "the parts " : "the nest ") + std::string("fused into one launch dimension, ") + units +
            joined(launch_names) + " outermost first, the last fastest";
  } else if (!fused) {
    what += "one launch dimension per " + std::string(is_split ? "part" : "level") + ", " + units +
            joined(launch_names) + " outermost first";
  } else {
    std::vector<int> counts(groups.begin(), groups.end());
    what += "launch dimensions fusing " + numbers(counts) + " consecutive " + (is_split ? "parts" : "levels") +
            " of " + units + joined(launch_names) + " outermost first, the last of each fastest";
  }

  // The layout: each part's stride is the product of the extents of the
  // parts the launch runs inside it.
  std::vector<IntTuple> stride(parts.size(), IntTuple(1));
  std::vector<IntTuple> inside;
  for (size_t j = order.size(); j-- > 0;) {
    Result<IntTuple> s = inside.empty() ? Result<IntTuple>(IntTuple(1)) : symbolic_product(IntTuple::tuple(inside));
    if (!s)
      return per_level(std::move(extents), "one launch dimension per level, in the nest's order: " + what +
                                               " has strides past 64 bits (" + s.diagnostic() + ")");
    stride[order[j]] = std::move(s).value();
    inside.push_back(parts[order[j]].extent);
  }
  std::vector<Layout> modes;
  std::vector<IntTuple> level_extents;
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].role == ExecPart::Role::whole) {
      modes.emplace_back(parts[p].extent, stride[p]);
    } else {
      // Colexicographic, as every layout: the inner part varies fastest.
      modes.emplace_back(IntTuple::tuple({parts[p + 1].extent, parts[p].extent}),
                         IntTuple::tuple({stride[p + 1], stride[p]}));
      ++p;
    }
    level_extents.push_back(modes.back().shape());
  }
  const Layout layout = make_layout(modes);
  std::vector<IntTuple> part_extents;
  for (const ExecPart& p : parts) part_extents.push_back(p.extent);
  Result<IntTuple> size = symbolic_product(IntTuple::tuple(part_extents));
  if (!size)
    return per_level(std::move(extents), "one launch dimension per level, in the nest's order: " + what +
                                             " has a size past 64 bits (" + size.diagnostic() + ")");
  Verdict proof = prove_bijective(layout, *size);
  if (!proof.proven())
    return per_level(std::move(extents), "one launch dimension per level, in the nest's order: " + what +
                                             " would take the layout " + to_string(layout) +
                                             ", not proven a bijection (" + to_string(proof.truth) + ": " +
                                             proof.reason + ")");
  ExecBinding b;
  b.extents = std::move(extents);
  b.split = std::move(split);
  for (size_t p : order) b.parts.push_back(parts[p]);
  b.groups = std::move(groups);
  b.layout = layout;
  b.size = std::move(size).value();
  b.why = what + ": the layout " + to_string(layout) + " over " + (is_split ? "the split extents " : "the levels' extents ") +
          to_string(IntTuple::tuple(level_extents)) + " is a bijection onto [0, " + to_string(b.size) + ") (" +
          proof.reason + ")";
  return b;
}

std::string describe(const ExecBinding& binding) { return "; binding: " + binding.why + "\n"; }

}  // namespace tack::tile::lower
