#include "tile/lower/pipeline_schedule.h"

#include <algorithm>
#include <unordered_map>

#include "tack/tile/printer.h"

namespace tack::tile::lower {

const Operation* top_level(const Operation* op, const Block& body) {
  while (op && op->parent_block() != &body) op = op->parent_op();
  return op;
}

PipelinePlan plan_pipeline(const Operation& pipeline) {
  PipelinePlan plan;
  const Block& body = pipeline.region(0).block(0);
  const Operation& yield = *body.back();
  PipelineSchedule s;
  s.stages.emplace_back();
  std::unordered_map<const Operation*, int> stage_of;
  for (const Operation& op : body) {
    if (op.kind() == OpKind::stage) {
      s.stages.emplace_back();
      continue;
    }
    if (&op == &yield) continue;
    stage_of[&op] = int(s.stages.size()) - 1;
    s.stages.back().push_back(&op);
  }
  if (s.stages.size() < 2) {
    plan.why_not = "it has one stage";
    return plan;
  }
  bool writes = false;
  const_cast<Operation&>(pipeline).walk([&](Operation& op) { writes = writes || op.kind() == OpKind::store; });
  if (writes) {
    plan.why_not = "its body writes memory, which a later iteration's earlier stages could read first";
    return plan;
  }

  // The stages that read each carried value or make its next one; each
  // carried value must have one.
  const unsigned carried = body.num_arguments() - 1;
  std::vector<std::vector<int>> touching(carried);
  for (unsigned j = 0; j < carried; ++j) {
    for (const Operation* user : body.argument(j + 1)->users()) {
      if (user == &yield) continue;
      touching[j].push_back(stage_of.at(top_level(user, body)));
    }
    const Value* next = yield.operand(j);
    if (const Operation* def = top_level(next->defining_op(), body)) touching[j].push_back(stage_of.at(def));
  }
  // A yield of another carried value ties the two together.
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned j = 0; j < carried; ++j) {
      const Value* next = yield.operand(j);
      for (unsigned m = 0; m < carried; ++m)
        if (next == body.argument(m + 1))
          for (int st : touching[m])
            if (std::find(touching[j].begin(), touching[j].end(), st) == touching[j].end()) {
              touching[j].push_back(st);
              changed = true;
            }
    }
  }
  for (unsigned j = 0; j < carried; ++j) {
    std::sort(touching[j].begin(), touching[j].end());
    touching[j].erase(std::unique(touching[j].begin(), touching[j].end()), touching[j].end());
    if (touching[j].size() > 1) {
      plan.why_not = "carried value #" + std::to_string(j) + " is read or made in stages " +
                     std::to_string(touching[j].front()) + " and " + std::to_string(touching[j].back()) +
                     ", which overlap different iterations";
      return plan;
    }
    // Untouched: its yield may copy at any stage's end; the last is as good.
    s.carried_stage.push_back(touching[j].empty() ? int(s.stages.size()) - 1 : touching[j].front());
  }

  for (size_t stage = 0; stage < s.stages.size(); ++stage)
    for (const Operation* op : s.stages[stage])
      for (unsigned r = 0; r < op->num_results(); ++r) {
        int last = int(stage);
        for (const Use* u = op->result(r)->first_use(); u; u = u->next_use()) {
          const Operation* user = u->owner();
          int at = user == &yield ? s.carried_stage[u->operand_index()] : stage_of.at(top_level(user, body));
          last = std::max(last, at);
        }
        if (last > int(stage)) s.crossing.push_back({op->result(r), {int(stage), last - int(stage) + 1}});
      }
  plan.schedule = std::move(s);
  return plan;
}

std::string describe_pipelines(const Kernel& kernel, bool overlap_stages) {
  ValueNames names(kernel);
  std::string out;
  kernel.walk([&](Operation& op) {
    if (op.kind() != OpKind::pipeline) return;
    out += "; pipeline " + names(op.region(0).block(0).argument(0)) + ": ";
    PipelinePlan plan = plan_pipeline(op);
    if (!plan.schedule) {
      out += "stages in order (" + plan.why_not + ")\n";
      return;
    }
    out += std::to_string(plan.schedule->stages.size()) + " stages, ";
    if (!overlap_stages) {
      out += "in order (overlap_stages is off)\n";
      return;
    }
    out += "overlapped";
    // In the body's order, which is the printer's.
    const auto& crossing = plan.schedule->crossing;
    for (size_t i = 0; i < crossing.size(); ++i)
      out += (i ? ", " : "; versions: ") + names(crossing[i].first) + " x" + std::to_string(crossing[i].second.versions);
    out += "\n";
  });
  return out;
}

}  // namespace tack::tile::lower
