// Writes every arithmetic helper of one dialect's prelude to a file, for the
// host tests: prelude_dump DIALECT OUTPUT
#include <fstream>
#include <iostream>

#include "codegen/cfamily/prelude.h"

int main(int argc, char** argv) {
    using namespace tack::codegen::cfamily;
    auto d = argc == 3 ? dialect_named(argv[1]) : std::nullopt;
    if (!d) {
        std::cerr << "usage: prelude_dump cuda|hip|opencl|metal OUTPUT\n";
        return 2;
    }
    Prelude p(*d);
    p.use_all_arithmetic();
    std::ofstream(argv[2]) << "// Printed by prelude_dump " << argv[1] << "\n#pragma once\n" << p.text();
    return 0;
}
