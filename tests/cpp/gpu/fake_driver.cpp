// A driver library for tests of the CUDA and HIP runtimes on machines
// without a GPU: it exports the CUDA driver and HIP symbols of
// backends/gpu/driver_api.h over host memory and records every launch.
//
// Device addresses are host addresses of allocations it tracks; a copy
// outside one fails as the drivers do. A module's image is text, one line
// per entry point: "entry <name> <parameters> <max threads per block>";
// cuLaunchKernel records the entry, grid, block, stream and each
// parameter's first 8 bytes, and every stream synchronized; allocations can
// also be made and freed by a test through cuMemAlloc_v2 and cuMemFree_v2
// (the Python interop tests do, with ctypes). TACK_FAKE_DRIVER_DEVICES=0 makes it see no
// device. tack_fake_* functions let a test read and reset what it recorded.
// CUDA's image calls (cuArray3DCreate_v2, cuMemcpy3DAsync_v2 from host to
// array, cuTexObjectCreate over an array) keep the texels and the sampling
// descriptor for tack_fake_texture; textures sample nothing.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Entry {
    std::string name;
    int params = 0;
    int max_threads = 0;
};
struct Module {
    std::vector<Entry*> entries;
};
struct Launch {
    std::string entry;
    unsigned grid[3], block[3], shared;
    void* stream;
    std::vector<uint64_t> params;
};

std::mutex mutex;
std::map<uint64_t, std::vector<char>*> allocations;  // by address
std::vector<Launch> launches;
int context_token, stream_tokens[64], streams_made = 0;
void* current_context = nullptr;

constexpr int kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kNoDevice = 100, kNotFound = 500, kIllegalAddress = 700,
              kInvalidContext = 201;

bool has_device() {
    const char* n = std::getenv("TACK_FAKE_DRIVER_DEVICES");
    return !(n && std::string(n) == "0");
}

// The allocation holding [address, address + bytes), or null.
char* locate(uint64_t address, size_t bytes) {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin()) return nullptr;
    --it;
    uint64_t base = it->first;
    size_t size = it->second->size();
    if (address < base || address - base > size || bytes > size - (address - base)) return nullptr;
    return it->second->data() + (address - base);
}

