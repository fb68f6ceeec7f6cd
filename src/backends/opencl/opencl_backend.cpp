#include "backends/opencl/opencl_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "backends/opencl/array_reduce.h"
#include "backends/opencl/device.h"
#include "codegen/cfamily/emit_c.h"
#include "runtime/print.h"
#include "support/byte_codec.h"

namespace tack::backends {

namespace {

using codegen::cfamily::ArgSlot;
using opencl::ClBuffer;
using opencl::ClDevice;
using opencl::ClKernel;
using opencl::ClLaunch;
using opencl::ClProgram;

// An array's storage on the device: one buffer of the storage's bytes.
class ClDeviceCopy final : public runtime::DeviceCopy {
public:
    ClDeviceCopy(ClDevice& device, size_t bytes) : DeviceCopy("opencl"), device_(device), buffer_(device.allocate(bytes)) {}
    const ClBuffer& buffer() const { return buffer_; }

protected:
    void read(char* host, size_t bytes) override { device_.read(buffer_, 0, host, bytes); }
    void write(const char* host, size_t bytes) override { device_.write(buffer_, 0, host, bytes); }

private:
    ClDevice& device_;
    ClBuffer buffer_;
};

class ClExecutable final : public Executable {
public:
    // The options, the entry names, the argument slots, the print formats and
    // the program binary, which the driver is asked for only when the disk
    // cache keeps the variant (on PoCL it costs 60-400 ms).
    std::string serialize() const override {
        {
            std::lock_guard<std::mutex> hold(binary_mutex);
            if (binary.empty() && built) binary = device->binary(built);
        }
        support::ByteWriter b;
        b.str(options);
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
        b.str(binary);
        return b.take();
    }

    std::string options;
    codegen::cfamily::EntryPoints entries;
    std::vector<ArgSlot> slots;
    std::vector<codegen::cfamily::PrintFormat> prints;
    bool count_beside = false;  // the count reads no array memory (CSource::count_reads_memory)
    bool workgroups = false;    // groups of exactly kGroupSize lanes (CSource::workgroups)
    bool full_groups = false;   // and every group complete (CSource::full_groups)
    ClDevice* device = nullptr;
    ClProgram built;                 // from source, until serialize() has read its binary
    mutable std::string binary;      // from the disk cache, or read by serialize()
    mutable std::mutex binary_mutex;
    ClKernel count, body, result;
    // One launch at a time: they share the out, debug and print buffers.
    std::mutex launching;
    ClBuffer out, debug, print;
};

std::string joined(const std::vector<std::string>& options) {
    std::string s;
    for (auto& o : options) s += (s.empty() ? "" : " ") + o;
    return s;
}

// The print buffer of a kernel that prints: 8 MiB, a million values.
constexpr int64_t kPrintWords = int64_t{1} << 20;

class OpenClBackend final : public Backend {
public:
    explicit OpenClBackend(ClDevice& device) : device_(device) {
        capabilities_.f64 = device.supports_fp64();
        capabilities_.workgroups = true;
        target_ = "opencl\n" + device.description();
    }

    const char* name() const override { return "opencl"; }
    const char* display_name() const override { return "OpenCL"; }
    const Capabilities& capabilities() const override { return capabilities_; }
    const std::string& target_description() override { return target_; }

    Compiled compile(const ir::Kernel& typed, const CompileOptions& options) override {
        codegen::cfamily::EmitOptions emit;
        emit.debug = options.debug;
        auto source = codegen::cfamily::emit_c(typed, codegen::cfamily::Dialect::OpenCL, emit);
        auto code = std::make_unique<ClExecutable>();
        // -w: PoCL's compiler prints warnings about the generated C (such as
        // a kernel's `x < x`) to the process's stderr, which a user cannot act on.
        code->options = joined(source.compile_options) + " -w";
        code->entries = source.entries;
        code->slots = source.slots;
        code->prints = source.prints;
        code->count_beside = !source.count_reads_memory;
        code->workgroups = source.workgroups;
        code->full_groups = source.full_groups;
        code->device = &device_;
        code->built = device_.build(source.text, code->options);
        link(*code, code->built);
        Compiled out;
        out.code = std::move(code);
        out.debug_accesses = std::move(source.debug_accesses);
        return out;
    }

