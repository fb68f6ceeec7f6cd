// Debug mode's race detector, the compiled side: each access of the scalar
// program's parallel body to an array the kernel writes calls
// tack_rt_race_access (runtime/race_shadow.h) with the element, the flat
// iteration number and its site. Accesses outside the parallel loop belong
// to no iteration (they only load) and are not reported.
//
// An array the kernel never writes races only through another parameter
// that shares its memory. The disjoint-storage variant runs only calls
// where no written array shares a byte with another argument, so it reports
// the written arrays alone; the variant for overlapping calls reports every
// array, and the runtime checks a read-only one where it overlaps a written
// one, in a shadow they share.
#include "analysis/effects.h"
#include "codegen/llvm/emitter.h"

namespace tack::codegen {

void Emitter::set_races(bool on) {
    races_ = on;
    race_checked_.assign(k_.params.size(), false);
    if (!on) return;
    if (!debug_) syntax::internal_error(kEmitPass, "race checks need a debug variant");
    if (!noalias_) {
        for (size_t p = 0; p < k_.params.size(); ++p) race_checked_[p] = k_.params[p].kind == ParamKind::Array;
        return;
    }
    for (int p : analysis::effects_of(k_).written)
        if (k_.params[p].kind == ParamKind::Array) race_checked_[p] = true;
}

namespace {

const Expr* without_casts(const Expr* e) {
    while (e && e->kind == ExprKind::Cast) e = e->as<Cast>()->operand.get();
    return e;
}

}  // namespace

// Lowering turns `a[i] op= v` into a store of `a[i] op v` (the index
// evaluated once): a Binary whose left operand loads the stored element.
const Load* Emitter::augmented_load(const Store& st) {
    const Expr* value = without_casts(st.value.get());
    if (!value || value->kind != ExprKind::Binary) return nullptr;
    const Expr* left = without_casts(value->as<Binary>()->lhs.get());
    if (!left || left->kind != ExprKind::Load) return nullptr;
    const Load* l = left->as<Load>();
    if (l->array != st.array || l->component != st.component || l->indices.size() != st.indices.size()) return nullptr;
    return l;
}

void Emitter::note_race(int array, const Access& a, int component, Span span, DebugAccess::RaceUse use,
                        bool augmented) {
    if (!races_ || !in_iteration_ || !race_checked_[array]) return;
    auto& param = k_.params[array];
    auto& values = arrays_[array];
    const std::vector<Value*>& idx = a.indices;
    // The scalar's row-major position, whatever the array's strides: the
    // report turns it back into an index.
    Value* element = idx[0];
    if (static_cast<int>(idx.size()) == param.ndim)
        for (size_t d = 1; d < idx.size(); ++d) element = b_.CreateAdd(b_.CreateMul(element, values.shape[d]), idx[d]);
    Value* elements = b_.getInt64(1);
    for (auto* extent : values.shape) elements = b_.CreateMul(elements, extent);
    Value* components = b_.getInt64(param.components());
    Value* scalar = b_.CreateAdd(b_.CreateMul(element, components), b_.getInt64(component));
    Value* scalars = b_.CreateMul(elements, components);

    DebugAccess site{array, span, static_cast<int>(idx.size()), DebugAccess::Check::Race, use, augmented};
    int id = static_cast<int>(debug_accesses_->size());
    debug_accesses_->push_back(site);
    auto callee = m_.getOrInsertFunction(
        "tack_rt_race_access",
        llvm::FunctionType::get(b_.getVoidTy(), {ptr(), b_.getInt32Ty(), i64(), i64(), i64(), b_.getInt32Ty(), b_.getInt32Ty()},
                                false));
    b_.CreateCall(callee, {debug_state_, b_.getInt32(array), scalar, scalars, b_.CreateLoad(i64(), iteration_slot_),
                           b_.getInt32(id), b_.getInt32(static_cast<int>(use))});
}

}  // namespace tack::codegen