int init(unsigned) { return has_device() ? kSuccess : kNoDevice; }
int driver_version(int* v) {
    *v = 13000;
    return kSuccess;
}
int device_count(int* n) {
    *n = has_device() ? 1 : 0;
    return kSuccess;
}
int device_get(int* d, int ordinal) {
    if (ordinal != 0 || !has_device()) return kInvalidValue + 100;  // invalid device
    *d = 0;
    return kSuccess;
}
int device_name(char* name, int length, int) {
    std::snprintf(name, length, "Fake GPU");
    return kSuccess;
}
// CUDA and HIP attribute numbers for compute capability, threads per block
// and grid size answer alike: 9.0, 1024, 2^31 - 1 (or TACK_FAKE_DRIVER_GRID).
int device_attribute(int* value, int attribute, int) {
    switch (attribute) {
        case 75: case 23: *value = 9; return kSuccess;
        case 76: case 61: *value = 0; return kSuccess;
        case 1: case 56: *value = 1024; return kSuccess;
        case 5: case 29: {
            const char* g = std::getenv("TACK_FAKE_DRIVER_GRID");
            *value = g ? std::atoi(g) : 2147483647;
            return kSuccess;
        }
    }
    *value = 0;
    return kInvalidValue;
}
constexpr size_t kDeviceMemory = size_t{1} << 30;
int device_memory(size_t* bytes, int) {
    *bytes = kDeviceMemory;
    return kSuccess;
}
int primary_context(void** context, int) {
    *context = &context_token;
    return kSuccess;
}
int set_context(void* context) {
    current_context = context;
    return kSuccess;
}
int allocate(uint64_t* address, size_t bytes) {
    if (!current_context) return kInvalidContext;
    if (bytes == 0) return kInvalidValue;
    if (bytes > kDeviceMemory) return kOutOfMemory;
    std::lock_guard<std::mutex> hold(mutex);
    auto* block = new std::vector<char>(bytes, 0);
    *address = reinterpret_cast<uint64_t>(block->data());
    allocations[*address] = block;
    return kSuccess;
}
int release(uint64_t address) {
    std::lock_guard<std::mutex> hold(mutex);
    auto it = allocations.find(address);
    if (it == allocations.end()) return kInvalidValue;
    delete it->second;
    allocations.erase(it);
    return kSuccess;
}
int copy_to_device(uint64_t dst, const void* src, size_t bytes, void*) {
    std::lock_guard<std::mutex> hold(mutex);
    char* at = locate(dst, bytes);
    if (!at) return kIllegalAddress;
    std::memcpy(at, src, bytes);
    return kSuccess;
}
int copy_to_host(void* dst, uint64_t src, size_t bytes, void*) {
    std::lock_guard<std::mutex> hold(mutex);
    char* at = locate(src, bytes);
    if (!at) return kIllegalAddress;
    std::memcpy(dst, at, bytes);
    return kSuccess;
}
int stream_create(void** stream, unsigned) {
    std::lock_guard<std::mutex> hold(mutex);
    *stream = &stream_tokens[streams_made++ % 64];
    return kSuccess;
}
std::vector<void*> synchronized;  // every stream waited for, in order
int stream_synchronize(void* stream) {
    std::lock_guard<std::mutex> hold(mutex);
    synchronized.push_back(stream);
    return kSuccess;
}
int address_range(uint64_t* base, size_t* bytes, uint64_t address) {
    std::lock_guard<std::mutex> hold(mutex);
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin()) return kNotFound;
    --it;
    if (address - it->first >= it->second->size()) return kNotFound;
    *base = it->first;
    *bytes = it->second->size();
    return kSuccess;
}
int module_load(void** module, const void* image) {
    std::istringstream in(static_cast<const char*>(image));
    auto* m = new Module;
    std::string word;
    while (in >> word) {
        if (word != "entry") {
            delete m;
            return 218;  // CUDA_ERROR_INVALID_PTX / a code object it cannot read
        }
        auto* e = new Entry;
        in >> e->name >> e->params >> e->max_threads;
        m->entries.push_back(e);
    }
    *module = m;
    return kSuccess;
}
int module_unload(void* module) {
    auto* m = static_cast<Module*>(module);
    for (auto* e : m->entries) delete e;
    delete m;
    return kSuccess;
}
int module_function(void** function, void* module, const char* name) {
    for (auto* e : static_cast<Module*>(module)->entries)
        if (e->name == name) {
            *function = e;
            return kSuccess;
        }
    return kNotFound;
}
int function_attribute(int* value, int attribute, void* function) {
    if (attribute != 0) return kInvalidValue;
    *value = static_cast<Entry*>(function)->max_threads;
    return kSuccess;
}
int launch(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
           unsigned shared, void* stream, void** params, void** extra) {
    if (extra) return kInvalidValue;
    auto* e = static_cast<Entry*>(function);
    if (bx * by * bz > static_cast<unsigned>(e->max_threads)) return kInvalidValue;
    Launch l{e->name, {gx, gy, gz}, {bx, by, bz}, shared, stream, {}};
    for (int i = 0; i < e->params; ++i) {
        uint64_t bits = 0;
        std::memcpy(&bits, params[i], sizeof bits);
        l.params.push_back(bits);
    }
    std::lock_guard<std::mutex> hold(mutex);
    launches.push_back(std::move(l));
    return kSuccess;
}
// CUDA's image structures, as <cuda.h> lays them out (64-bit).
struct ArrayShape {
    size_t width, height, depth;
    int format;
    unsigned channels, flags;
};
struct Copy3D {
    size_t src_x, src_y, src_z, src_lod;
    int src_type;
    const void* src_host;
    uint64_t src_device;
    void* src_array;
    void* reserved0;
    size_t src_pitch, src_height;
    size_t dst_x, dst_y, dst_z, dst_lod;
    int dst_type;
    void* dst_host;
    uint64_t dst_device;
    void* dst_array;
    void* reserved1;
    size_t dst_pitch, dst_height;
    size_t width_bytes, height, depth;
};
struct ResourceDesc {
    int type;
    union {
        void* array;
        int reserved[32];
    } res;
    unsigned flags;
};
struct TextureDesc {
    int address[3];
    int filter;
    unsigned flags, max_anisotropy;
    int mipmap_filter;
    float bias, min_clamp, max_clamp, border[4];
    int reserved[12];
};
struct Image {
    ArrayShape shape;
    std::vector<float> texels;
};
struct Texture {
    Image* image;
    TextureDesc sampling;
};
std::map<void*, Image*> images;
std::map<uint64_t, Texture> textures;
uint64_t next_texture = 0x7e000001;

