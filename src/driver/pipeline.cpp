#include "driver/pipeline.h"

#include "analysis/infer_types.h"
#include "analysis/uniformity.h"
#include "analysis/workgroups.h"
#include "ir/verify.h"
#include "transforms/localize_iteration_state.h"
#include "transforms/zero_unassigned_reads.h"


namespace tack::driver {

std::unique_ptr<ir::Kernel> build_template(const syntax::FunctionDef& fn, std::shared_ptr<frontend::Resolver> resolver,
                                           const std::vector<frontend::ParamShape>& shapes,
                                           const PassObserver& observe) {
    auto k = frontend::lower_kernel(fn, std::move(resolver), shapes);
    ir::verify(*k, ir::Stage::Lowered, "lower_kernel");
    if (observe) observe("lower_kernel", *k);

    transforms::localize_iteration_state(*k);
    ir::verify(*k, ir::Stage::Lowered, "localize_iteration_state");
    if (observe) observe("localize_iteration_state", *k);
    return k;
}

std::unique_ptr<ir::Kernel> specialize(const ir::Kernel& tmpl, const std::vector<ParamFacts>& params,
                                       DType float_precision, const PassObserver& observe) {
    auto k = ir::clone(tmpl);
    // Local arrays follow the call parameters and keep their declared facts.
    for (size_t i = 0; i < params.size(); ++i) {
        k->params[i].dtype = params[i].dtype;
        k->params[i].ndim = params[i].ndim;
        k->params[i].contiguous = params[i].contiguous;
        k->params[i].element_shape = params[i].element_shape;
        k->params[i].soa = params[i].soa;
    }
    analysis::infer_types(*k, float_precision);
    ir::verify(*k, ir::Stage::Typed, "infer_types");
    if (observe) observe("infer_types", *k);

    transforms::zero_unassigned_reads(*k);
    ir::verify(*k, ir::Stage::Typed, "zero_unassigned_reads");
    if (observe) observe("zero_unassigned_reads", *k);
    return k;
}

void check_supported(const ir::Kernel& k, const backends::Backend& backend) {
    if (backend.capabilities().workgroups) {
        analysis::require_participation(k);
        return;
    }
    analysis::require_no_workgroups(k, std::string("the ") + backend.display_name() + " backend",
                                    backend.capabilities().without_workgroups);
}

void check_supported_types(const ir::Kernel& typed, const backends::Backend& backend) {
    if (backend.capabilities().f64) return;
    auto refuse = [&](const std::string& what) {
        typed.fail(syntax::ErrorKind::Type, typed.loop_span,
                   what + " is f64, which this " + backend.display_name() + " device does not support", "f64",
                   "use f32 arrays and values on this device");
    };
    for (auto& p : typed.params)
        if (p.kind != ir::ParamKind::Object && p.dtype == DType::F64)
            refuse(std::string(p.is_array() ? "array '" : "parameter '") + p.name + "'");
    for (auto& v : typed.vars)
        if (v.type == DType::F64) refuse("local '" + v.name + "'");
}

}  // namespace tack::driver
