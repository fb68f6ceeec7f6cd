// A kernel as the driver holds it: its source, its resolver, cached IR
// templates and compiled variants, and the dispatch path.
//
// Every fact baked into compiled code is in the variant key: each
// argument's category, dtype, rank and contiguity, an array's element shape
// and layout, and a texture's extents. Runtime scalar values and
// the launch length are not, so changing them never recompiles.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "driver/pipeline.h"
#include "frontend/resolver.h"
#include "frontend/template.h"
#include "runtime/array.h"
#include "runtime/caller.h"
#include "runtime/texture.h"

namespace tack::driver {

// One call argument as the binding read it. A device-class instance is an
// Object followed by its leaves (`object->leaf_count()` more arguments).
struct CallArg {
    enum class Kind : uint8_t {
        Array,       // `array`
        Scalar,      // a value of `dtype` in `bits` (a Python int, a NumPy scalar)
        PythonFloat, // a Python float: f64 beside an f64 array argument, else f32
        Texture,     // `texture`
        Object,      // an instance described by `object`
    };
    Kind kind = Kind::Scalar;
    DType dtype = DType::I32;
    const runtime::Array* array = nullptr;
    const runtime::Texture3D* texture = nullptr;
    uint64_t bits = 0;
    double value = 0;
    const frontend::TemplateInfo* object = nullptr;
};

struct CallResult {
    bool has_value = false;
    DType dtype = DType::I32;
    uint64_t bits = 0;  // the value, in the low bytes
};

// Debug mode (tack.set_debug / TACK_DEBUG=1): variants compiled from now
// on check every index; it is part of the variant key.
void set_debug(bool on);
bool debug_enabled();
// Debug mode's race detector (on unless turned off): debug variants
// compiled from now on, on backends that have it, report conflicting
// accesses by different iterations of a launch; part of the variant key.
void set_debug_races(bool on);
bool debug_races_enabled();

// SPMD CPU code (tack.set_cpu_spmd / TACK_CPU_SPMD): variants compiled
// from now on run parallel iterations in SIMD lanes where the kernel allows
// and the lanes pay (the default), wherever the kernel allows, or never;
// it is part of the variant key.
void set_cpu_lanes(backends::CpuLanes lanes);
backends::CpuLanes cpu_lanes();

// The device a launch with no array arguments runs on, and new arrays are
// created on ("cpu" unless tack.set_default_device or TACK_DEVICE said
// otherwise). The caller checks that the backend is available.
void set_default_device(const std::string& name);
std::string default_device();

class Kernel {
public:
    Kernel(std::string name, std::shared_ptr<const syntax::Source> source, std::shared_ptr<frontend::Resolver> resolver);
    ~Kernel();

    const std::string& name() const { return name_; }
    // Compiles (once per variant, whichever threads ask) and runs. Throws
    // syntax::CompileError for source problems, ArgumentError for bad
    // arguments and Interrupted when `caller` stopped the launch. `caller`
    // (optional) is released while compiled code runs or while this thread
    // waits for another's compile.
    CallResult call(const CallArg* args, size_t n, runtime::Caller* caller = nullptr);  // n counts leaves too
    // "ir": the IR after each pass; "llvm": LLVM IR; "asm"-free. For the
    // variant these arguments select.
    std::string inspect(const std::string& what, const CallArg* args, size_t n, runtime::Caller* caller = nullptr);
    int compiled_variants() const { return static_cast<int>(variants_.size()); }
    size_t param_count();
    const std::vector<std::string>& param_names();
    // TypeError (ArgumentError) in Python's words: "kernel 'k' missing 2
    // required arguments: 'x' and 'y'", for the parameters at `missing`.
    [[noreturn]] void refuse_missing(const std::vector<size_t>& missing);

private:
    struct Variant;
    void check_effects(const Variant& v, const CallArg* args);
    backends::CompileOptions compile_options(const Variant& v) const;
    size_t backend_index(const CallArg* args, size_t n);
    std::string arg_name(const CallArg* args, size_t n, size_t at);
    [[noreturn]] void refuse_launch(const Variant& v, const codegen::LaunchRefusal& r);
    void refuse_partial_groups_before_compiling(const Variant& v, const CallArg* args, size_t n);
    [[noreturn]] void report_debug_failure(const Variant& v, const backends::LaunchOutcome& s);
    [[noreturn]] void report_race(const Variant& v, const backends::LaunchOutcome& s, const backends::LaunchArg* args);
    const syntax::FunctionDef& syntax_tree();
    void check_arity(const CallArg* args, size_t n);
    Variant& variant_for(const CallArg* args, size_t n, runtime::Caller* caller);
    const ir::Kernel& template_for(const std::vector<frontend::ParamShape>& shapes);

    std::string name_;
    std::shared_ptr<const syntax::Source> source_;
    std::shared_ptr<frontend::Resolver> resolver_;
    std::unique_ptr<syntax::FunctionDef> tree_;
    std::vector<std::string> param_names_;
    std::map<std::vector<frontend::ParamShape>, std::unique_ptr<ir::Kernel>> templates_;
    // Instance descriptions lowering reads, by signature id: copies whose
    // functions record what they resolve, for the disk cache.
    std::map<uint32_t, std::shared_ptr<frontend::TemplateInfo>> recording_templates_;
    std::vector<std::unique_ptr<Variant>> variants_;
    Variant* last_ = nullptr;
    std::recursive_mutex compile_mutex_;  // held while a variant is built
    uint64_t id_;
};

}  // namespace tack::driver
