// tack-tile: prints what the compiler makes of a tile kernel.
//
//   tack-tile (FILE.tir | --lib NAME) [--tile] [--ir] [--llvm | --llvm-unoptimized] [--unit-strides]
//             [--overlap-stages]
//             [--simd-lanes] [--nest-split F,F,...] [--nest-order P,P,...] [--nest-fuse N,N,...]
//             [--matmul-tiles M,N,K[,L]] [--workgroups | --always-workgroups]
//             [--opencl]
//
// FILE.tir is TileIR in its text form (tack/tile/printer.h); --lib NAME takes
// a reference-library kernel with its default configuration (--lib list
// names them). --tile prints the planned TileIR: the launch plan as comment
// lines, then the kernel; --ir the kernel IR it lowers to for the CPU (with
// the CPU's mma register block); --llvm the
// optimized LLVM IR the CPU backend makes of that, --llvm-unoptimized the
// module before optimization (what `opt-19 -O3 -time-passes` takes to see
// where a compile's time goes). Without a choice, --tile
// and --ir. --unit-strides lowers for parameters whose last axis has stride
// one (the code the CPU runs on row-major arrays and their windows); without
// it every stride is read at run time. --overlap-stages lowers with
// CompileOptions::overlap_stages: pipeline stages overlapped across
// iterations where that is legal (the plan says, per pipeline).
// --simd-lanes makes --llvm's code run the parallel iterations in SIMD lanes
// (what tack.tile asks for matmul, einsum and merge_runs); --nest-split
// splits the launch nest's levels by those factors, --nest-order runs its
// parts in that order, outermost first, and --nest-fuse fuses consecutive
// launch dimensions by those counts (CompileOptions::nest_split, nest_order
// and nest_fuse: the plan's binding line says by which layout, and the
// prover's reason);
// --matmul-tiles
// takes `--lib matmul` with those tiles (and B packed into panels of L block
// columns when a fourth number L is given), as tack.tile's autotuner builds
// its candidates. --workgroups lowers for the GPU backends' workgroups
// (tile::workgroup_target(): --ir's first line says whether the kernel runs
// in them, or why not; --always-workgroups takes them wherever it can, as
// CompileOptions::Workgroups::always); --opencl prints the OpenCL C of the
// lowering.
//
// Exit status: 0 lowered, 1 the kernel was refused (the message names the
// operation), 2 a usage error (arguments, file, malformed or invalid TileIR).
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "backends/registry.h"
#include "codegen/cfamily/emit_c.h"
#include "codegen/llvm/jit.h"
#include "ir/ir.h"
#include "tack/tile/compile.h"
#include "tack/tile/lib.h"
#include "tack/tile/printer.h"
#include "tack/tile/verifier.h"
#include "tile/lower/launch_nest.h"
#include "tile/lower/lower.h"
#include "tile/lower/pipeline_schedule.h"

using namespace tack;

namespace {

const std::map<std::string, std::function<tile::Kernel()>>& library() {
  static const std::map<std::string, std::function<tile::Kernel()>> kernels = {
      {"matmul", [] { return tile::lib::matmul(); }},
      {"batched_matmul", [] { return tile::lib::batched_matmul(); }},
      {"einsum_matmul", [] { return tile::lib::einsum<2, 2, 2>("ij,jk->ik"); }},
      {"conv2d", [] { return tile::lib::conv2d(); }},
      {"conv2d_columns", [] { return tile::lib::conv2d_columns(); }},  // conv2d through matmul (im2col)
      {"softmax", [] { return tile::lib::softmax(); }},
      {"layer_norm", [] { return tile::lib::layer_norm(); }},
      {"rms_norm", [] { return tile::lib::rms_norm(); }},
      {"topk", [] { return tile::lib::topk(8); }},
      {"topk16", [] { return tile::lib::topk(16); }},  // the 16-entry network
      {"topk32", [] { return tile::lib::topk(32); }},  // the 32-entry network
      {"topk64", [] { return tile::lib::topk(64); }},  // the 64-entry network
      {"topk_ordered_tree", [] { return tile::lib::topk(8, tile::ReductionPolicy::ordered_tree); }},
      {"topk_right_fold", [] { return tile::lib::topk(8, tile::ReductionPolicy::right_fold); }},
      {"topk_threshold", [] { return tile::lib::topk_threshold(); }},  // the tournament's prefilter
      {"topk_compact", [] { return tile::lib::topk_compact(); }},
      {"topk_columns", [] { return tile::lib::topk_columns(); }},
      {"sort", [] { return tile::lib::sort(); }},
      {"sort_runs", [] { return tile::lib::sort_runs(); }},
      {"sort_runs_bitonic", [] { return tile::lib::sort_runs_bitonic(32, tile::lib::Order::descending); }},  // Top-K tournament's runs
      {"merge_runs", [] { return tile::lib::merge_runs(); }},
      {"merge_path", [] { return tile::lib::merge_path(); }},
      {"inclusive_scan", [] { return tile::lib::scan(tile::lib::ScanKind::inclusive); }},
      {"exclusive_scan", [] { return tile::lib::scan(tile::lib::ScanKind::exclusive); }},
      {"gather_rows", [] { return tile::lib::gather_rows(); }},
      {"scatter_rows", [] { return tile::lib::scatter_rows(); }},
      {"copy", [] { return tile::lib::copy(); }},
  };
  return kernels;
}

int usage() {
  std::cerr << "usage: tack-tile (FILE.tir | --lib NAME) [--tile] [--ir] [--llvm | --llvm-unoptimized] [--unit-strides]\n"
               "                 [--overlap-stages]\n"
               "                 [--simd-lanes] [--nest-split F,F,...] [--nest-order P,P,...] [--nest-fuse N,N,...]\n"
               "                 [--matmul-tiles M,N,K[,L]] [--workgroups | --always-workgroups]\n"
               "                 [--opencl]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, lib;
  bool tile_text = false, ir_text = false, llvm_text = false, unit_strides = false, simd_lanes = false;
  bool workgroups = false, opencl_text = false, unoptimized = false;
  std::optional<tile::lib::MatmulTiles> matmul_tiles;
  tile::CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--lib" && i + 1 < argc) lib = argv[++i];
    else if (a == "--tile") tile_text = true;
    else if (a == "--ir") ir_text = true;
    else if (a == "--llvm") llvm_text = true;
    else if (a == "--llvm-unoptimized") llvm_text = unoptimized = true;
    else if (a == "--unit-strides") unit_strides = true;
    else if (a == "--overlap-stages") options.overlap_stages = true;
    else if (a == "--simd-lanes") simd_lanes = true;
    else if ((a == "--nest-split" || a == "--nest-order" || a == "--nest-fuse") && i + 1 < argc) {
      std::stringstream numbers(argv[++i]);
      for (std::string n; std::getline(numbers, n, ',');) {
        if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) return usage();
        if (a == "--nest-split") options.nest_split.push_back(std::stoll(n));
        else (a == "--nest-order" ? options.nest_order : options.nest_fuse).push_back(std::stoi(n));
      }
    }
    else if (a == "--workgroups") workgroups = true;
    else if (a == "--always-workgroups") {
      workgroups = true;
      options.workgroups = tile::CompileOptions::Workgroups::always;
    }
    else if (a == "--opencl") opencl_text = true;
    else if (a == "--matmul-tiles" && i + 1 < argc) {
      tile::lib::MatmulTiles t;
      int read = std::sscanf(argv[++i], "%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64, &t.m, &t.n, &t.k, &t.panel_lanes);
      if (read < 3 || t.m <= 0 || t.n <= 0 || t.k <= 0 || t.panel_lanes < 0) return usage();
      matmul_tiles = t;
    }
    else if (!a.empty() && a[0] != '-' && file.empty()) file = a;
    else return usage();
  }
  if (file.empty() == lib.empty()) return usage();
  // Lowered as tack.tile lowers a kernel compiled with or without lanes.
  options.simd_lanes = simd_lanes;
  if (!tile_text && !ir_text && !llvm_text && !opencl_text) tile_text = ir_text = true;
  if (workgroups && llvm_text) return usage();  // the CPU has no workgroups
  if (lib == "list") {
    for (auto& [name, make] : library()) std::cout << name << "\n";
    return 0;
  }

