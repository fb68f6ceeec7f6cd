#include "backends/backend.h"

namespace tack::backends {

namespace {

std::string decimal(unsigned __int128 x) {
    std::string s;
    do {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
        x /= 10;
    } while (x != 0);
    return s;
}

}  // namespace

std::string refusal_text(const Backend& backend, const codegen::LaunchRefusal& r) {
    using R = codegen::LaunchRefusal;
    if (r.reason == R::StepNotPositive)
        return "the parallel loop's range step is " + std::to_string(r.step) + "; it must be positive";
    if (r.reason == R::PartialGroup)
        return "the launch has " + decimal(r.counts[0][0]) + " iterations, which is not a multiple of " +
               std::to_string(r.step) + ": tack.barrier() and the block reductions need every workgroup of " +
               std::to_string(r.step) + " lanes complete (pad the iteration space to a multiple of " +
               std::to_string(r.step) + " and skip the extra lanes' work, not their barriers)";
    if (r.reason == R::GroupTooLarge)
        return "workgroup primitives run in groups of " + std::to_string(r.step) + " lanes, but this " +
               backend.display_name() + " device's groups hold at most " + decimal(r.counts[0][0]) +
               " lanes for this kernel";
    // The exact count, in 128 bits where it fits.
    unsigned __int128 total = 1;
    bool beyond = false;
    std::string factors;
    for (int64_t d = 0; d < r.ndims; ++d) {
        unsigned __int128 c = (static_cast<unsigned __int128>(r.counts[d][1]) << 64) | r.counts[d][0];
        beyond = beyond || __builtin_mul_overflow(total, c, &total);
        factors += (d ? " x " : "") + decimal(c);
    }
    std::string count = beyond ? "more than 2^128" : decimal(total);
    const Capabilities& can = backend.capabilities();
    return "the launch has " + count + " iterations" + (r.ndims > 1 ? " (" + factors + ")" : "") +
           ", more than the limit of " + decimal(can.max_iterations) + " (" + can.max_iterations_text +
           ") iterations of one " + backend.display_name() + " launch";
}

}  // namespace tack::backends