int array_create(void** array, const ArrayShape* shape) {
    if (shape->format != 0x20 || shape->channels != 1 || shape->flags != 0 || !shape->width) return kInvalidValue;
    auto* image = new Image{*shape, std::vector<float>(shape->width * std::max<size_t>(shape->height, 1) *
                                                           std::max<size_t>(shape->depth, 1))};
    std::lock_guard<std::mutex> hold(mutex);
    images[image] = image;
    *array = image;
    return kSuccess;
}
int array_destroy(void* array) {
    std::lock_guard<std::mutex> hold(mutex);
    auto it = images.find(array);
    if (it == images.end()) return kInvalidValue;
    delete it->second;
    images.erase(it);
    return kSuccess;
}
// Host to a whole array only: what Tack asks for.
int copy_3d(const Copy3D* c, void* stream) {
    std::lock_guard<std::mutex> hold(mutex);
    auto it = images.find(c->dst_array);
    if (c->src_type != 1 || c->dst_type != 3 || it == images.end() || !stream) return kInvalidValue;
    Image& image = *it->second;
    const ArrayShape& s = image.shape;
    if (c->src_x || c->src_y || c->src_z || c->dst_x || c->dst_y || c->dst_z || c->width_bytes != s.width * 4 ||
        c->height != s.height || c->depth != s.depth || c->src_pitch < c->width_bytes || c->src_height < c->height)
        return kInvalidValue;
    for (size_t z = 0; z < s.depth; ++z)
        for (size_t y = 0; y < s.height; ++y)
            std::memcpy(&image.texels[(z * s.height + y) * s.width],
                        static_cast<const char*>(c->src_host) + (z * c->src_height + y) * c->src_pitch, s.width * 4);
    return kSuccess;
}
int texture_create(uint64_t* texture, const ResourceDesc* resource, const TextureDesc* sampling, const void* view) {
    std::lock_guard<std::mutex> hold(mutex);
    if (view || resource->type != 0 || !images.count(resource->res.array)) return kInvalidValue;
    *texture = next_texture++;
    textures[*texture] = Texture{images[resource->res.array], *sampling};
    return kSuccess;
}
int texture_destroy(uint64_t texture) {
    std::lock_guard<std::mutex> hold(mutex);
    return textures.erase(texture) ? kSuccess : kInvalidValue;
}

int cuda_error_name(int code, const char** name) {
    switch (code) {
        case kOutOfMemory: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return kSuccess;
        case kNoDevice: *name = "CUDA_ERROR_NO_DEVICE"; return kSuccess;
        case kIllegalAddress: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return kSuccess;
        case kNotFound: *name = "CUDA_ERROR_NOT_FOUND"; return kSuccess;
        case 218: *name = "CUDA_ERROR_INVALID_PTX"; return kSuccess;
    }
    return kInvalidValue;
}
const char* hip_error_name(int code) {
    switch (code) {
        case kOutOfMemory: return "hipErrorOutOfMemory";
        case kNoDevice: return "hipErrorNoDevice";
        case kIllegalAddress: return "hipErrorIllegalAddress";
        case kNotFound: return "hipErrorNotFound";
    }
    return "hipErrorUnknown";
}

}  // namespace

#define TACK_FAKE(cuda, hip, fn, params, args)                      \
    extern "C" int cuda params { return fn args; }                  \
    extern "C" int hip params { return fn args; }

TACK_FAKE(cuInit, hipInit, init, (unsigned f), (f))
TACK_FAKE(cuDriverGetVersion, hipDriverGetVersion, driver_version, (int* v), (v))
TACK_FAKE(cuDeviceGetCount, hipGetDeviceCount, device_count, (int* n), (n))
TACK_FAKE(cuDeviceGet, hipDeviceGet, device_get, (int* d, int o), (d, o))
TACK_FAKE(cuDeviceGetName, hipDeviceGetName, device_name, (char* n, int l, int d), (n, l, d))
TACK_FAKE(cuDeviceGetAttribute, hipDeviceGetAttribute, device_attribute, (int* v, int a, int d), (v, a, d))
TACK_FAKE(cuDeviceTotalMem_v2, hipDeviceTotalMem, device_memory, (size_t* b, int d), (b, d))
TACK_FAKE(cuDevicePrimaryCtxRetain, hipDevicePrimaryCtxRetain, primary_context, (void** c, int d), (c, d))
TACK_FAKE(cuCtxSetCurrent, hipCtxSetCurrent, set_context, (void* c), (c))
TACK_FAKE(cuMemAlloc_v2, hipMalloc, allocate, (uint64_t* a, size_t b), (a, b))
TACK_FAKE(cuMemFree_v2, hipFree, release, (uint64_t a), (a))
TACK_FAKE(cuMemGetAddressRange_v2, hipMemGetAddressRange, address_range, (uint64_t* b, size_t* n, uint64_t a),
          (b, n, a))
TACK_FAKE(cuMemcpyHtoDAsync_v2, hipMemcpyHtoDAsync, copy_to_device, (uint64_t d, const void* s, size_t b, void* st),
          (d, s, b, st))
