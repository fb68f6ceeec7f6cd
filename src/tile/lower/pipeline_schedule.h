// The overlapped schedule of a `pipeline` region, when it has one.
//
// A pipeline's body is cut by `stage` operations into stages S0 ... S(s-1).
// Overlapped, time step t of the lowered loop runs S0 for iteration t, S1
// for iteration t - 1, ..., S(s-1) for iteration t - s + 1 (each only for
// an iteration in [0, n)), in that order: the next iteration's loads are
// issued before the current iteration's arithmetic, over n + s - 1 steps.
//
// A value made in stage i and read in stage j > i lives from step t to step
// t + (j - i), during which stage i makes it again for the next j - i
// iterations (before stage j reads it, since stages run in ascending order
// inside a step): it needs j - i + 1 versions, iteration k using version
// k mod (j - i + 1). The distance j - i is the value's dependence distance
// in steps.
//
// The schedule is legal, and so chosen, only when reordering the stages of
// different iterations cannot change a result:
//   - the body has at least two stages;
//   - nothing in the body writes memory (a later iteration's loads run
//     before an earlier iteration's later stages);
//   - each carried value is read, and its next value made, in one stage c
//     only: then S_c(k) and S_c(k + 1) run in consecutive steps, in order.
// Otherwise the pipeline runs as a serial loop, stages in order, which
// its semantics always allows; `why_not` says what prevented the overlap.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tack/tile/ir.h"

namespace tack::tile::lower {

struct PipelineSchedule {
  // The body's operations per stage, stage cuts and the yield excluded.
  std::vector<std::vector<const Operation*>> stages;
  // Each result of a body operation read in a later stage than its own, in
  // the body's order: the stage that makes it and the versions it needs
  // (its dependence distance plus one).
  struct Crossing {
    int stage = 0;
    int versions = 0;
  };
  std::vector<std::pair<const Value*, Crossing>> crossing;
  // Per carried value j (body argument j + 1): the stage that reads it and
  // yields its next value; at that stage's end the yield copies it.
  std::vector<int> carried_stage;
};

struct PipelinePlan {
  std::optional<PipelineSchedule> schedule;  // set when the stages may overlap
  std::string why_not;                       // otherwise, why they run in order
};

PipelinePlan plan_pipeline(const Operation& pipeline);

// The operation of `body` that is or contains `op` (null when none does).
const Operation* top_level(const Operation* op, const Block& body);

// One comment line per pipeline region of `kernel` for tools: its schedule,
// with the values that take several versions, or why it runs in order.
std::string describe_pipelines(const Kernel& kernel, bool overlap_stages);

}  // namespace tack::tile::lower
