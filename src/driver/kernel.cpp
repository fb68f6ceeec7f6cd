#include "driver/kernel.h"

#include <atomic>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "analysis/effects.h"
#include "analysis/workgroups.h"
#include "backends/registry.h"
#include "codegen/cfamily/emit_c.h"
#include "driver/disk_cache.h"
#include "driver/race_report.h"
#include "driver/source_dump.h"
#include "frontend/validate.h"
#include "runtime/errors.h"

namespace tack::driver {

using runtime::ArgumentError;
using runtime::Array;
using runtime::Caller;
using runtime::Interrupted;
using runtime::Layout;
using runtime::Released;
using runtime::Texture3D;

namespace {

std::atomic<uint64_t> next_kernel_id{0};
std::atomic<bool> debug_mode{false};
std::atomic<bool> debug_races{true};
std::atomic<backends::CpuLanes> cpu_lanes_setting{backends::CpuLanes::WherePaying};

// The variant key is each argument's words, then one word of flags. An
// array or a scalar is one word; a texture is its tag and its three extents.
constexpr uint32_t kArrayTag = 1u << 28;
constexpr uint32_t kScalarTag = 2u << 28;
constexpr uint32_t kTextureTag = 3u << 28;
constexpr uint32_t kDebugFlag = 1;
constexpr uint32_t kDisjointFlag = 2;
constexpr uint32_t kScalarFlag = 4;       // SPMD CPU code forced off
constexpr uint32_t kAlwaysLanesFlag = 8;  // SPMD CPU code wherever the kernel allows
constexpr uint32_t kRaceFlag = 16;        // debug variants: with the race detector
constexpr uint32_t kObjectTag = 4u << 28;  // | the instance's signature id
constexpr int kBackendShift = 8;           // flags: the backend's index in known_backends()

// Bits 20-27 dtype, 12-19 rank, 5-10 the element's shape (rows or length,
// then columns: a 2x2 matrix and a 4-vector differ), 1 a structure of
// arrays, 0 contiguity.
uint32_t array_key(const Array& a) {
    const auto& e = a.element().shape;
    uint32_t rows = e.empty() ? 0 : static_cast<uint32_t>(e[0]);
    uint32_t cols = e.size() == 2 ? static_cast<uint32_t>(e[1]) : 0;
    return kArrayTag | (static_cast<uint32_t>(a.dtype()) << 20) | (static_cast<uint32_t>(a.ndim()) << 12) |
           (rows << 8) | (cols << 5) | (a.element().layout == Layout::Soa ? 2u : 0u) | (a.contiguous() ? 1u : 0u);
}

frontend::ParamShape shape_of(const ParamFacts& f) {
    return frontend::ParamShape{f.is_array, f.ndim, f.element_shape, f.soa, f.texture, f.image};
}

DType precision_of(const std::vector<ParamFacts>& facts) {
    for (auto& f : facts)
        if (f.is_array && f.dtype == DType::F64) return DType::F64;
    return DType::F32;
}

DType float_precision_of(const CallArg* args, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (args[i].kind == CallArg::Kind::Array && args[i].array->dtype() == DType::F64) return DType::F64;
    return DType::F32;
}

uint32_t arg_key(const CallArg& a, DType precision) {
    switch (a.kind) {
        case CallArg::Kind::Array: return array_key(*a.array);
        case CallArg::Kind::Scalar: return kScalarTag | static_cast<uint32_t>(a.dtype);
        case CallArg::Kind::PythonFloat: return kScalarTag | static_cast<uint32_t>(precision);
        case CallArg::Kind::Texture: return kTextureTag;
        case CallArg::Kind::Object: return kObjectTag | a.object->id;
    }
    return 0;
}

void append_key(const CallArg& a, DType precision, std::vector<uint32_t>& key) {
    key.push_back(arg_key(a, precision));
    if (a.kind == CallArg::Kind::Texture)
        for (int64_t e : {a.texture->width(), a.texture->height(), a.texture->depth()})
            key.push_back(static_cast<uint32_t>(e));
}

// Whether `a` matches the key's words at `at`, which it moves past them.
bool key_matches(const CallArg& a, DType precision, const std::vector<uint32_t>& key, size_t& at) {
    if (at >= key.size() || key[at++] != arg_key(a, precision)) return false;
    if (a.kind != CallArg::Kind::Texture) return true;
    if (at + 3 > key.size()) return false;
    const Texture3D& t = *a.texture;
    bool same = key[at] == static_cast<uint32_t>(t.width()) && key[at + 1] == static_cast<uint32_t>(t.height()) &&
                key[at + 2] == static_cast<uint32_t>(t.depth());
    at += 3;
    return same;
}

}  // namespace

void set_debug(bool on) { debug_mode = on; }
bool debug_enabled() { return debug_mode; }
void set_debug_races(bool on) { debug_races = on; }
bool debug_races_enabled() { return debug_races; }
void set_cpu_lanes(backends::CpuLanes lanes) { cpu_lanes_setting = lanes; }
backends::CpuLanes cpu_lanes() { return cpu_lanes_setting; }

namespace {
// The default device, as its index in backends::known_backends() (0: the CPU).
std::atomic<size_t> default_device_index{0};

size_t index_of(const std::string& backend) {
    auto& names = backends::known_backends();
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == backend) return i;
    throw ArgumentError(ArgumentError::Kind::Value, "Tack has no backend named '" + backend + "'");
}

// Each parameter as compiled code receives it: a texture as its snapshot,
// never the source array; a Python float at the variant's precision.
struct PackedArgs {
    static constexpr size_t kInline = 16;
    backends::LaunchArg small[kInline];
    std::vector<backends::LaunchArg> big;
    backends::LaunchArg* data = small;

