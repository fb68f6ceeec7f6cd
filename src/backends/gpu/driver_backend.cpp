#include "backends/gpu/driver_backend.h"

#include <mutex>

namespace tack::backends::gpu {

DriverBackend make_driver_backend(const DriverApi& api, const RuntimeCompiler& compiler, Identify identify,
                                  std::string* why_not) {
    DriverBackend made;
    made.device = DriverDevice::open(api, compiler, 0, why_not);
    if (made.device) made.backend = make_cfamily_backend(*made.device, identify(*made.device));
    return made;
}

Backend* driver_backend(const Vendor& vendor, const CompilerSymbols& compiler, Identify identify,
                        std::string* why_not) {
    struct Made {
        DriverBackend backend;
        std::string why_not;
    };
    auto make = [&] {
        // Never destroyed: see DriverDevice::~DriverDevice.
        auto* m = new Made;
        const DriverApi* api = driver_api(vendor, &m->why_not);
        if (!api) return m;
        const RuntimeCompiler* rtc = RuntimeCompiler::process(compiler, &m->why_not);
        if (!rtc) return m;
        m->backend = make_driver_backend(*api, *rtc, identify, &m->why_not);
        return m;
    };
    static std::once_flag cuda_once, hip_once;
    static Made* cuda = nullptr;
    static Made* hip = nullptr;
    Made*& slot = vendor.hip ? hip : cuda;
    std::call_once(vendor.hip ? hip_once : cuda_once, [&] { slot = make(); });
    if (!slot->backend.backend && why_not) *why_not = slot->why_not;
    return slot->backend.backend.get();
}

}  // namespace tack::backends::gpu