TACK_FAKE(cuMemcpyDtoHAsync_v2, hipMemcpyDtoHAsync, copy_to_host, (void* d, uint64_t s, size_t b, void* st),
          (d, s, b, st))
TACK_FAKE(cuStreamCreate, hipStreamCreateWithFlags, stream_create, (void** s, unsigned f), (s, f))
TACK_FAKE(cuStreamSynchronize, hipStreamSynchronize, stream_synchronize, (void* s), (s))
TACK_FAKE(cuModuleLoadData, hipModuleLoadData, module_load, (void** m, const void* i), (m, i))
TACK_FAKE(cuModuleUnload, hipModuleUnload, module_unload, (void* m), (m))
TACK_FAKE(cuModuleGetFunction, hipModuleGetFunction, module_function, (void** f, void* m, const char* n), (f, m, n))
TACK_FAKE(cuFuncGetAttribute, hipFuncGetAttribute, function_attribute, (int* v, int a, void* f), (v, a, f))
TACK_FAKE(cuLaunchKernel, hipModuleLaunchKernel, launch,
          (void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sh,
           void* st, void** p, void** e),
          (f, gx, gy, gz, bx, by, bz, sh, st, p, e))

extern "C" int cuArray3DCreate_v2(void** a, const ArrayShape* s) { return array_create(a, s); }
extern "C" int cuArrayDestroy(void* a) { return array_destroy(a); }
extern "C" int cuMemcpy3DAsync_v2(const Copy3D* c, void* s) { return copy_3d(c, s); }
extern "C" int cuTexObjectCreate(uint64_t* t, const ResourceDesc* r, const TextureDesc* d, const void* v) {
    return texture_create(t, r, d, v);
}
extern "C" int cuTexObjectDestroy(uint64_t t) { return texture_destroy(t); }

extern "C" int cuGetErrorName(int code, const char** name) { return cuda_error_name(code, name); }
extern "C" const char* hipGetErrorName(int code) { return hip_error_name(code); }

// What the tests read back.
extern "C" size_t tack_fake_launch_count() {
    std::lock_guard<std::mutex> hold(mutex);
    return launches.size();
}
// Launch `i`: its entry name; grid, block and parameters through the
// pointers (grid and block 3 each, params up to `max_params`).
extern "C" const char* tack_fake_launch(size_t i, unsigned* grid, unsigned* block, void** stream, uint64_t* params,
                                        size_t max_params, size_t* param_count) {
    std::lock_guard<std::mutex> hold(mutex);
    const Launch& l = launches.at(i);
    std::memcpy(grid, l.grid, sizeof l.grid);
    std::memcpy(block, l.block, sizeof l.block);
    *stream = l.stream;
    *param_count = l.params.size();
    for (size_t k = 0; k < l.params.size() && k < max_params; ++k) params[k] = l.params[k];
    return l.entry.c_str();
}
extern "C" void tack_fake_reset() {
    std::lock_guard<std::mutex> hold(mutex);
    launches.clear();
    synchronized.clear();
}
// The streams waited for since the last reset, newest last: `i` counts back
// from the newest (0 is the last); null past the first.
extern "C" void* tack_fake_synchronized(size_t i) {
    std::lock_guard<std::mutex> hold(mutex);
    return i < synchronized.size() ? synchronized[synchronized.size() - 1 - i] : nullptr;
}
// Texture object `handle`: 0, with its extents (3), address modes (3),
// filter mode, flags and texels (width * height * depth floats, x fastest,
// up to `max_texels`), or -1 when no such texture exists.
extern "C" int tack_fake_texture(uint64_t handle, size_t* extents, int* address_modes, int* filter, unsigned* flags,
                                 float* texels, size_t max_texels) {
    std::lock_guard<std::mutex> hold(mutex);
    auto it = textures.find(handle);
    if (it == textures.end()) return -1;
    const Texture& t = it->second;
    extents[0] = t.image->shape.width;
    extents[1] = t.image->shape.height;
    extents[2] = t.image->shape.depth;
    for (int i = 0; i < 3; ++i) address_modes[i] = t.sampling.address[i];
    *filter = t.sampling.filter;
    *flags = t.sampling.flags;
    for (size_t i = 0; i < t.image->texels.size() && i < max_texels; ++i) texels[i] = t.image->texels[i];
    return 0;
}
// Live texture objects and arrays.
extern "C" size_t tack_fake_textures() {
    std::lock_guard<std::mutex> hold(mutex);
    return textures.size() + images.size();
}
extern "C" size_t tack_fake_allocations() {
    std::lock_guard<std::mutex> hold(mutex);
    return allocations.size();
}