    PackedArgs(const CallArg* args, size_t n, DType precision) {
        if (n > kInline) {
            big.resize(n);
            data = big.data();
        }
        for (size_t i = 0; i < n; ++i) {
            const CallArg& a = args[i];
            backends::LaunchArg& slot = data[i];
            slot = {};
            switch (a.kind) {
                case CallArg::Kind::Array: slot.array = a.array; break;
                case CallArg::Kind::Texture:
                    slot.array = &a.texture->storage();
                    slot.texture = a.texture;
                    break;
                case CallArg::Kind::Scalar: slot.bits = a.bits; break;
                case CallArg::Kind::Object: break;
                case CallArg::Kind::PythonFloat:
                    if (precision == DType::F32) {
                        float f = static_cast<float>(a.value);
                        std::memcpy(&slot.bits, &f, sizeof f);
                    } else {
                        std::memcpy(&slot.bits, &a.value, sizeof a.value);
                    }
                    break;
            }
        }
    }
    PackedArgs(const PackedArgs&) = delete;
    PackedArgs& operator=(const PackedArgs&) = delete;
};
}  // namespace

void set_default_device(const std::string& name) { default_device_index.store(index_of(name), std::memory_order_relaxed); }

std::string default_device() { return backends::known_backends()[default_device_index.load(std::memory_order_relaxed)]; }

struct Kernel::Variant {
    std::vector<uint32_t> key;  // each argument's words (append_key), then the flags
    std::vector<frontend::ParamShape> shapes;
    std::vector<ParamFacts> facts;
    std::vector<std::string> arg_names;  // instance leaves by path: "grid.values"
    std::unique_ptr<ir::Kernel> typed;
    backends::Backend* backend = nullptr;
    std::unique_ptr<backends::Executable> code;
    std::optional<DType> result_type;
    analysis::Effects effects;
    bool debug = false;
    bool races = false;     // debug, with the race detector
    bool disjoint = false;  // compiled with noalias array parameters
    backends::CpuLanes lanes = backends::CpuLanes::WherePaying;  // CPU code's SIMD lanes
    std::vector<codegen::DebugAccess> debug_accesses;
};

