#include "backends/gpu/cfamily_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "backends/gpu/host_count.h"
#include "codegen/cfamily/emit_c.h"
#ifdef TACK_WITH_TILE
#include "backends/tile_kernel.h"
#endif
#include "runtime/print.h"
#include "support/byte_codec.h"

namespace tack::backends::gpu {

namespace {

using codegen::cfamily::ArgSlot;

// An array's storage on the device: one allocation of the storage's bytes,
// or memory another library allocated (adopted, holding the data).
class MemoryCopy final : public runtime::DeviceCopy {
public:
    MemoryCopy(const char* backend, Device& device, size_t bytes)
        : DeviceCopy(backend), device_(device), memory_(device.allocate(bytes)) {}
    MemoryCopy(const char* backend, Device& device, std::unique_ptr<Memory> adopted)
        : DeviceCopy(backend, Newer::Device), device_(device), memory_(std::move(adopted)), adopted_(true) {}
    ~MemoryCopy() override {
        // The library that allocated adopted memory may free it as soon as
        // Tack lets go: nothing queued may still use it.
        if (adopted_) try {
                device_.finish();
            } catch (...) {
            }
    }
    const Memory& memory() const { return *memory_; }

protected:
    void read_range(char* host, size_t offset, size_t bytes) override {
        device_.read(*memory_, offset, host + offset, bytes);
    }
    void write(const char* host, size_t bytes) override { device_.write(*memory_, 0, host, bytes); }

private:
    Device& device_;
    std::unique_ptr<Memory> memory_;
    bool adopted_ = false;
};

// A texture's snapshot as a hardware image. Compiled code queued before the
// texture is released may still sample it, so it waits for that first.
class ImageCopy final : public runtime::DeviceImage {
public:
    ImageCopy(const char* backend, Device& device, const runtime::Texture3D& t)
        : DeviceImage(backend), device_(device), image_(device.create_image(t.width(), t.height(), t.depth())) {}
    ~ImageCopy() override {
        try {
            device_.finish();
        } catch (...) {
        }
    }
    uint64_t handle() const override { return image_->handle(); }
    void fill(const float* texels) override { device_.write_image(*image_, texels); }

private:
    Device& device_;
    std::unique_ptr<Image> image_;
};

class CExecutable final : public Executable {
public:
    // The options, the entry names, the argument slots, the print formats and
    // the program binary, which the device is asked for only when the disk
    // cache keeps the variant (on PoCL it costs 60-400 ms).
    std::string serialize() const override {
        {
            std::lock_guard<std::mutex> hold(binary_mutex);
            if (binary.empty() && built) binary = device->binary(*built);
        }
        support::ByteWriter b;
        b.u32(static_cast<uint32_t>(options.size()));
        for (auto& o : options) b.str(o);
        b.str(entries.count);
        b.str(entries.body);
        b.str(entries.result);
        b.u32(static_cast<uint32_t>(slots.size()));
        for (const ArgSlot& s : slots) {
            b.u32(static_cast<uint32_t>(s.kind));
            b.u32(static_cast<uint32_t>(s.param));
            b.u32(static_cast<uint32_t>(s.dim));
            b.u32(static_cast<uint32_t>(s.dtype));
            b.u32(static_cast<uint32_t>(s.bytes));
        }
        b.u32(static_cast<uint32_t>(prints.size()));
        for (auto& p : prints) b.str(std::string(p.kinds.begin(), p.kinds.end()));
        b.u8(count_beside);
        b.u8(workgroups);
        b.u8(full_groups);
        b.u64(private_bytes);
        b.u8(host_count.has_value());
        if (host_count) host_count->write(b);
        b.str(binary);
        return b.take();
    }

