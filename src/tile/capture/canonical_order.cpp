#include "canonical_order.h"

#include <algorithm>
#include <unordered_set>

namespace tack::tile::detail {

namespace {

bool is_pure(const Operation& op) {
  switch (op.kind()) {
    case OpKind::load:
    case OpKind::store:
    case OpKind::stage:
    case OpKind::yield: return false;
    default: return !is_loop(op.kind());
  }
}

class BlockOrder {
 public:
  explicit BlockOrder(Block& block) : block_(block) {}

  void run() {
    std::vector<Operation*> original;
    for (Operation& op : block_) original.push_back(&op);
    for (size_t i = 0; i < original.size(); ++i) {
      Operation* op = original[i];
      if (is_pure(*op)) continue;
      // A stage cut keeps everything recorded before it on its side.
      if (op->kind() == OpKind::stage)
        for (size_t j = 0; j < i; ++j) place(original[j]);
      place(op);
    }
    for (Operation* op : order_) op->move_to_end(block_);
    for (auto it = original.rbegin(); it != original.rend(); ++it)
      if (!placed_.count(*it)) (*it)->erase();
  }

 private:
  // Pulls in this block's pure definitions of the values `op` reads: first
  // those read inside its regions, then its own operands, so that a region's
  // extent and initial values sit right above it.
  void pull_operands(Operation& op) {
    for (unsigned r = 0; r < op.num_regions(); ++r)
      for (Operation& inner : op.region(r).block(0)) pull_operands(inner);
    for (unsigned i = 0; i < op.num_operands(); ++i) {
      Operation* def = op.operand(i)->defining_op();
      if (def && def->parent_block() == &block_) place(def);
    }
  }

  void place(Operation* op) {
    if (!placed_.insert(op).second) return;
    pull_operands(*op);
    order_.push_back(op);
  }

  Block& block_;
  std::unordered_set<Operation*> placed_;
  std::vector<Operation*> order_;
};

void order_block(Block& block) {
  for (Operation& op : block)
    for (unsigned r = 0; r < op.num_regions(); ++r) order_block(op.region(r).block(0));
  BlockOrder(block).run();
}

}  // namespace

void order_canonically(Kernel& kernel) {
  order_block(kernel.body());
  // Parameter extents lead the kernel, by parameter and axis.
  std::vector<Operation*> dims;
  for (Operation& op : kernel.body())
    if (op.kind() == OpKind::dim) dims.push_back(&op);
  auto key = [](const Operation* op) { return std::make_pair(op->operand(0)->index(), op->attrs().axis); };
  std::sort(dims.begin(), dims.end(), [&](const Operation* a, const Operation* b) { return key(a) < key(b); });
  for (auto it = dims.rbegin(); it != dims.rend(); ++it)
    if (*it != kernel.body().front()) (*it)->move_before(kernel.body().front());
}

}  // namespace tack::tile::detail