Kernel::Kernel(std::string name, std::shared_ptr<const syntax::Source> source, std::shared_ptr<frontend::Resolver> resolver)
    : name_(std::move(name)), source_(std::move(source)), resolver_(recording_resolver(std::move(resolver))),
      id_(next_kernel_id++) {}

Kernel::~Kernel() = default;

const syntax::FunctionDef& Kernel::syntax_tree() {
    if (!tree_) {
        auto tree = syntax::parse_function(source_);
        frontend::validate(*tree, frontend::FunctionRole::Kernel);
        for (auto& p : tree->params) param_names_.push_back(p.name);
        tree_ = std::move(tree);
    }
    return *tree_;
}

size_t Kernel::param_count() { return syntax_tree().params.size(); }

const std::vector<std::string>& Kernel::param_names() {
    syntax_tree();
    return param_names_;
}

void Kernel::refuse_missing(const std::vector<size_t>& missing) {
    const auto& names = param_names();
    std::string list;
    for (size_t k = 0; k < missing.size(); ++k) {
        const char* sep = k == 0 ? "" : k + 1 < missing.size() ? ", " : missing.size() > 2 ? ", and " : " and ";
        list += sep + ("'" + names[missing[k]] + "'");
    }
    size_t m = missing.size();
    throw ArgumentError(ArgumentError::Kind::Type, "kernel '" + name_ + "' missing " + std::to_string(m) +
                                                       " required argument" + (m == 1 ? "" : "s") + ": " + list);
}

void Kernel::check_arity(const CallArg* args, size_t count) {
    size_t n = 0;  // the caller's arguments: an instance's leaves are part of it
    for (size_t i = 0; i < count; ++i, ++n)
        if (args[i].kind == CallArg::Kind::Object) i += args[i].object->leaf_count();
    size_t want = param_count();
    if (n < want) {
        std::vector<size_t> missing;
        for (size_t i = n; i < want; ++i) missing.push_back(i);
        refuse_missing(missing);
    }
    if (n != want)
        throw ArgumentError(ArgumentError::Kind::Type, "kernel '" + name_ + "' takes " + std::to_string(want) +
                                                           " argument" + (want == 1 ? "" : "s") + " but " +
                                                           std::to_string(n) + (n == 1 ? " was" : " were") + " given");
    // Kernels index an array with one index per dimension or one flat
    // index, and len() reads the first extent: a 0-d array has neither.
    for (size_t i = 0; i < count; ++i)
        if (args[i].kind == CallArg::Kind::Array && args[i].array->ndim() == 0)
            throw ArgumentError(ArgumentError::Kind::Type,
                                "kernel '" + name_ + "': parameter '" + arg_name(args, count, i) +
                                    "' got a 0-d array; kernels take arrays of at least one dimension (pass "
                                    "a.reshape(1), or the number a[()])");
}

const ir::Kernel& Kernel::template_for(const std::vector<frontend::ParamShape>& shapes) {
    auto it = templates_.find(shapes);
    if (it != templates_.end()) return *it->second;
    auto t = build_template(syntax_tree(), resolver_, shapes);
    auto& slot = templates_[shapes];
    slot = std::move(t);
    return *slot;
}

namespace {

bool overlap(const Array& a, const Array& b) {
    auto [alo, ahi] = a.byte_span();
    auto [blo, bhi] = b.byte_span();
    return alo < ahi && blo < bhi && alo < bhi && blo < ahi;
}

bool all_disjoint(const CallArg* args, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (args[i].kind != CallArg::Kind::Array) continue;
        for (size_t j = i + 1; j < n; ++j)
            if (args[j].kind == CallArg::Kind::Array && overlap(*args[i].array, *args[j].array)) return false;
    }
    return true;
}

