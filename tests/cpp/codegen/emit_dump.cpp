// Prints the C-family source of the sample kernels (codegen_support.h), for
// reading and for compiling by hand:
//   emit_dump DIALECT [KERNEL] [--debug]
#include <iostream>

#include "codegen_support.h"

int main(int argc, char** argv) {
    using namespace tack;
    if (argc < 2) {
        std::cerr << "usage: emit_dump DIALECT [KERNEL] [--debug]\n";
        return 2;
    }
    auto dialect = codegen::cfamily::dialect_named(argv[1]);
    if (!dialect) {
        std::cerr << "emit_dump: unknown dialect '" << argv[1] << "'\n";
        return 2;
    }
    std::string only;
    codegen::cfamily::EmitOptions options;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--debug") options.debug = true;
        else only = a;
    }
    for (auto& s : testing::sample_kernels()) {
        if (!only.empty() && s.name != only) continue;
        if (s.images && !codegen::cfamily::table(*dialect).texture_sample) continue;
        auto k = testing::codegen_kernel(s.text, s.params);
        std::cout << codegen::cfamily::emit_c(*k, *dialect, options).text;
    }
    return 0;
}
