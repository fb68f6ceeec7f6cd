// A GPU-style device as the C-family runtime (cfamily_backend.h) uses it:
// memory, programs compiled from printed source, entry points, launches
// over one 1-D range, and two in-order queues.
//
// OpenCL (backends/opencl), CUDA and HIP (driver_device.h, over the
// vendors' driver APIs) implement it; everything above it, the argument
// list, the count/body/result sequence, debug and print records and the
// arrays' device copies, is written once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace tack::backends::gpu {

// A device allocation of size() bytes, freed when destroyed (it must not
// outlive its device, which lives until the process exits).
class Memory {
public:
    virtual ~Memory() = default;
    virtual size_t size() const = 0;
    // The kernel argument that passes this memory: a cl_mem, a device
    // address; `handle_size()` bytes at `handle()`.
    virtual const void* handle() const = 0;
    virtual size_t handle_size() const = 0;
    // Its address in the device's address space, where memory has one
    // (CUDA, HIP); nothing for handles (OpenCL buffers).
    virtual std::optional<uint64_t> address() const { return std::nullopt; }
};

// A 3D f32 image with a texture object over it that samples with trilinear
// filtering, edge clamping and normalized coordinates (tack.texture3d's
// hardware form); freed when destroyed.
class Image {
public:
    virtual ~Image() = default;
    virtual uint64_t handle() const = 0;  // the texture object kernels sample
};

// A program built for the device, with every entry point of one variant.
class Program {
public:
    virtual ~Program() = default;
};

// One entry point of a program; it keeps what it needs of its program, so
// the Program may be destroyed first.
class Function {
public:
    virtual ~Function() = default;
    // The largest work-group size this entry may be launched with.
    virtual size_t max_group_size() const = 0;
};

// The arguments of one launch, in order, copied when added so that their
// sources may go away before the launch.
class Arguments {
public:
    // `size` bytes from `data`, e.g. a 64-bit count or a float scalar.
    Arguments& bytes(const void* data, size_t size);
    template <class T>
    Arguments& value(const T& v) {
        return bytes(&v, sizeof v);
    }
    Arguments& memory(const Memory& m) { return bytes(m.handle(), m.handle_size()); }
    // A workgroup-local array of `size` bytes that the launch allocates
    // (OpenCL's __local arguments): it has a size and no bytes.
    Arguments& local(size_t size);
    // Replaces argument `index`'s bytes with as many from `data`.
    Arguments& overwrite(size_t index, const void* data);
    size_t count() const { return slots_.size(); }
    // Argument `index`: its bytes, aligned to 16 in one block (null for a
    // local array), and its size.
    const void* data(size_t index) const {
        const Slot& s = slots_.at(index);
        return s.local ? nullptr : data_.data() + s.offset;
    }
    size_t size(size_t index) const { return slots_.at(index).size; }
    bool is_local(size_t index) const { return slots_.at(index).local; }

private:
    struct Slot {
        size_t offset = 0;
        size_t size = 0;
        bool local = false;
    };
    std::vector<unsigned char> data_;
    std::vector<Slot> slots_;
};

// Two queues, both in order. Ordered carries every launch, copy and
// transfer in call order; Beside carries small launches that read no memory
// Ordered may be writing (a count entry that reads only scalars and
// extents), so reading their result back does not wait for the work queued
// before them.
enum class Queue { Ordered, Beside };

class Device {
public:
    virtual ~Device() = default;

    // Everything compiled code depends on besides its source and options
    // (device, architecture, driver and compiler versions), one
    // "key: value" per line.
    virtual const std::string& description() const = 0;
    virtual bool supports_fp64() const = 0;
    // The bytes of local arrays that the work items of one group may hold
    // together; 0: no limit (a GPU gives each item memory of its own). A
    // CPU device (PoCL) runs a group's items on one thread's stack, which
    // 256 items of 32 KiB each overflow.
    virtual uint64_t group_private_bytes() const { return 0; }
    // Build options for a program whose barriers sit under a branch
    // (codegen::cfamily::CSource::barrier_under_branch): what this device's
    // compiler needs to build such a kernel right.
    virtual std::vector<std::string> branched_barrier_options() const { return {}; }

    // Memory. Transfers are checked against the memory's size
    // (std::out_of_range) and do nothing for zero bytes.
    virtual std::unique_ptr<Memory> allocate(size_t bytes) = 0;
    // `src` may be reused when it returns; ordered after everything queued.
    virtual void write(const Memory& memory, size_t offset, const void* src, size_t bytes) = 0;
    // Returns when the bytes are in `dst`: waits for every launch queued
    // before it on `queue`.
    virtual void read(const Memory& memory, size_t offset, void* dst, size_t bytes, Queue queue = Queue::Ordered) = 0;
    // Waits for everything queued.
    virtual void finish() = 0;

    // Programs: built from source with options (throws with the compiler's
    // log), the bytes that rebuild one, and the rebuild (null with the
    // reason when the bytes do not load here).
    virtual std::unique_ptr<Program> build(const std::string& source, const std::vector<std::string>& options) = 0;
    virtual std::string binary(const Program& program) = 0;
    virtual std::unique_ptr<Program> load(const std::string& binary, const std::vector<std::string>& options,
                                          std::string* why_not) = 0;
    // Throws naming the entry when the program has none of that name.
    virtual std::unique_ptr<Function> function(const Program& program, const std::string& entry) = 0;

    // Queues one 1-D range of `items` work items in groups of `group`
    // (`items` rounded up to a multiple of it: the kernel compares its
    // index against its count). Zero items queue nothing. Throws when the
    // device cannot launch that many at once.
    virtual void launch(const Function& function, const Arguments& args, uint64_t items, size_t group,
                        Queue queue = Queue::Ordered) = 0;

    // Sharing memory with other libraries, on devices whose memory has
    // addresses (CUDA, HIP; the defaults say the device has none).
    // The DLPack device type of its memory (kDLCUDA, kDLROCM), 0 for none.
    virtual int dlpack_device() const { return 0; }
    // Memory another library allocated, `bytes` from device address
    // `address`, used in place and never freed here; throws
    // std::invalid_argument, saying why, when it is not this device's memory.
    virtual std::unique_ptr<Memory> adopt(uint64_t address, size_t bytes);
    // The native handle of a queue's stream, as other libraries name streams.
    virtual uint64_t stream_handle(Queue queue) const;
    // Waits until the work another library queued on its stream `handle`
    // is done.
    virtual void wait_for_stream(uint64_t handle);

    // Hardware textures, on devices with texture units (CUDA; the defaults
    // say there are none). `create_image` makes a width x height x depth
    // image; `write_image` copies texels in, x fastest, ordered after
    // everything queued, and returns when `texels` may be reused.
    virtual bool has_images() const { return false; }
    virtual std::unique_ptr<Image> create_image(int64_t width, int64_t height, int64_t depth);
    virtual void write_image(Image& image, const float* texels);

    // Array.sum/min/max of `a` (a nonempty view of scalars) whose storage
    // is `memory`, where the device reduces it; nothing otherwise.
    virtual std::optional<double> reduce(const Memory& memory, const runtime::Array& a, ReduceOp op) {
        (void)memory, (void)a, (void)op;
        return std::nullopt;
    }
};

}  // namespace tack::backends::gpu