// A call qualifies for the disjoint-storage variant when no array the kernel
// may write shares a byte with any other array argument; arrays only read
// may overlap each other. Byte ranges decide, never object identity.
bool written_disjoint(const std::vector<int>& written, const CallArg* args, size_t n) {
    for (int w : written)
        for (size_t j = 0; j < n; ++j)
            if (static_cast<int>(j) != w && args[j].kind == CallArg::Kind::Array &&
                overlap(*args[w].array, *args[j].array))
                return false;
    return true;
}

}  // namespace

namespace {

const std::string& device_of(const CallArg& a) {
    return a.kind == CallArg::Kind::Array ? a.array->storage()->device_name()
                                          : a.texture->storage().storage()->device_name();
}

}  // namespace

std::string Kernel::arg_name(const CallArg* args, size_t n, size_t at) {
    const auto& names = param_names();
    for (size_t i = 0, user = 0; i < n && user < names.size(); ++user) {
        if (i == at) return names[user];
        if (args[i].kind == CallArg::Kind::Object) {
            const auto& leaves = args[i].object->leaf_names;
            if (at > i && at <= i + leaves.size()) return names[user] + "." + leaves[at - i - 1];
            i += leaves.size();
        }
        ++i;
    }
    return "#" + std::to_string(at);
}

size_t Kernel::backend_index(const CallArg* args, size_t n) {
    // The arrays' device; every array of a launch must be on the same one.
    const CallArg* first = nullptr;
    for (size_t i = 0; i < n; ++i) {
        const CallArg& a = args[i];
        if (a.kind != CallArg::Kind::Array && a.kind != CallArg::Kind::Texture) continue;
        if (!first) {
            first = &a;
        } else if (device_of(a) != device_of(*first)) {
            auto name = [&](const CallArg& x) { return "'" + arg_name(args, n, static_cast<size_t>(&x - args)) + "'"; };
            throw ArgumentError(ArgumentError::Kind::Value,
                                "kernel '" + name_ + "': arguments on two devices: " + name(*first) + " is on " +
                                    device_of(*first) + " and " + name(a) + " on " + device_of(a) +
                                    "; one launch runs on one device (copy an array across with tack.array(x, "
                                    "device=...))");
        }
    }
    return first ? index_of(device_of(*first)) : default_device_index.load(std::memory_order_relaxed);
}