    std::unique_ptr<Executable> load(const std::string& bytes, std::string* error) override {
        support::ByteReader in(bytes);
        auto code = std::make_unique<ClExecutable>();
        code->options = in.str();
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
        code->binary = in.str();
        if (!in.complete()) {
            *error = "malformed OpenCL program";
            return nullptr;
        }
        ClProgram program = device_.load_binary(code->binary, code->options, error);
        if (!program) return nullptr;
        link(*code, program);
        return code;
    }

    LaunchOutcome launch(const Executable& executable, const LaunchRequest& request) override {
        auto& code = const_cast<ClExecutable&>(static_cast<const ClExecutable&>(executable));
        std::lock_guard<std::mutex> hold(code.launching);
        // The arrays' bytes on the device, current; those the kernel may
        // write count as newer there afterwards.
        for (size_t i = 0; i < request.count && !request.count_only; ++i) {
            const runtime::Array* a = request.args[i].array;
            if (!a) continue;
            bool written = false;
            if (request.written)
                for (int w : *request.written) written = written || w == static_cast<int>(i);
            auto& storage = *a->storage();
            storage.device->for_device(storage.data, storage.bytes, written);
        }
        size_t count_arg = 0;
        ClLaunch args = arguments(code, request, &count_arg);

        // A count that reads only scalars and extents runs beside the queued
        // work, so the host does not wait for that work to learn it.
        LaunchOutcome outcome;
        int64_t words[codegen::cfamily::kOutWords] = {};
        const opencl::Queue queue = code.count_beside && !request.debug ? opencl::Queue::Beside : opencl::Queue::Ordered;
        device_.launch(code.count, args, 1, 1, queue);
        device_.read(code.out, 0, words, sizeof words, queue);
        if (words[0] < 0) {
            std::memcpy(static_cast<void*>(&outcome.refusal), words + 1, sizeof outcome.refusal);
            return outcome;
        }
        const int64_t count = words[0];
        outcome.count = count;
        if (request.count_only) return outcome;
        args.overwrite(count_arg, &count);
        const int64_t group = codegen::cfamily::kGroupSize;
        if (code.workgroups && count > 0 && code.body.max_group_size() < static_cast<size_t>(group)) {
            outcome.refusal.reason = codegen::LaunchRefusal::GroupTooLarge;
            outcome.refusal.step = group;
            outcome.refusal.counts[0][0] = code.body.max_group_size();
            return outcome;
        }
        if (code.full_groups && codegen::refuse_partial_group(count, group, &outcome.refusal)) return outcome;
        if (count > 0) {
            if (code.print) {
                int64_t cursor = 0;
                device_.write(code.print, 0, &cursor, sizeof cursor);
            }
            device_.launch(code.body, args, static_cast<uint64_t>(count), code.workgroups ? group : 0);
            if (code.print) print_records(code);
        }
        if (code.result) {
            device_.launch(code.result, args, 1, 1);
            uint64_t bits = 0;
            device_.read(code.out, 0, &bits, sizeof bits);
            outcome.has_result = true;
            outcome.result_bits = bits;
        }
        if (request.debug) {
            int64_t record[codegen::cfamily::kDebugWords] = {};
            device_.read(code.debug, 0, record, sizeof record);
            if (record[0]) {
                outcome.debug_failure = static_cast<int32_t>(record[1]);
                std::memcpy(outcome.debug_values, record + 2, sizeof outcome.debug_values);
                int64_t clear[codegen::cfamily::kDebugWords] = {};
                device_.write(code.debug, 0, clear, sizeof clear);
            }
        }
        return outcome;
    }

