// A backend: where a typed kernel variant is compiled, kept and run.
//
// The driver owns everything above the typed IR (lowering, variants, the
// disk cache) and asks a backend to compile a variant into an Executable,
// rebuild one from the bytes the disk cache kept, launch it over packed
// arguments, give new arrays a copy on its device, and print what it would
// compile ("llvm", a dialect's source). A backend includes codegen and the
// runtime, never the driver.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/workgroups.h"
#include "codegen/debug_access.h"
#include "codegen/launch_abi.h"
#include "ir/ir.h"
#include "runtime/array.h"
#include "runtime/caller.h"
#include "runtime/texture.h"
#include "tack/tile/compile.h"

namespace tack::backends {

// What a backend can run; the driver checks a variant against it before
// compiling, so an unsupported kernel fails with the kernel, the backend
// and the reason rather than inside a device compiler.
struct Capabilities {
    bool workgroups = false;  // shared memory, barriers, block reductions
    // What tile kernels lowered into workgroups may use of a group's shared
    // memory (tile::LoweringTarget); 0 without workgroups.
    int64_t tile_shared_bytes = 0;
    // What to do instead, when a kernel needs workgroups and there are none.
    std::string without_workgroups = analysis::kWithoutWorkgroupsHint;
    bool f64 = true;          // f64 arrays, scalars and arithmetic
    // tack.texture3d as a hardware image, filtered by the device's texture
    // units (ir::TextureSample); otherwise sampled in code from a snapshot.
    bool images = false;
    // Debug mode's race detector (runtime/race_shadow.h): debug variants
    // compiled with CompileOptions::races report conflicting accesses.
    bool race_detection = false;
    // Whether code compiled for arrays whose last axis is unit-strided
    // (ir::Param::unit_inner_stride) runs faster than code reading every
    // stride at run time: the CPU's LLVM vectorizes rows it knows are
    // adjacent; the C-family backends index by the strides either way.
    bool unit_stride_variants = false;
    // The longest launch, in iterations, and how a refusal names the limit.
    uint64_t max_iterations = INT64_MAX;
    std::string max_iterations_text = "2^63 - 1";
};

// CPU: whether parallel iterations run in SIMD lanes: where the kernel
// allows and the lanes pay (codegen/llvm/lane_cost.h), where the kernel
// allows, or never.
enum class CpuLanes : uint8_t { WherePaying, Always, Never };

struct CompileOptions {
    std::string symbol_prefix;  // unique within the process
    bool debug = false;         // check every index and integer divisor
    bool noalias = false;       // the disjoint-storage variant
    bool races = false;         // debug: detect conflicting accesses (Capabilities::race_detection)
    CpuLanes lanes = CpuLanes::WherePaying;
};

// Compiled code for one variant, runnable by the backend that made it, for
// as long as the Executable lives.
class Executable {
public:
    virtual ~Executable() = default;
    // The bytes Backend::load rebuilds this from; empty when it cannot be
    // kept (the disk cache then stores nothing).
    virtual std::string serialize() const = 0;
};

class Backend;

// Compiled code kept under a text key between processes: the driver's disk
// cache, which tile::compile hands to tile kernels (driver/code_store.h).
// `key` must name everything the code depends on besides the backend, its
// target and Tack's build, which the store adds. load gives nothing when it
// holds no intact entry; store may keep nothing.
class CodeStore {
public:
    virtual ~CodeStore() = default;
    virtual std::unique_ptr<Executable> load(Backend& backend, const std::string& name, const std::string& key) = 0;
    virtual void store(Backend& backend, const std::string& name, const std::string& key, const Executable& code) = 0;
};

struct Compiled {
    std::unique_ptr<Executable> code;
    std::vector<codegen::DebugAccess> debug_accesses;  // debug variants: the checks, by index
};

// One parameter as compiled code receives it: an array (a texture's
// snapshot included, with the texture beside it for backends with images)
// or a scalar's bits in the low bytes. A device-class instance's marker is
// an empty slot: its leaves follow as parameters.
struct LaunchArg {
    const runtime::Array* array = nullptr;
    uint64_t bits = 0;
    const runtime::Texture3D* texture = nullptr;
};

struct LaunchRequest {
    const LaunchArg* args = nullptr;
    size_t count = 0;
    bool debug = false;
    bool races = false;  // debug code that reports its accesses to the race detector
    std::optional<DType> result_type;  // the kernel's return value, if it has one
    const std::vector<int>* written = nullptr;  // the parameters the kernel may store to, ascending
    runtime::Caller* caller = nullptr;  // asked between chunks whether to stop; already released
    // Run the count entry alone and report the count: nothing else runs,
    // and array memory is neither read nor brought up to date, so only for
    // code whose count reads none (analysis::count_reads_memory).
    bool count_only = false;
};

struct LaunchOutcome {
    codegen::LaunchRefusal refusal;  // reason None unless the launch was refused (then nothing ran)
    int64_t count = -1;              // the iteration count, when the count entry did not refuse
    bool has_result = false;
    uint64_t result_bits = 0;
    // A debug variant's first failing check, and its values (indices, then
    // extents from slot 8).
    int32_t debug_failure = -1;
    int64_t debug_values[16] = {};
    // A race-checking variant's first conflict: two sites (debug_accesses
    // indices; the earlier recorded access first), the element's scalar
    // position, and the parameter whose shadow could not be allocated (-1).
    int32_t race_sites[2] = {-1, -1};
    int64_t race_scalar = -1;
    int32_t race_unchecked = -1;
};

enum class ReduceOp { Sum, Min, Max };

// How other libraries name a backend's memory: a DLPack device type
// (kDLCUDA 2, kDLROCM 10) and the device's ordinal. Type 0: its memory has
// no addresses to share (the CPU's arrays are host memory, which NumPy's
// protocols share; OpenCL buffers are handles).
struct SharedMemory {
    int dlpack_device = 0;
    int ordinal = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual const char* name() const = 0;          // "cpu", "opencl": the device names users select
    virtual const char* display_name() const = 0;  // "CPU", "OpenCL": for messages
    virtual const Capabilities& capabilities() const = 0;
    // Everything compiled code depends on besides its IR and options (the
    // target, the device, driver and compiler versions): code made under
    // one description runs only where the description is the same.
    virtual const std::string& target_description() = 0;