Kernel::Variant& Kernel::variant_for(const CallArg* args, size_t n, Caller* caller) {
    DType precision = float_precision_of(args, n);
    backends::CpuLanes lanes = cpu_lanes_setting.load(std::memory_order_relaxed);
    bool debug = debug_mode.load(std::memory_order_relaxed);
    uint32_t flags = (debug ? kDebugFlag : 0) | (debug && debug_races.load(std::memory_order_relaxed) ? kRaceFlag : 0) |
                     (lanes == backends::CpuLanes::Never ? kScalarFlag : 0) |
                     (lanes == backends::CpuLanes::Always ? kAlwaysLanesFlag : 0);
    uint32_t backend = static_cast<uint32_t>(backend_index(args, n)) << kBackendShift;
    auto facts_match = [&](const Variant& v) {
        size_t at = 0;
        for (size_t i = 0; i < n; ++i)
            if (!key_matches(args[i], precision, v.key, at)) return false;
        return at + 1 == v.key.size() && (v.key[at] & ~kDisjointFlag) == (flags | backend);
    };
    // The cached path: compare keys in place, newest variant first; then the
    // disjointness of this call's storage picks between the two variants.
    Variant* base = last_ && facts_match(*last_) ? last_ : nullptr;
    for (size_t i = 0; !base && i < variants_.size(); ++i)
        if (facts_match(*variants_[i])) base = variants_[i].get();
    bool disjoint = base ? written_disjoint(base->effects.written, args, n) : all_disjoint(args, n);
    if (base && base->disjoint == disjoint) {
        last_ = base;
        return *base;
    }
    for (auto& v : variants_) {
        if (facts_match(*v) && v->disjoint == disjoint) {
            last_ = v.get();
            return *v;
        }
    }

    // One thread compiles at a time. Lowering calls into Python, which can
    // let another thread run and arrive here for the same variant: it waits,
    // with the caller released (the compiling thread may need the lock the
    // caller holds), and then finds the variant compiled.
    std::unique_lock<std::recursive_mutex> compiling(compile_mutex_, std::try_to_lock);
    if (!compiling.owns_lock()) {
        {
            Released waiting(caller);
            compiling.lock();
        }
        return variant_for(args, n, caller);
    }

    check_arity(args, n);
    auto v = std::make_unique<Variant>();
    auto& shapes = v->shapes;
    std::string why_not;
    const std::string& backend_name = backends::known_backends()[backend >> kBackendShift];
    v->backend = backends::find_backend(backend_name, &why_not);
    if (!v->backend) throw ArgumentError(ArgumentError::Kind::Runtime, "kernel '" + name_ + "': " + why_not);
    {
        // Argument names, an instance's leaves by their paths.
        size_t user = 0;
        for (size_t i = 0; i < n; ++user) {
            const std::string& pname = param_names_[user];
            v->arg_names.push_back(pname);
            if (args[i].kind == CallArg::Kind::Object)
                for (auto& leaf : args[i].object->leaf_names) v->arg_names.push_back(pname + "." + leaf);
            i += args[i].kind == CallArg::Kind::Object ? 1 + args[i].object->leaf_count() : 1;
        }
    }
    // Instances: where their process-local ids are in the key, their
    // descriptions, and the recording copies lowering reads.
    std::vector<size_t> object_words;
    std::vector<const frontend::TemplateInfo*> instances, recorded;
    for (size_t i = 0; i < n; ++i) {
        if (args[i].kind == CallArg::Kind::Object) object_words.push_back(v->key.size());
        append_key(args[i], precision, v->key);
        ParamFacts f;
        if (args[i].kind == CallArg::Kind::Object) {
            v->facts.push_back(f);
            auto& recording = recording_templates_[args[i].object->id];
            if (!recording) recording = recording_template(*args[i].object);
            instances.push_back(args[i].object);
            recorded.push_back(recording.get());
            frontend::ParamShape marker;
            marker.object = recording.get();
            shapes.push_back(marker);
            continue;
        }
        if (args[i].kind == CallArg::Kind::Texture) {
            f = ParamFacts{true, DType::F32, 3, true, {}, false, true, v->backend->capabilities().images};
        } else if (args[i].kind == CallArg::Kind::Array) {
            const Array& a = *args[i].array;
            if (a.ndim() > codegen::kMaxDims)
                throw ArgumentError(ArgumentError::Kind::Value,
                                    "kernel '" + name_ + "': parameter '" + v->arg_names[i] + "' has " +
                                        std::to_string(a.ndim()) + " dimensions; at most " +
                                        std::to_string(codegen::kMaxDims) + " are supported");
            f = ParamFacts{true, a.dtype(), a.ndim(), a.contiguous(), a.element().shape,
                           a.element().layout == Layout::Soa};
        } else {
            f.dtype = args[i].kind == CallArg::Kind::PythonFloat ? precision : args[i].dtype;
        }
        v->facts.push_back(f);
        shapes.push_back(shape_of(f));
    }
    if (!base && !disjoint) {
        // Overlapping arrays on a first call: which of them the kernel writes
        // decides (lowering alone tells, without compiling).
        disjoint = written_disjoint(analysis::effects_of(template_for(shapes)).written, args, n);
    }
    v->key.push_back(flags | backend | (disjoint ? kDisjointFlag : 0));
    v->debug = (flags & kDebugFlag) != 0;
    v->races = (flags & kRaceFlag) != 0 && v->backend->capabilities().race_detection;
    v->lanes = (flags & kScalarFlag)        ? backends::CpuLanes::Never
               : (flags & kAlwaysLanesFlag) ? backends::CpuLanes::Always
                                            : backends::CpuLanes::WherePaying;
    v->disjoint = disjoint;
    check_supported(template_for(shapes), *v->backend);
    // The disk cache stands in for lowering, typing and compiling, so
    // whatever a variant reads from its typed IR travels in the entry
    // (DispatchFacts). Debug variants report failures from their IR and
    // always compile. Instances join the disk key by content: their ids are
    // process-local.
    std::vector<uint32_t> disk_key = v->key;
    for (size_t word : object_words) disk_key[word] = kObjectTag;
    DiskCacheSlot disk_slot =
        v->debug ? DiskCacheSlot{} : disk_cache_slot(*v->backend, name_, *source_, disk_key, instances);
    if (auto cached = disk_cache_load(disk_slot, *v->backend, *resolver_, instances)) {
        v->code = std::move(cached->code);
        v->result_type = cached->facts.result_type;
        v->effects.written = std::move(cached->facts.written);
        v->effects.atomic_targets = std::move(cached->facts.atomic_targets);
    } else {
        v->typed = specialize(template_for(shapes), v->facts, precision);
        check_supported_types(*v->typed, *v->backend);
        if (v->backend->capabilities().workgroups) refuse_partial_groups_before_compiling(*v, args, n);
        dump_sources(*v->typed, v->debug);
        v->effects = analysis::effects_of(*v->typed);
        v->result_type = v->typed->result_type;
        backends::Compiled compiled = v->backend->compile(*v->typed, compile_options(*v));
        v->code = std::move(compiled.code);
        v->debug_accesses = std::move(compiled.debug_accesses);
        disk_cache_store(disk_slot, *resolver_, recorded, *v->backend, *v->code,
                         DispatchFacts{v->result_type, v->effects.written, v->effects.atomic_targets});
    }
    variants_.push_back(std::move(v));
    last_ = variants_.back().get();
    return *last_;
}