    std::vector<std::string> options;
    codegen::cfamily::EntryPoints entries;
    std::vector<ArgSlot> slots;
    std::vector<codegen::cfamily::PrintFormat> prints;
    bool count_beside = false;  // the count reads no array memory (CSource::count_reads_memory)
    bool workgroups = false;    // groups of exactly kGroupSize lanes (CSource::workgroups)
    bool full_groups = false;   // and every group complete (CSource::full_groups)
    uint64_t private_bytes = 0; // a work item's local arrays (ir::private_scratch_bytes)
    std::optional<HostCount> host_count;  // where the host works out the count (host_count.h)
    Device* device = nullptr;
    std::unique_ptr<Program> built;  // from source, until serialize() has read its binary
    mutable std::string binary;      // from the disk cache, or read by serialize()
    mutable std::mutex binary_mutex;
    std::unique_ptr<Function> count, body, result;
    // One launch at a time: they share the out, debug and print memory.
    std::mutex launching;
    std::unique_ptr<Memory> out, debug, print;
};

// The print buffer of a kernel that prints: 8 MiB, a million values.
constexpr int64_t kPrintWords = int64_t{1} << 20;

// The largest group `code`'s body may run in on `device`: the entry's
// limit, and the device's for the items' local arrays together.
size_t group_limit(const CExecutable& code, const Device& device) {
    size_t limit = code.body->max_group_size();
    if (uint64_t budget = device.group_private_bytes(); budget > 0 && code.private_bytes > 0)
        limit = std::min<size_t>(limit, size_t(std::max<uint64_t>(1, budget / code.private_bytes)));
    return limit;
}

// The group size of a launch without workgroups: kGroupSize, halved until
// it is within `limit`.
size_t plain_group(size_t limit) {
    size_t group = codegen::cfamily::kGroupSize;
    while (group > 1 && group > limit) group /= 2;
    return group;
}

class CFamilyBackend final : public Backend {
public:
    CFamilyBackend(Device& device, Identity identity) : device_(device), id_(std::move(identity)) {
        id_.capabilities.workgroups = true;
        id_.capabilities.tile_shared_bytes = tile::workgroup_target().shared_bytes;
        id_.capabilities.f64 = device.supports_fp64() && id_.dialect != codegen::cfamily::Dialect::Metal;
        id_.capabilities.images = device.has_images() && codegen::cfamily::table(id_.dialect).texture_sample;
        target_ = std::string(id_.name) + "\n" + device.description();
        if (!id_.extra_options.empty()) {
            target_ += "\noptions:";
            for (auto& o : id_.extra_options) target_ += " " + o;
        }
    }

    const char* name() const override { return id_.name; }
    const char* display_name() const override { return id_.display_name; }
    const Capabilities& capabilities() const override { return id_.capabilities; }
    const std::string& target_description() override { return target_; }

    Compiled compile(const ir::Kernel& typed, const CompileOptions& options) override {
        auto source = codegen::cfamily::emit_c(typed, id_.dialect, emit_options(options));
        auto code = std::make_unique<CExecutable>();
        code->options = source.compile_options;
        code->options.insert(code->options.end(), id_.extra_options.begin(), id_.extra_options.end());
        if (source.barrier_under_branch)
            for (auto& o : device_.branched_barrier_options()) code->options.push_back(o);
        code->entries = source.entries;
        code->slots = source.slots;
        code->prints = source.prints;
        code->count_beside = !source.count_reads_memory;
        code->workgroups = source.workgroups;
        code->full_groups = source.full_groups;
        code->private_bytes = uint64_t(ir::private_scratch_bytes(typed));
        code->host_count = HostCount::plan(typed);
        code->device = &device_;
        code->built = device_.build(source.text, code->options);
        link(*code, *code->built);
        Compiled out;
        out.code = std::move(code);
        out.debug_accesses = std::move(source.debug_accesses);
        return out;
    }

