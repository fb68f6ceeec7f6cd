#include "analysis/workgroups.h"

#include <algorithm>
#include <tuple>

#include "ir/traverse.h"

namespace tack::analysis {

namespace {

void walk(const ir::Block& b, std::vector<WorkgroupUse>& out);

void walk(const ir::Expr& e, std::vector<WorkgroupUse>& out) {
    if (e.kind == ir::ExprKind::ThreadId) out.push_back({"thread_id", e.span});
    if (auto* r = e.as<ir::BlockReduce>()) out.push_back({ir::to_string(r->op), e.span});
    ir::for_each_child(
        e, [&](const ir::ExprPtr& c) { walk(*c, out); }, [&](const ir::Block& b) { walk(b, out); });
}

void walk(const ir::Block& b, std::vector<WorkgroupUse>& out) {
    for (auto& s : b) {
        if (s->kind == ir::StmtKind::Barrier) out.push_back({"barrier", s->span});
        ir::for_each_child(
            *s, [&](const ir::ExprPtr& c) { walk(*c, out); }, [&](const ir::Block& inner) { walk(inner, out); });
    }
}

}  // namespace

std::vector<WorkgroupUse> workgroup_uses(const ir::Kernel& k) {
    std::vector<WorkgroupUse> out;
    for (auto& p : k.params)
        if (p.kind == ir::ParamKind::LocalArray && p.shared) out.push_back({p.declared_with, p.declared});
    walk(k.prologue, out);
    for (auto& d : k.dims) {
        walk(*d.start, out);
        walk(*d.end, out);
        if (d.step) walk(*d.step, out);
    }
    walk(k.body, out);
    walk(k.epilogue, out);
    if (k.result) walk(*k.result, out);
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