backends::CompileOptions Kernel::compile_options(const Variant& v) const {
    backends::CompileOptions o;
    o.symbol_prefix = "tack.k" + std::to_string(id_) + ".v" + std::to_string(variants_.size());
    o.debug = v.debug;
    o.races = v.races;
    o.noalias = v.disjoint;
    o.lanes = v.lanes;
    return o;
}

CallResult Kernel::call(const CallArg* args, size_t n, Caller* caller) {
    Variant& v = variant_for(args, n, caller);
    DType precision = precision_of(v.facts);

    PackedArgs packed(args, n, precision);
    check_effects(v, args);
    backends::LaunchRequest request;
    request.args = packed.data;
    request.count = n;
    request.debug = v.debug;
    request.races = v.races;
    request.result_type = v.result_type;
    request.written = &v.effects.written;
    request.caller = caller;
    // Compiled code touches nothing of the caller's: the arguments are
    // packed, and the caller keeps their objects alive.
    backends::LaunchOutcome outcome;
    {
        Released running(caller);
        outcome = v.backend->launch(*v.code, request);
    }
    if (outcome.refusal.reason != codegen::LaunchRefusal::None) refuse_launch(v, outcome.refusal);
    if (outcome.debug_failure >= 0) report_debug_failure(v, outcome);
    if (outcome.race_sites[0] >= 0 || outcome.race_unchecked >= 0) report_race(v, outcome, request.args);
    CallResult r;
    if (outcome.has_result) {
        r.has_value = true;
        r.dtype = *v.result_type;
        r.bits = outcome.result_bits;
    }
    return r;
}

void Kernel::refuse_launch(const Variant& v, const codegen::LaunchRefusal& r) {
    throw ArgumentError(ArgumentError::Kind::Value, "kernel '" + name_ + "': " + backends::refusal_text(*v.backend, r));
}