    std::unique_ptr<Executable> load(const std::string& bytes, std::string* error) override {
        support::ByteReader in(bytes);
        auto code = std::make_unique<CExecutable>();
        uint32_t n_options = in.u32();
        for (uint32_t i = 0; i < n_options && n_options < (1u << 10); ++i) code->options.push_back(in.str());
        code->entries.count = in.str();
        code->entries.body = in.str();
        code->entries.result = in.str();
        uint32_t n = in.u32();
        for (uint32_t i = 0; i < n && n < (1u << 16); ++i) {
            ArgSlot s;
            s.kind = static_cast<ArgSlot::Kind>(in.u32());
            s.param = static_cast<int>(in.u32());
            s.dim = static_cast<int>(in.u32());
            s.dtype = static_cast<DType>(in.u32());
            s.bytes = static_cast<int>(in.u32());
            code->slots.push_back(s);
        }
        uint32_t prints = in.u32();
        for (uint32_t i = 0; i < prints && prints < (1u << 16); ++i) {
            std::string kinds = in.str();
            code->prints.push_back({std::vector<uint8_t>(kinds.begin(), kinds.end())});
        }
        code->count_beside = in.u8() != 0;
        code->workgroups = in.u8() != 0;
        code->full_groups = in.u8() != 0;
        code->private_bytes = in.u64();
        if (in.u8() != 0) {
            code->host_count = HostCount::read(in);
            if (!code->host_count) {
                *error = std::string("malformed ") + id_.display_name + " program";
                return nullptr;
            }
        }
        code->binary = in.str();
        if (!in.complete()) {
            *error = std::string("malformed ") + id_.display_name + " program";
            return nullptr;
        }
        code->device = &device_;
        auto program = device_.load(code->binary, code->options, error);
        if (!program) return nullptr;
        link(*code, *program);
        return code;
    }

    LaunchOutcome launch(const Executable& executable, const LaunchRequest& request) override {
        auto& code = const_cast<CExecutable&>(static_cast<const CExecutable&>(executable));
        std::lock_guard<std::mutex> hold(code.launching);
        // The arrays' bytes on the device, current; those the kernel may
        // write count as newer there afterwards.
        for (size_t i = 0; i < request.count && !request.count_only; ++i) {
            const runtime::Array* a = request.args[i].array;
            if (!a || (request.args[i].texture && id_.capabilities.images)) continue;
            bool written = false;
            if (request.written)
                for (int w : *request.written) written = written || w == static_cast<int>(i);
            auto& storage = *a->storage();
            storage.device->for_device(storage.data, storage.bytes, written);
        }
        size_t count_arg = 0;
        Arguments args = arguments(code, request, &count_arg);

        LaunchOutcome outcome;
        const int64_t count = launch_count(code, request, args, &outcome.refusal);
        if (count < 0) return outcome;
        outcome.count = count;
        if (request.count_only) return outcome;
        args.overwrite(count_arg, &count);
        const int64_t group = codegen::cfamily::kGroupSize;
        const size_t limit = group_limit(code, device_);
        if (code.workgroups && count > 0 && limit < static_cast<size_t>(group)) {
            outcome.refusal.reason = codegen::LaunchRefusal::GroupTooLarge;
            outcome.refusal.step = group;
            outcome.refusal.counts[0][0] = int64_t(limit);
            return outcome;
        }
        if (code.full_groups && codegen::refuse_partial_group(count, group, &outcome.refusal)) return outcome;
        if (count > 0) {
            if (code.print) {
                int64_t cursor = 0;
                device_.write(*code.print, 0, &cursor, sizeof cursor);
            }
            device_.launch(*code.body, args, static_cast<uint64_t>(count),
                           code.workgroups ? static_cast<size_t>(group) : plain_group(limit));
            if (code.print) print_records(code);
        }
        if (code.result) {
            device_.launch(*code.result, args, 1, 1);
            uint64_t bits = 0;
            device_.read(*code.out, 0, &bits, sizeof bits);
            outcome.has_result = true;
            outcome.result_bits = bits;
        }
        if (request.debug) {
            int64_t record[codegen::cfamily::kDebugWords] = {};
            device_.read(*code.debug, 0, record, sizeof record);
            if (record[0]) {
                outcome.debug_failure = static_cast<int32_t>(record[1]);
                std::memcpy(outcome.debug_values, record + 2, sizeof outcome.debug_values);
                int64_t clear[codegen::cfamily::kDebugWords] = {};
                device_.write(*code.debug, 0, clear, sizeof clear);
            }
        }
        return outcome;
    }