    virtual Compiled compile(const ir::Kernel& typed, const CompileOptions& options) = 0;
    // Rebuilds serialized code; nothing (and the reason in `error`) when it
    // cannot be used here, and the caller compiles afresh.
    virtual std::unique_ptr<Executable> load(const std::string& bytes, std::string* error) = 0;
    // Runs the variant. Throws runtime::Interrupted when the caller stopped it.
    virtual LaunchOutcome launch(const Executable& code, const LaunchRequest& request) = 0;
    // Memory: a copy on this backend's device for new host storage of
    // `bytes`, or null when the backend runs on host memory itself (the CPU).
    virtual std::shared_ptr<runtime::DeviceCopy> device_copy(size_t bytes) = 0;
    // Waits for every queued launch (tack.sync()).
    virtual void synchronize() = 0;

    // Sharing device memory with other libraries (DLPack,
    // __cuda_array_interface__), for backends whose shared_memory() names a
    // DLPack device; the others are never asked.
    virtual SharedMemory shared_memory() const { return {}; }
    // The device address of `storage`'s copy, brought up to date there and
    // shared from now on (runtime/device_copy.h). Launches already queued
    // may still be writing it: the consumer orders its work after stream().
    virtual uint64_t share(runtime::Storage& storage) {
        (void)storage;
        no_sharing();
    }
    // The device address of `storage`'s copy, as share() gives it, with
    // nothing moved and the copy left unshared: where an array lies, for
    // tests of overlap.
    virtual uint64_t device_address(const runtime::Storage& storage) const {
        (void)storage;
        no_sharing();
    }
    // The handle of the stream that carries this backend's launches and
    // copies in call order.
    virtual uint64_t stream() { no_sharing(); }
    // Waits until work another library queued on its stream `handle` (1 and
    // 2: the default streams) is done.
    virtual void wait_for_stream(uint64_t handle) {
        (void)handle;
        no_sharing();
    }
    // A device copy over `bytes` of memory another library allocated at
    // device address `address`, holding the data: never freed here. Throws
    // std::invalid_argument, saying why, when it is not this device's memory.
    virtual std::shared_ptr<runtime::DeviceCopy> adopt(uint64_t address, size_t bytes) {
        (void)address, (void)bytes;
        no_sharing();
    }
    // Array.sum/min/max of a nonempty view of scalars on this device, where
    // the backend reduces it there; nothing sends it to the runtime's host
    // reduction (runtime/reduce.h).
    virtual std::optional<double> reduce(const runtime::Array&, ReduceOp) { return std::nullopt; }

    // Tile kernels (tack/tile/compile.h): the backend's own route from
    // TileIR to code it runs, keeping its code in `store` where one is
    // given. Throws tack::tile::Error when this backend has none, or when
    // the kernel has a construct its lowering cannot handle.
    virtual std::unique_ptr<tile::CompiledKernel> create_tile_kernel(const tile::Kernel& kernel,
                                                                    const tile::CompileOptions&,
                                                                    std::shared_ptr<CodeStore> store = nullptr) {
        (void)store;
        throw tile::Error("compile @" + kernel.name() + ": the " + display_name() +
                          " backend does not compile tile kernels (the CPU and the C-family GPU backends do).");
    }

    // The modes inspect() prints beyond the IR, and the text of one.
    virtual std::vector<std::string> inspect_modes() const = 0;
    virtual std::string inspect(const std::string& mode, const ir::Kernel& typed, const CompileOptions& options) = 0;

private:
    [[noreturn]] void no_sharing() const {
        throw std::logic_error(std::string(display_name()) + " memory has no device addresses to share");
    }
};

// Why `backend` refused a launch, as the sentence after the kernel's name
// (without a final period): "the launch has 2^80 iterations, more than ...".
// Python kernels' launches and tile kernels' say the same.
std::string refusal_text(const Backend& backend, const codegen::LaunchRefusal& refusal);

}  // namespace tack::backends