// A kernel with barriers or block reductions needs complete workgroups.
// Every launch checks its count (the backend, after the count entry); the
// first call of a variant also checks before the device compiles anything,
// by running the count entry on the CPU: the kernel's statements before the
// loop and its range bounds, without the loop, which is exactly the count
// the device would compute. Only when they read no array memory, which may
// still be queued on the device.
void Kernel::refuse_partial_groups_before_compiling(const Variant& v, const CallArg* args, size_t n) {
    const ir::Kernel& typed = *v.typed;
    if (!analysis::needs_complete_groups(typed) || analysis::count_reads_memory(typed)) return;
    auto count_only = ir::clone(typed);
    count_only->body.clear();
    count_only->epilogue.clear();
    count_only->result.reset();
    count_only->result_type.reset();
    if (!analysis::workgroup_uses(*count_only).empty()) return;  // a shared array before the loop
    std::string no_cpu;
    backends::Backend* cpu = backends::find_backend("cpu", &no_cpu);
    if (!cpu) return;  // the launch checks its count on the device instead
    backends::CompileOptions options = compile_options(v);
    options.symbol_prefix += ".count";
    backends::Compiled compiled = cpu->compile(*count_only, options);
    PackedArgs packed(args, n, precision_of(v.facts));
    backends::LaunchRequest request;
    request.args = packed.data;
    request.count = n;
    request.count_only = true;
    backends::LaunchOutcome outcome = cpu->launch(*compiled.code, request);
    if (outcome.refusal.reason != codegen::LaunchRefusal::None ||
        codegen::refuse_partial_group(outcome.count, codegen::cfamily::kGroupSize, &outcome.refusal))
        refuse_launch(v, outcome.refusal);
}

void Kernel::check_effects(const Variant& v, const CallArg* args) {
    for (int p : v.effects.written) {
        const Array& a = *args[p].array;
        if (a.readonly())
            throw ArgumentError(ArgumentError::Kind::Value,
                                "kernel '" + name_ + "': parameter '" + v.arg_names[p] +
                                    "' is bound to a read-only array, but the kernel may write it");
    }
    for (auto [p, size] : v.effects.atomic_targets) {
        auto address = reinterpret_cast<uintptr_t>(args[p].array->address());
        if (address % size != 0)
            throw ArgumentError(ArgumentError::Kind::Value,
                                "kernel '" + name_ + "': parameter '" + v.arg_names[p] + "' is the target of an atomic " +
                                    "update but its data at 0x" + [&] {
                                        char buf[32];
                                        std::snprintf(buf, sizeof buf, "%lx", static_cast<unsigned long>(address));
                                        return std::string(buf);
                                    }() + " is not aligned to its " + std::to_string(size) + "-byte elements");
    }
}

void Kernel::report_debug_failure(const Variant& v, const backends::LaunchOutcome& s) {
    const codegen::DebugAccess& a = v.debug_accesses.at(static_cast<size_t>(s.debug_failure));
    const auto& origins = v.typed->origins;
    auto where = [&] {
        std::string at;
        if (a.span.origin >= 0 && a.span.origin < static_cast<int>(origins.size()) && origins[a.span.origin].source) {
            auto& src = *origins[a.span.origin].source;
            at += " at " + src.filename + ":" + std::to_string(src.first_line + a.span.line - 1);
            if (!origins[a.span.origin].is_kernel) at += " in device function '" + origins[a.span.origin].function + "'";
        }
        return at;
    };
    if (a.check == codegen::DebugAccess::Check::ZeroDivisor)
        throw ArgumentError(ArgumentError::Kind::ZeroDivision,
                            "kernel '" + name_ + "': integer division or remainder by zero" + where());
    const ir::Param& p = v.typed->params[a.array];
    auto list = [](const int64_t* xs, int n) {
        std::string t = "(";
        for (int i = 0; i < n; ++i) t += (i ? ", " : "") + std::to_string(xs[i]);
        return t + (n == 1 ? ",)" : ")");
    };
    std::string what = p.kind != ir::ParamKind::LocalArray ? "array '" : p.shared ? "shared array '" : "local array '";
    std::string msg = "kernel '" + name_ + "': index " + list(s.debug_values, a.index_count) + " is out of bounds for " +
                      what + p.name + "'";
    if (a.index_count == p.ndim) {
        msg += " with shape " + list(s.debug_values + 8, p.ndim);
        for (int d = 0; d < p.ndim; ++d)
            if (s.debug_values[d] < 0 || s.debug_values[d] >= s.debug_values[8 + d]) {
                msg += " (dimension " + std::to_string(d) + " has extent " + std::to_string(s.debug_values[8 + d]) + ")";
                break;
            }
    } else {
        msg += " of " + std::to_string(s.debug_values[8]) + " elements (flat index)";
    }
    throw ArgumentError(ArgumentError::Kind::Index, msg + where());
}