    std::shared_ptr<runtime::DeviceCopy> device_copy(size_t bytes) override {
        return std::make_shared<MemoryCopy>(id_.name, device_, bytes);
    }
    void synchronize() override { device_.finish(); }

    SharedMemory shared_memory() const override { return {device_.dlpack_device(), 0}; }
    uint64_t share(runtime::Storage& storage) override {
        storage.device->share(storage.data, storage.bytes);
        return device_address(storage);
    }
    uint64_t device_address(const runtime::Storage& storage) const override {
        return *static_cast<const MemoryCopy&>(*storage.device).memory().address();
    }
    uint64_t stream() override { return device_.stream_handle(Queue::Ordered); }
    void wait_for_stream(uint64_t handle) override { device_.wait_for_stream(handle); }
    std::shared_ptr<runtime::DeviceCopy> adopt(uint64_t address, size_t bytes) override {
        return std::make_shared<MemoryCopy>(id_.name, device_, device_.adopt(address, bytes));
    }

    std::optional<double> reduce(const runtime::Array& a, ReduceOp op) override {
        auto& storage = *a.storage();
        storage.device->for_device(storage.data, storage.bytes, false);
        return device_.reduce(static_cast<const MemoryCopy&>(*storage.device).memory(), a, op);
    }

#ifdef TACK_WITH_TILE
    // Tile kernels compile afresh in each process here: keeping their code
    // means reading the program's binary, which on PoCL costs several times
    // its build for a large kernel (Top-K's networks in workgroups: 51 s
    // built, 5 minutes with the binary read), and the CUDA and HIP binaries
    // can only be checked on a device.
    std::unique_ptr<tile::CompiledKernel> create_tile_kernel(const tile::Kernel& kernel,
                                                            const tile::CompileOptions& options,
                                                            std::shared_ptr<CodeStore>) override {
        return std::make_unique<TileKernel>(*this, kernel, options);
    }
#endif

    std::vector<std::string> inspect_modes() const override { return {id_.name}; }
    std::string inspect(const std::string&, const ir::Kernel& typed, const CompileOptions& options) override {
        return codegen::cfamily::emit_c(typed, id_.dialect, emit_options(options)).text;
    }

private:
    static codegen::cfamily::EmitOptions emit_options(const CompileOptions& options) {
        codegen::cfamily::EmitOptions emit;
        emit.debug = options.debug;
        return emit;
    }

    void link(CExecutable& code, const Program& program) {
        code.count = device_.function(program, code.entries.count);
        code.body = device_.function(program, code.entries.body);
        if (!code.entries.result.empty()) code.result = device_.function(program, code.entries.result);
        code.out = device_.allocate(codegen::cfamily::kOutWords * sizeof(int64_t));
        code.debug = device_.allocate(codegen::cfamily::kDebugWords * sizeof(int64_t));
        int64_t zeros[codegen::cfamily::kDebugWords] = {};
        device_.write(*code.debug, 0, zeros, sizeof zeros);
        if (!code.prints.empty()) {
            code.print = device_.allocate(kPrintWords * sizeof(int64_t));
            int64_t header[codegen::cfamily::kPrintHeaderWords] = {0, kPrintWords - codegen::cfamily::kPrintHeaderWords};
            device_.write(*code.print, 0, header, sizeof header);
        }
    }

