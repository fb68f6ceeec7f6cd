#include "codegen/llvm/lane_cost.h"

#include <cmath>
#include <sstream>

namespace tack::codegen {

namespace {

// What each kind of lane-by-lane operation costs the lanes beyond the
// scalar program's own work, in operations done in vectors.
constexpr double kCallCost = 3.5;
constexpr double kDivisionCost = 2;
constexpr double kScatteredCost = 6;
constexpr double kSerialCost = 12;

std::string count(double n, const char* what) {
    std::ostringstream s;
    s << std::round(n * 10) / 10 << " " << what;
    return s.str();
}

}  // namespace

std::optional<std::string> why_lanes_do_not_pay(const LaneWork& work, int lanes) {
    // The vector instructions' share of an iteration's work that the lanes
    // save, against what the lane-by-lane operations add.
    double saved = work.in_vectors * (1.0 - 1.0 / lanes);
    double added = kCallCost * work.calls + kDivisionCost * work.divisions + kScatteredCost * work.scattered +
                   kSerialCost * work.serial;
    if (saved > added) return std::nullopt;
    return "the lanes would not pay: " + count(work.in_vectors, "operations in vectors against ") +
           count(work.calls, "calls, ") + count(work.divisions, "divisions, ") +
           count(work.scattered, "gathers or scatters and ") + count(work.serial, "atomics or prints") +
           " lane by lane";
}

}  // namespace tack::codegen