void Kernel::report_race(const Variant& v, const backends::LaunchOutcome& s, const backends::LaunchArg* args) {
    if (s.race_sites[0] < 0) {
        const ir::Param& p = v.typed->params.at(static_cast<size_t>(s.race_unchecked));
        throw ArgumentError(ArgumentError::Kind::Runtime,
                            "kernel '" + name_ + "': debug mode's race detector could not allocate its shadow memory "
                            "(48 bytes per scalar) for array '" + p.name +
                                "'; turn it off with tack.set_debug(True, races=False)");
    }
    // The element is named as the access that found the conflict indexes it.
    const codegen::DebugAccess& second = v.debug_accesses.at(static_cast<size_t>(s.race_sites[1]));
    const Array* array = args[second.array].array;
    throw ArgumentError(ArgumentError::Kind::Race,
                        describe_race(name_, *v.typed, v.debug_accesses, s.race_sites[0], s.race_sites[1],
                                      s.race_scalar, array ? array->shape() : std::vector<int64_t>{},
                                      array && array->overlaps_itself()));
}

std::string Kernel::inspect(const std::string& what, const CallArg* args, size_t n, Caller* caller) {
    auto dialect = codegen::cfamily::dialect_named(what);
    if (what != "ir" && what != "llvm" && what != "llvm-unoptimized" && !dialect)
        throw ArgumentError(ArgumentError::Kind::Value,
                            "inspect() takes \"ir\", \"llvm\", \"llvm-unoptimized\", \"cuda\", \"hip\", "
                            "\"opencl\" or \"metal\", not \"" + what + "\"");
    std::ostringstream out;
    Variant* v = last_;
    if (n == 0 && param_count() != 0) {
        if (!last_)
            throw ArgumentError(ArgumentError::Kind::Value, "kernel '" + name_ +
                                                                "' has not been compiled yet: call it first, or pass "
                                                                "example arguments to inspect()");
    } else {
        check_arity(args, n);
        v = &variant_for(args, n, caller);
    }
    if (!v->typed) {
        // A variant from the disk cache has no IR until it is asked for.
        v->typed = specialize(template_for(v->shapes), v->facts, precision_of(v->facts));
    }
    if (what == "ir") {
        // Re-run the pipeline with an observer to show each pass.
        PassObserver observe = [&](const char* pass, const ir::Kernel& k) {
            out << "# after " << pass << "\n" << ir::print(k) << "\n";
        };
        auto tmpl = build_template(syntax_tree(), resolver_, v->shapes, observe);
        specialize(*tmpl, v->facts, precision_of(v->facts), observe);
        return out.str();
    }
    if (dialect) {
        codegen::cfamily::EmitOptions options;
        options.debug = v->debug;
        return codegen::cfamily::emit_c(*v->typed, *dialect, options).text;
    }
    // LLVM IR is the CPU backend's, whichever device the variant is for.
    std::string why_not;
    backends::Backend* cpu = backends::find_backend("cpu", &why_not);
    if (!cpu) throw ArgumentError(ArgumentError::Kind::Runtime, "kernel '" + name_ + "': " + why_not);
    check_supported(*v->typed, *cpu);
    return cpu->inspect(what, *v->typed, compile_options(*v));
}

}  // namespace tack::driver