// A runtime compiler of the same shape as NVRTC and hipRTC, whose "code" is
// the module image above: one entry line per `__global__` function of the
// source, with its parameter count and 256 threads per block (the C-family
// kernels' launch bounds). A source containing "#error" fails with a log.
namespace {

struct FakeProgram {
    std::string source, image, log;
};

std::string image_of(const std::string& source) {
    std::string image;
    for (size_t at = source.find("__global__"); at != std::string::npos; at = source.find("__global__", at + 1)) {
        size_t open = source.find('(', source.find(" void ", at));
        size_t name_end = open;
        size_t name_start = source.rfind(' ', name_end) + 1;
        std::string name = source.substr(name_start, name_end - name_start);
        int depth = 0, params = 0;
        bool any = false;
        for (size_t i = open; i < source.size(); ++i) {
            char c = source[i];
            if (c == '(') ++depth;
            else if (c == ')' && --depth == 0) break;
            else if (c == ',' && depth == 1) ++params;
            else if (!std::isspace(static_cast<unsigned char>(c))) any = true;
        }
        image += "entry " + name + " " + std::to_string(any ? params + 1 : 0) + " 256\n";
    }
    return image;
}

int rtc_create(void** p, const char* source, const char*, int, const char* const*, const char* const*) {
    *p = new FakeProgram{source, "", ""};
    return 0;
}
int rtc_destroy(void** p) {
    delete static_cast<FakeProgram*>(*p);
    *p = nullptr;
    return 0;
}
int rtc_compile(void* p, int, const char* const*) {
    auto* f = static_cast<FakeProgram*>(p);
    if (f->source.find("#error") != std::string::npos) {
        f->log = "fake.cu(1): error: #error directive";
        return 6;
    }
    f->image = image_of(f->source);
    return 0;
}
int rtc_log_size(void* p, size_t* n) {
    *n = static_cast<FakeProgram*>(p)->log.size() + 1;
    return 0;
}
int rtc_log(void* p, char* out) {
    auto* f = static_cast<FakeProgram*>(p);
    std::memcpy(out, f->log.c_str(), f->log.size() + 1);
    return 0;
}
int rtc_code_size(void* p, size_t* n) {
    *n = static_cast<FakeProgram*>(p)->image.size() + 1;
    return 0;
}
int rtc_code(void* p, char* out) {
    auto* f = static_cast<FakeProgram*>(p);
    std::memcpy(out, f->image.c_str(), f->image.size() + 1);
    return 0;
}
const char* rtc_error(int) { return "FAKE_RTC_ERROR"; }
int rtc_version(int* major, int* minor) {
    *major = 1;
    *minor = 0;
    return 0;
}

}  // namespace

#define TACK_FAKE_RTC(nv, hip, fn, params, args)   \
    extern "C" int nv params { return fn args; }   \
    extern "C" int hip params { return fn args; }
TACK_FAKE_RTC(nvrtcCreateProgram, hiprtcCreateProgram, rtc_create,
              (void** p, const char* s, const char* n, int h, const char* const* hs, const char* const* hn),
              (p, s, n, h, hs, hn))
TACK_FAKE_RTC(nvrtcDestroyProgram, hiprtcDestroyProgram, rtc_destroy, (void** p), (p))
TACK_FAKE_RTC(nvrtcCompileProgram, hiprtcCompileProgram, rtc_compile, (void* p, int n, const char* const* o), (p, n, o))
TACK_FAKE_RTC(nvrtcGetProgramLogSize, hiprtcGetProgramLogSize, rtc_log_size, (void* p, size_t* n), (p, n))
TACK_FAKE_RTC(nvrtcGetProgramLog, hiprtcGetProgramLog, rtc_log, (void* p, char* o), (p, o))
TACK_FAKE_RTC(nvrtcGetCUBINSize, hiprtcGetCodeSize, rtc_code_size, (void* p, size_t* n), (p, n))
TACK_FAKE_RTC(nvrtcGetCUBIN, hiprtcGetCode, rtc_code, (void* p, char* o), (p, o))
TACK_FAKE_RTC(nvrtcVersion, hiprtcVersion, rtc_version, (int* a, int* b), (a, b))
extern "C" int nvrtcGetPTXSize(void* p, size_t* n) { return rtc_code_size(p, n); }
extern "C" int nvrtcGetPTX(void* p, char* o) { return rtc_code(p, o); }
extern "C" const char* nvrtcGetErrorString(int c) { return rtc_error(c); }
extern "C" const char* hiprtcGetErrorString(int c) { return rtc_error(c); }