    // Formats the print records a launch left, one line each, as the CPU's
    // print does; lines that did not fit the buffer are counted on stderr.
    void print_records(const CExecutable& code) {
        int64_t header[codegen::cfamily::kPrintHeaderWords];
        device_.read(*code.print, 0, header, sizeof header);
        int64_t claimed = header[0] & 0xffffffff, capacity = header[1];
        int64_t used = std::min(claimed, capacity);
        if (used <= 0) return;
        std::vector<int64_t> words(static_cast<size_t>(used));
        device_.read(*code.print, sizeof header, words.data(), words.size() * sizeof(int64_t));
        std::vector<uint64_t> values;
        for (size_t at = 0; at < words.size();) {
            size_t index = static_cast<size_t>(words[at]);
            if (index >= code.prints.size()) break;  // a claim past the end, cut short
            const auto& kinds = code.prints[index].kinds;
            if (at + 1 + kinds.size() > words.size()) break;
            values.assign(kinds.size(), 0);
            for (size_t i = 0; i < kinds.size(); ++i) {
                uint64_t bits = static_cast<uint64_t>(words[at + 1 + i]);
                if ((kinds[i] & 0x3f) == static_cast<uint8_t>(DType::F32)) {
                    // f32 bits, widened to a double's as the CPU passes them.
                    float f;
                    uint32_t low = static_cast<uint32_t>(bits);
                    std::memcpy(&f, &low, sizeof f);
                    double d = f;
                    std::memcpy(&bits, &d, sizeof bits);
                }
                values[i] = bits;
            }
            tack_rt_print(static_cast<int32_t>(kinds.size()), kinds.data(), values.data());
            at += 1 + kinds.size();
        }
        if (claimed > capacity)
            std::fprintf(stderr,
                         "tack: a launch on %s printed more than its %lld-word print buffer holds; the lines past "
                         "it were not printed\n",
                         id_.display_name, static_cast<long long>(capacity));
    }

    // The launch's iteration count, or -1 with the refusal in *refusal: from
    // the host where the kernel's range lets it (host_count.h), else from
    // the count entry on the device, on the queue beside the launches
    // before it where it reads no array memory.
    int64_t launch_count(CExecutable& code, const LaunchRequest& request, const Arguments& args,
                         codegen::LaunchRefusal* refusal) {
        if (code.host_count && !request.debug)
            if (auto count = code.host_count->count(request.args, request.count, refusal)) return *count;
        int64_t words[codegen::cfamily::kOutWords] = {};
        const Queue queue = code.count_beside && !request.debug ? Queue::Beside : Queue::Ordered;
        device_.launch(*code.count, args, 1, 1, queue);
        device_.read(*code.out, 0, words, sizeof words, queue);
        if (words[0] < 0) std::memcpy(static_cast<void*>(refusal), words + 1, sizeof *refusal);
        return words[0] < 0 ? -1 : words[0];
    }

    // The kernel arguments, slot by slot (cfamily/emit_c.h gives the order),
    // with a count of zero at *count_arg.
    Arguments arguments(const CExecutable& code, const LaunchRequest& request, size_t* count_arg) {
        Arguments args;
        for (const ArgSlot& s : code.slots) {
            const LaunchArg* a = s.param >= 0 ? &request.args[s.param] : nullptr;
            switch (s.kind) {
                case ArgSlot::Kind::Data:
                    args.memory(static_cast<const MemoryCopy&>(*a->array->storage()->device).memory());
                    break;
                case ArgSlot::Kind::ByteOffset: args.value(static_cast<int64_t>(a->array->byte_offset())); break;
                case ArgSlot::Kind::Extent: args.value(a->array->shape()[s.dim]); break;
                case ArgSlot::Kind::Stride: args.value(a->array->strides()[s.dim]); break;
                case ArgSlot::Kind::ComponentStride: args.value(a->array->element().component_stride); break;
                case ArgSlot::Kind::Scalar: args.bytes(&a->bits, static_cast<size_t>(s.bytes)); break;
                case ArgSlot::Kind::Count:
                    *count_arg = args.count();
                    args.value(int64_t{0});
                    break;
                case ArgSlot::Kind::Out: args.memory(*code.out); break;
                case ArgSlot::Kind::Debug: args.memory(*code.debug); break;
                case ArgSlot::Kind::Print: args.memory(*code.print); break;
                case ArgSlot::Kind::Image:
                    args.value(a->texture->image(
                        id_.name, [&] { return std::make_unique<ImageCopy>(id_.name, device_, *a->texture); }));
                    break;
            }
        }
        return args;
    }

    Device& device_;
    Identity id_;
    std::string target_;
};

}  // namespace

std::unique_ptr<Backend> make_cfamily_backend(Device& device, Identity identity) {
    return std::make_unique<CFamilyBackend>(device, std::move(identity));
}

}  // namespace tack::backends::gpu
