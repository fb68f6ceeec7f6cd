#include "analysis/effects.h"

namespace tack::analysis {

Effects effects_of(const ir::Kernel& k) {
    Effects e;
    std::vector<bool> written(k.params.size()), atomic(k.params.size());
    auto mark = [&](int a, bool is_atomic) {
        if (k.params[a].kind != ir::ParamKind::Array) return;
        written[a] = true;
        if (is_atomic) atomic[a] = true;
    };
    auto on_expr = [&](const ir::Expr& x) {
        if (auto* at = x.as<ir::Atomic>()) mark(at->array, true);
    };
    auto on_stmt = [&](const ir::Stmt& s) {
        if (auto* st = s.as<ir::Store>()) mark(st->array, false);
    };
    ir::visit(k.prologue, on_expr, on_stmt);
    ir::visit(k.body, on_expr, on_stmt);
    ir::visit(k.epilogue, on_expr, on_stmt);
    for (size_t i = 0; i < k.params.size(); ++i) {
        if (written[i]) e.written.push_back(static_cast<int>(i));
        if (atomic[i]) e.atomic_targets.emplace_back(static_cast<int>(i), size_of(k.params[i].dtype));
    }
    return e;
}

bool count_reads_memory(const ir::Kernel& k) {
    bool reads = false;
    auto on_expr = [&](const ir::Expr& e) {
        if (auto* load = e.as<ir::Load>()) reads = reads || k.params[load->array].kind != ir::ParamKind::LocalArray;
        if (e.as<ir::Atomic>()) reads = true;
    };
    auto on_stmt = [&](const ir::Stmt& s) { reads = reads || s.as<ir::Print>(); };
    ir::visit(k.prologue, on_expr, on_stmt);
    for (auto& d : k.dims) {
        ir::visit(*d.start, on_expr, on_stmt);
        ir::visit(*d.end, on_expr, on_stmt);
        if (d.step) ir::visit(*d.step, on_expr, on_stmt);
    }
    return reads;
}

}  // namespace tack::analysis