    std::shared_ptr<runtime::DeviceCopy> device_copy(size_t bytes) override {
        return std::make_shared<ClDeviceCopy>(device_, bytes);
    }
    void synchronize() override { device_.finish(); }

    std::optional<double> reduce(const runtime::Array& a, ReduceOp op) override {
        auto& storage = *a.storage();
        storage.device->for_device(storage.data, storage.bytes, false);
        return opencl::reduce_on_device(device_, static_cast<const ClDeviceCopy&>(*storage.device).buffer(), a, op);
    }

    std::vector<std::string> inspect_modes() const override { return {"opencl"}; }
    std::string inspect(const std::string&, const ir::Kernel& typed, const CompileOptions& options) override {
        codegen::cfamily::EmitOptions emit;
        emit.debug = options.debug;
        return codegen::cfamily::emit_c(typed, codegen::cfamily::Dialect::OpenCL, emit).text;
    }

private:
    void link(ClExecutable& code, const ClProgram& program) {
        code.count = device_.kernel(program, code.entries.count);
        code.body = device_.kernel(program, code.entries.body);
        if (!code.entries.result.empty()) code.result = device_.kernel(program, code.entries.result);
        code.out = device_.allocate(codegen::cfamily::kOutWords * sizeof(int64_t));
        code.debug = device_.allocate(codegen::cfamily::kDebugWords * sizeof(int64_t));
        int64_t zeros[codegen::cfamily::kDebugWords] = {};
        device_.write(code.debug, 0, zeros, sizeof zeros);
        if (!code.prints.empty()) {
            code.print = device_.allocate(kPrintWords * sizeof(int64_t));
            int64_t header[codegen::cfamily::kPrintHeaderWords] = {0, kPrintWords - codegen::cfamily::kPrintHeaderWords};
            device_.write(code.print, 0, header, sizeof header);
        }
    }

    // Formats the print records a launch left, one line each, as the CPU's
    // print does; lines that did not fit the buffer are counted on stderr.
    void print_records(const ClExecutable& code) {
        int64_t header[codegen::cfamily::kPrintHeaderWords];
        device_.read(code.print, 0, header, sizeof header);
        int64_t claimed = header[0] & 0xffffffff, capacity = header[1];
        int64_t used = std::min(claimed, capacity);
        if (used <= 0) return;
        std::vector<int64_t> words(static_cast<size_t>(used));
        device_.read(code.print, sizeof header, words.data(), words.size() * sizeof(int64_t));
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
                         "tack: an OpenCL launch printed more than its %lld-word print buffer holds; the lines past "
                         "it were not printed\n",
                         static_cast<long long>(capacity));
    }

    // The kernel arguments, slot by slot (cfamily/emit_c.h gives the order),
    // with a count of zero at *count_arg.
    static ClLaunch arguments(const ClExecutable& code, const LaunchRequest& request, size_t* count_arg) {
        ClLaunch args;
        for (const ArgSlot& s : code.slots) {
            const LaunchArg* a = s.param >= 0 ? &request.args[s.param] : nullptr;
            switch (s.kind) {
                case ArgSlot::Kind::Data:
                    args.buffer(static_cast<const ClDeviceCopy&>(*a->array->storage()->device).buffer());
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
                case ArgSlot::Kind::Out: args.buffer(code.out); break;
                case ArgSlot::Kind::Debug: args.buffer(code.debug); break;
                case ArgSlot::Kind::Print: args.buffer(code.print); break;
            }
        }
        return args;
    }

    ClDevice& device_;
    Capabilities capabilities_;
    std::string target_;
};

}  // namespace

Backend* opencl_backend(std::string* why_not) {
    static std::once_flag once;
    static std::unique_ptr<OpenClBackend> backend;
    static std::string reason;
    std::call_once(once, [] {
        if (ClDevice* device = ClDevice::instance(&reason)) backend = std::make_unique<OpenClBackend>(*device);
    });
    if (!backend && why_not) *why_not = reason;
    return backend.get();
}

}  // namespace tack::backends
