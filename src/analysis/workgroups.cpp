#include "analysis/workgroups.h"

#include <algorithm>
#include <tuple>

namespace tack::analysis {

std::vector<WorkgroupUse> workgroup_uses(const ir::Kernel& k) {
    std::vector<WorkgroupUse> out;
    for (auto& p : k.params)
        if (p.kind == ir::ParamKind::LocalArray && p.shared) out.push_back({p.declared_with, p.declared});
    ir::visit(
        k,
        [&](const ir::Expr& e) {
            if (e.kind == ir::ExprKind::ThreadId) out.push_back({"thread_id", e.span});
            if (auto* r = e.as<ir::BlockReduce>()) out.push_back({ir::to_string(r->op), e.span});
        },
        [&](const ir::Stmt& s) {
            if (s.kind == ir::StmtKind::Barrier) out.push_back({"barrier", s.span});
        });
    std::stable_sort(out.begin(), out.end(), [](const WorkgroupUse& a, const WorkgroupUse& b) {
        return std::tie(a.span.origin, a.span.line, a.span.col) < std::tie(b.span.origin, b.span.line, b.span.col);
    });
    return out;
}

bool needs_complete_groups(const ir::Kernel& k) {
    for (auto& u : workgroup_uses(k))
        if (u.primitive == "barrier" || u.primitive.rfind("block_", 0) == 0) return true;
    return false;
}

void require_no_workgroups(const ir::Kernel& k, const std::string& target, const std::string& hint) {
    auto uses = workgroup_uses(k);
    if (uses.empty()) return;
    std::string primitives;
    for (auto& u : uses)
        if (primitives.find("tack." + u.primitive + "()") == std::string::npos)
            primitives += (primitives.empty() ? "tack." : ", tack.") + u.primitive + "()";
    std::string first = "tack." + uses[0].primitive + "()";
    std::string also = primitives == first ? "" : " (the kernel uses " + primitives + ")";
    k.fail(syntax::ErrorKind::Unsupported, uses[0].span, first + " needs workgroups, which " + target + " does not have" + also,
           uses[0].primitive, hint);
}

}  // namespace tack::analysis
