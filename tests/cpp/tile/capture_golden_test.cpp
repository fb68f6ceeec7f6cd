// Golden IR: the printed capture of gallery kernels, compared as text with
// files under tests/cpp/tile/golden/. TACK_UPDATE_GOLDEN=1 rewrites them;
// review the diff by eye: a golden records what the IR should be.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tack/tile/lib.h"
#include "tack/tile/printer.h"

namespace tack::tile {
namespace {

void expect_golden(const Kernel& k, const std::string& file) {
  std::string path = std::string(TACK_TILE_GOLDEN_DIR) + "/" + file;
  std::string text = print(k);
  const char* update = std::getenv("TACK_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path) << text;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden " << path << " (run with TACK_UPDATE_GOLDEN=1 to create it)";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(text, want.str()) << "golden " << path << " differs";
}

TEST(TileCaptureGolden, Matmul) { expect_golden(lib::matmul(), "matmul.tir"); }
TEST(TileCaptureGolden, Softmax) { expect_golden(lib::softmax(), "softmax.tir"); }
TEST(TileCaptureGolden, LayerNorm) { expect_golden(lib::layer_norm(), "layer_norm.tir"); }
TEST(TileCaptureGolden, InclusiveScan) { expect_golden(lib::scan(lib::ScanKind::inclusive), "inclusive_scan.tir"); }
TEST(TileCaptureGolden, TopK) { expect_golden(lib::topk(4), "topk.tir"); }

}  // namespace
}  // namespace tack::tile