  std::optional<tile::Kernel> kernel;
  try {
    if (!lib.empty()) {
      auto it = library().find(lib);
      if (it == library().end()) {
        std::cerr << "tack-tile: no library kernel named '" << lib << "' (--lib list names them)\n";
        return 2;
      }
      kernel = !matmul_tiles                ? it->second()
               : lib == "matmul"          ? tile::lib::matmul(*matmul_tiles)
               : lib == "batched_matmul" ? tile::lib::batched_matmul(*matmul_tiles)
                                          : it->second();
    } else {
      std::ifstream in(file);
      if (!in) {
        std::cerr << "tack-tile: cannot read " << file << "\n";
        return 2;
      }
      std::stringstream text;
      text << in.rdbuf();
      kernel = tile::parse(text.str());
      if (auto problem = tile::verify(*kernel)) {
        std::cerr << "tack-tile: " << file << ": " << *problem << "\n";
        return 2;
      }
    }
  } catch (const tile::Error& e) {
    std::cerr << "tack-tile: " << (file.empty() ? lib : file) << ": " << e.what() << "\n";
    return 2;
  }

  try {
    if (tile_text)
      std::cout << tile::lower::describe(*kernel, tile::lower::find_launch_nest(*kernel))
                << tile::lower::describe_pipelines(*kernel, options.overlap_stages) << tile::print(*kernel);
    if (ir_text || llvm_text || opencl_text) {
      // The lowering the CPU compiles (its mma register block), or with
      // --workgroups the one the GPU backends compile.
#ifdef TACK_WITH_LLVM
      if (!workgroups) {
        std::array<int, 2> block = codegen::host_mma_block();
        options.mma_block[0] = block[0];
        options.mma_block[1] = block[1];
      }
#endif
      tile::lower::Lowered lowered =
          tile::lower::lower(*kernel, options, workgroups ? tile::workgroup_target() : tile::LoweringTarget{});
      auto& typed = lowered.kernel;
      if (unit_strides)
        for (unsigned i = 0; i < kernel->num_params(); ++i) typed->params[i].unit_inner_stride = true;
      if (ir_text) std::cout << (tile_text ? "\n" : "") << lowered.plan << ir::print(*typed);
      if (opencl_text)
        std::cout << codegen::cfamily::emit_c(*typed, codegen::cfamily::Dialect::OpenCL).text;
      if (llvm_text) {
        std::string why;
        backends::Backend* cpu = backends::find_backend("cpu", &why);
        if (!cpu) {
          std::cerr << "tack-tile: " << why << "\n";
          return 2;
        }
        backends::CompileOptions compile;
        compile.lanes = simd_lanes ? backends::CpuLanes::Always : backends::CpuLanes::Never;
        std::cout << cpu->inspect(unoptimized ? "llvm-unoptimized" : "llvm", *typed, compile);
      }
    }
  } catch (const tile::Error& e) {
    std::cerr << "tack-tile: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
