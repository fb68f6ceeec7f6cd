// A tile kernel keeps its code in the CodeStore tile::compile hands it (the
// disk cache, driver/code_store.h), under a key naming everything the code
// depends on: the kernel's TileIR, every CompileOptions field, the lowering
// target, the lanes and the stride pattern (backends/tile_kernel.h). The
// store here keeps serialized code in memory: a second kernel of the same
// key links the first one's code and gives the interpreter's bits, and a
// change to any one of those inputs is another key.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "backends/backend.h"
#include "backends/registry.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/oracle.h"

namespace tack::tile {
namespace {

class MemoryStore final : public backends::CodeStore {
 public:
  std::unique_ptr<backends::Executable> load(backends::Backend& backend, const std::string&,
                                             const std::string& key) override {
    ++loads;
    auto it = entries.find(key);
    if (it == entries.end()) return nullptr;
    ++hits;
    std::string why;
    return backend.load(it->second, &why);
  }
  void store(backends::Backend&, const std::string&, const std::string& key,
             const backends::Executable& code) override {
    ++stores;
    entries[key] = code.serialize();
  }
  std::map<std::string, std::string> entries;
  int loads = 0, hits = 0, stores = 0;
};

backends::Backend& cpu() {
  std::string why;
  backends::Backend* b = backends::find_backend("cpu", &why);
  if (!b) throw Error(why);
  return *b;
}

// Runs `compiled` and the interpreter on the same 19x45 rows; true when the
// outputs agree bit for bit and the compiled one wrote nothing outside.
bool gives_the_interpreters_bits(const CompiledKernel& compiled, const Kernel& kernel) {
  GuardedTensor<float> x = uniform_tensor({19, 45}, 3), got({19, 45}, NAN), want({19, 45}, NAN);
  compiled.launch({x.view(), got.view()});
  interpret(kernel, {x.view(), want.view()});
  std::vector<float> g = got.values(), w = want.values();
  return got.margin_intact() && std::memcmp(g.data(), w.data(), g.size() * sizeof(float)) == 0;
}

TEST(TileCodeStore, ASecondKernelOfTheSameKeyLinksTheStoredCode) {
  auto store = std::make_shared<MemoryStore>();
  const Kernel kernel = lib::softmax(16);
  auto first = cpu().create_tile_kernel(kernel, {}, store);
  EXPECT_EQ(store->stores, 0);  // nothing compiles before the first launch
  EXPECT_TRUE(gives_the_interpreters_bits(*first, kernel));
  EXPECT_EQ(store->stores, 1);
  EXPECT_EQ(store->hits, 0);
  auto second = cpu().create_tile_kernel(lib::softmax(16), {}, store);
  EXPECT_TRUE(gives_the_interpreters_bits(*second, kernel));
  EXPECT_EQ(store->hits, 1);
  EXPECT_EQ(store->stores, 1);
}

TEST(TileCodeStore, EveryInputOfTheCodeIsPartOfItsKey) {
  auto store = std::make_shared<MemoryStore>();
  auto key_of = [&](const Kernel& kernel, const CompileOptions& options) {
    std::set<std::string> before;
    for (const auto& [key, code] : store->entries) before.insert(key);
    auto compiled = cpu().create_tile_kernel(kernel, options, store);
    GuardedTensor<float> a({33, 17}, 1.0f), b({17, 9}, 1.0f), c({33, 9}, 0.0f);
    compiled->launch({a.view(), b.view(), c.view()});
    for (const auto& [key, code] : store->entries)
      if (!before.count(key)) return key;
    return std::string("(no new entry)");
  };
  CompileOptions plain;
  std::vector<std::pair<std::string, CompileOptions>> changes;
  auto change = [&](std::string what, auto edit) {
    CompileOptions o = plain;
    edit(o);
    changes.emplace_back(std::move(what), o);
  };
  change("simd_lanes", [](CompileOptions& o) { o.simd_lanes = false; });
  change("overlap_stages", [](CompileOptions& o) { o.overlap_stages = true; });
  change("mma_block", [](CompileOptions& o) { o.mma_block[0] = 2, o.mma_block[1] = 2; });
  change("workgroups", [](CompileOptions& o) { o.workgroups = CompileOptions::Workgroups::never; });
  change("nest_split", [](CompileOptions& o) { o.nest_split = {2}; });
  change("nest_order", [](CompileOptions& o) { o.nest_order = {1, 0}; });
  change("nest_fuse", [](CompileOptions& o) { o.nest_fuse = {2}; });
  std::map<std::string, std::string> seen{{key_of(lib::matmul(), plain), "the default options"}};
  const std::string none = "(no new entry)";
  for (const auto& [what, options] : changes) {
    std::string key = key_of(lib::matmul(), options);
    EXPECT_NE(key, none) << what << " found an entry of another key";
    EXPECT_TRUE(seen.emplace(key, what).second) << what << " made the key of " << seen[key];
  }
  // Another kernel (other tiles) under the default options.
  std::string key = key_of(lib::matmul({8, 8, 8}), plain);
  EXPECT_NE(key, none) << "other tiles found an entry of another key";
  EXPECT_TRUE(seen.emplace(key, "other tiles").second) << "other tiles made the key of " << seen[key];
  // The same kernel and options again: no new entry.
  EXPECT_EQ(key_of(lib::matmul(), plain), none);
}

TEST(TileCodeStore, AnotherStridePatternIsAnotherEntry) {
  auto store = std::make_shared<MemoryStore>();
  const Kernel kernel = lib::copy(8, 32);
  auto compiled = cpu().create_tile_kernel(kernel, {}, store);
  GuardedTensor<float> x = uniform_tensor({9, 40}, 5), y({9, 40}, 0.0f);
  compiled->launch({x.view(), y.view()});
  EXPECT_EQ(store->entries.size(), 1u);
  // Every other column: the last axis is not unit-strided.
  GuardedTensor<float> wide = uniform_tensor({9, 80}, 6);
  HostTensor strided = wide.view();
  strided.shape = Shape{9, 40};
  strided.strides[1] = 2;
  compiled->launch({strided, y.view()});
  EXPECT_EQ(store->entries.size(), 2u);
  for (int64_t r = 0; r < 9; ++r)
    for (int64_t c = 0; c < 40; ++c) ASSERT_EQ(y[r * 40 + c], wide[r * 80 + 2 * c]);
}

}  // namespace
}  // namespace tack::tile
