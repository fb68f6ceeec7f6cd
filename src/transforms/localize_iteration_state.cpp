#include "transforms/localize_iteration_state.h"

#include <map>
#include <set>

namespace tack::transforms {

using namespace ir;

namespace {

void assigned_vars(Block& b, std::set<int>& out) {
    visit(b, [](Expr&) {}, [&](Stmt& s) {
        if (auto* a = s.as<Assign>()) out.insert(a->var);
    });
}

}  // namespace

void localize_iteration_state(Kernel& k) {
    std::set<int> outer;
    assigned_vars(k.prologue, outer);
    for (size_t v = 0; v < k.vars.size(); ++v)
        if (k.vars[v].role == VarRole::Param) outer.insert(static_cast<int>(v));
    std::set<int> in_body;
    assigned_vars(k.body, in_body);

    std::map<int, int> renamed;
    for (int v : in_body) {
        if (!outer.count(v)) continue;
        int copy = k.add_var(k.vars[v].name, VarRole::Local);
        renamed[v] = copy;
    }
    if (renamed.empty()) return;

    visit(k.body, [&](Expr& e) {
        if (auto* r = e.as<VarRef>()) {
            auto it = renamed.find(r->var);
            if (it != renamed.end()) r->var = it->second;
        }
    }, [&](Stmt& s) {
        if (auto* a = s.as<Assign>()) {
            auto it = renamed.find(a->var);
            if (it != renamed.end()) a->var = it->second;
        }
    });

    Block seeded;
    for (auto [outer_var, copy] : renamed) {
        auto a = std::make_unique<Assign>();
        a->var = copy;
        auto r = std::make_unique<VarRef>();
        r->var = outer_var;
        r->span = k.loop_span;
        a->value = std::move(r);
        a->span = k.loop_span;
        seeded.push_back(std::move(a));
    }
    for (auto& s : k.body) seeded.push_back(std::move(s));
    k.body = std::move(seeded);
}

}  // namespace tack::transforms
