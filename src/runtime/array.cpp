#include "runtime/array.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "runtime/errors.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tack::runtime {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugePageFrom = size_t{4} << 20;

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "(";
    for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

// The elements of `shape` times `scalars_per_element` scalars of
// `scalar_bytes` each, refused when a count does not fit 64 bits (a wrapped
// count would allocate too little and let accesses run past it).
int64_t checked_elements(const std::vector<int64_t>& shape, int64_t scalars_per_element, int64_t scalar_bytes) {
    int64_t n = 1, bytes = 0;
    for (auto e : shape) {
        if (e < 0) throw std::invalid_argument("array extents must be nonnegative, not " + shape_text(shape));
        if (__builtin_mul_overflow(n, e, &n)) n = -1;
        if (n < 0) break;
    }
    if (n < 0 || __builtin_mul_overflow(n, scalars_per_element * scalar_bytes, &bytes))
        throw std::invalid_argument("an array of shape " + shape_text(shape) +
                                    " has more elements or bytes than a 64-bit count can hold");
    return n;
}

}  // namespace

std::shared_ptr<Storage> Storage::allocate(size_t bytes) {
    auto s = std::make_shared<Storage>();
    // Large arrays start at a huge page and ask the kernel for huge pages
    // (as NumPy does from 4 MiB): their first touch then faults once per
    // 2 MiB instead of once per 4 KiB, which made a kernel writing a fresh
    // 64 MiB array 2-3x slower than the same kernel on touched memory.
    const bool large = bytes >= kHugePageFrom;
    const size_t align = large ? kHugePage : 64;
    size_t rounded = ((bytes + align - 1) / align) * align;
    if (rounded == 0) rounded = 64;
    void* p = std::aligned_alloc(align, rounded);
    if (!p) throw OutOfMemory(bytes);
#ifdef MADV_HUGEPAGE
    if (large) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: where refused, 4 KiB pages as before
#endif
    s->data = static_cast<char*>(p);
    s->bytes = bytes;
    s->owner = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    return s;
}

const std::string& Storage::device_name() const {
    static const std::string cpu = "cpu";
    return device ? device->device() : cpu;
}

std::shared_ptr<Storage> Storage::wrap(char* data, size_t bytes, bool readonly, std::shared_ptr<void> owner) {
    auto s = std::make_shared<Storage>();
    s->data = data;
    s->bytes = bytes;
    s->readonly = readonly;
    s->owner = std::move(owner);
    return s;
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> s(shape.size());
    int64_t acc = 1;
    for (size_t d = shape.size(); d-- > 0;) {
        s[d] = acc;
        acc *= shape[d];
    }
    return s;
}

Array::Array(std::shared_ptr<Storage> storage, int64_t byte_offset, DType dtype, std::vector<int64_t> shape,
             std::vector<int64_t> strides, Element element)
    : storage_(std::move(storage)), offset_(byte_offset), dtype_(dtype), shape_(std::move(shape)),
      strides_(std::move(strides)), element_(std::move(element)) {
    // Extents of 1 place no constraint on their stride.
    contiguous_ = true;
    int64_t acc = element_.layout == Layout::Soa ? 1 : element_.components();
    for (size_t d = shape_.size(); d-- > 0;) {
        if (shape_[d] != 1 && strides_[d] != acc) contiguous_ = false;
        acc *= shape_[d];
    }
}

Array Array::empty(std::vector<int64_t> shape, DType dtype, std::vector<int> element_shape, Layout layout) {
    Element element{std::move(element_shape), layout, 1};
    int64_t components = element.components();
    int64_t n = checked_elements(shape, components, size_of(dtype));
    auto st = row_major_strides(shape);
    if (layout == Layout::Interleaved) {
        for (auto& s : st) s *= components;
    } else {
        element.component_stride = n;
    }
    return Array(Storage::allocate(static_cast<size_t>(n * components) * size_of(dtype)), 0, dtype, std::move(shape),
                 std::move(st), std::move(element));
}

Array Array::scalars() const {
    if (element_.shape.empty()) return *this;
    std::vector<int64_t> shape = shape_, strides = strides_;
    int64_t inner = element_.component_stride;
    std::vector<int64_t> element_strides(element_.shape.size());
    for (size_t d = element_.shape.size(); d-- > 0;) {
        element_strides[d] = inner;
        inner *= element_.shape[d];
    }
    for (size_t d = 0; d < element_.shape.size(); ++d) {
        shape.push_back(element_.shape[d]);
        strides.push_back(element_strides[d]);
    }
    return Array(storage_, offset_, dtype_, std::move(shape), std::move(strides));
}

Array Array::external(char* first, DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                      bool readonly, std::shared_ptr<void> owner) {
    checked_elements(shape, 1, size_of(dtype));
    if (strides.empty()) strides = row_major_strides(shape);
    if (strides.size() != shape.size())
        throw std::invalid_argument("an external array needs one stride per dimension: " +
                                    std::to_string(shape.size()) + " extents, " + std::to_string(strides.size()) +
                                    " strides");
    if (first == nullptr) {
        bool empty = false;
        for (auto e : shape) empty = empty || e == 0;
        if (!empty) throw std::invalid_argument("an external array with elements needs a non-null address");
    }
    // The element offsets reachable below and above the first element.
    int64_t lo = 0, hi = 0, n = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        n *= shape[d];
        if (shape[d] == 0) continue;
        int64_t reach;
        if (__builtin_mul_overflow(shape[d] - 1, strides[d], &reach) ||
            __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi) ||
            __builtin_mul_overflow(hi - lo + 1, size_of(dtype), &reach))
            throw std::invalid_argument("an external array of shape " + shape_text(shape) +
                                        " reaches more bytes than a 64-bit count can hold");
    }
    int64_t es = size_of(dtype);
    size_t bytes = n == 0 ? 0 : static_cast<size_t>((hi - lo + 1) * es);
    char* base = n == 0 ? first : first + lo * es;
    return Array(Storage::wrap(base, bytes, readonly, std::move(owner)), n == 0 ? 0 : -lo * es, dtype,
                 std::move(shape), std::move(strides));
}

Array Array::on_device(uint64_t first, DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                       bool readonly, std::shared_ptr<void> owner,
                       const std::function<std::shared_ptr<DeviceCopy>(uint64_t, size_t)>& adopt) {
    // The span's arithmetic is external()'s; its storage is only measured.
    Array span = external(reinterpret_cast<char*>(first), dtype, std::move(shape), std::move(strides), readonly, nullptr);
    const Storage& at = *span.storage_;
    auto storage = Storage::allocate(at.bytes);
    storage->readonly = readonly;
    if (owner) storage->owner = std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(
                   std::move(storage->owner), std::move(owner));
    storage->device = adopt(reinterpret_cast<uint64_t>(at.data), at.bytes);
    return Array(storage, span.offset_, dtype, span.shape_, span.strides_);
}

int64_t Array::size() const {
    int64_t n = 1;
    for (auto e : shape_) n *= e;
    return n;
}

bool may_overlap_itself(const std::vector<int64_t>& extents, const std::vector<int64_t>& strides) {
    std::vector<std::pair<int64_t, int64_t>> axes;  // (|stride|, extent) of the axes of more than one position
    for (size_t d = 0; d < extents.size() && d < strides.size(); ++d) {
        if (extents[d] == 0) return false;
        if (extents[d] > 1) axes.emplace_back(std::abs(strides[d]), extents[d]);
    }
    std::sort(axes.begin(), axes.end());
    int64_t reach = 0;  // the largest offset the smaller axes reach
    for (const auto& [stride, n] : axes) {
        if (stride <= reach) return true;
        reach += (n - 1) * stride;
    }
    return false;
}

bool Array::overlaps_itself() const {
    std::vector<int64_t> extents = shape_, strides = strides_;
    extents.push_back(element_.components());
    strides.push_back(element_.component_stride);
    return may_overlap_itself(extents, strides);
}

std::pair<uintptr_t, uintptr_t> Array::byte_span() const {
    if (!element_.shape.empty()) return scalars().byte_span();
    auto base = reinterpret_cast<uintptr_t>(address());
    if (size() == 0) return {base, base};
    int64_t lo = 0, hi = 0;
    for (size_t d = 0; d < shape_.size(); ++d) {
        int64_t reach = (shape_[d] - 1) * strides_[d];
        if (reach < 0) lo += reach; else hi += reach;
    }
    int64_t es = size_of(dtype_);
    return {base + lo * es, base + (hi + 1) * es};
}

Array Array::reshape(std::vector<int64_t> shape) const {
    if (!contiguous_) throw std::invalid_argument("reshape needs a contiguous array; this view is strided");
    int64_t n = 1, infer = -1;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == -1) {
            if (infer >= 0) throw std::invalid_argument("reshape: only one extent may be -1");
            infer = static_cast<int64_t>(d);
        } else if (shape[d] < 0) {
            throw std::invalid_argument("reshape: extents must be nonnegative");
        } else {
            n *= shape[d];
        }
    }
    std::vector<int64_t> known;
    for (auto e : shape)
        if (e != -1) known.push_back(e);
    checked_elements(known, components(), size_of(dtype_));
    if (infer >= 0) {
        if (n == 0 || size() % n != 0) throw std::invalid_argument("reshape: cannot infer the extent of -1");
        shape[infer] = size() / n;
        n *= shape[infer];
    }
    if (n != size())
        throw std::invalid_argument("cannot reshape " + describe() + " to " + std::to_string(n) + " elements");
    auto st = row_major_strides(shape);
    if (element_.layout == Layout::Interleaved)
        for (auto& s : st) s *= element_.components();
    return Array(storage_, offset_, dtype_, std::move(shape), std::move(st), element_);
}

Array Array::slice(const std::vector<Range>& ranges) const {
    std::vector<int64_t> shape = shape_, strides = strides_;
    int64_t off = offset_;
    for (size_t d = 0; d < shape_.size(); ++d) {
        const Range& r = ranges[d];
        shape[d] = r.extent;
        strides[d] = strides_[d] * r.step;
        // An empty range addresses nothing; its start may lie outside the axis.
        if (r.extent > 0) off += r.start * strides_[d] * size_of(dtype_);
    }
    return Array(storage_, off, dtype_, std::move(shape), std::move(strides), element_);
}

Array Array::select(int dim, int64_t index) const {
    std::vector<int64_t> shape, strides;
    for (int d = 0; d < ndim(); ++d) {
        if (d == dim) continue;
        shape.push_back(shape_[d]);
        strides.push_back(strides_[d]);
    }
    return Array(storage_, offset_ + index * strides_[dim] * size_of(dtype_), dtype_, std::move(shape),
                 std::move(strides), element_);
}

Array Array::new_axis(int dim) const {
    std::vector<int64_t> shape = shape_, strides = strides_;
    shape.insert(shape.begin() + dim, 1);
    strides.insert(strides.begin() + dim, 0);
    return Array(storage_, offset_, dtype_, std::move(shape), std::move(strides), element_);
}

Array Array::transpose(const std::vector<int>& axes) const {
    std::vector<int64_t> shape, strides;
    std::vector<bool> seen(shape_.size(), false);
    if (axes.size() != shape_.size()) throw std::invalid_argument("transpose: axes don't match the array");
    for (int d : axes) {
        if (d < 0 || d >= ndim() || seen[d]) throw std::invalid_argument("transpose: axes don't match the array");
        seen[d] = true;
        shape.push_back(shape_[d]);
        strides.push_back(strides_[d]);
    }
    return Array(storage_, offset_, dtype_, std::move(shape), std::move(strides), element_);
}

namespace {

template <typename T>
void fill_as(const Array& a, T v) {
    int64_t n = a.size();
    if (n == 0) return;
    char* base = a.data();
    if (a.contiguous()) {
        T* p = reinterpret_cast<T*>(base);
        for (int64_t i = 0; i < n; ++i) std::memcpy(p + i, &v, sizeof(T));
    } else {
        std::vector<int64_t> idx(a.ndim(), 0);
        for (int64_t i = 0; i < n; ++i) {
            int64_t off = 0;
            for (int d = 0; d < a.ndim(); ++d) off += idx[d] * a.strides()[d];
            std::memcpy(base + off * sizeof(T), &v, sizeof(T));
            for (int d = a.ndim() - 1; d >= 0; --d) {
                if (++idx[d] < a.shape()[d]) break;
                idx[d] = 0;
            }
        }
    }
    a.written_on_host();
}

template <typename V>
void fill_converted(const Array& a, V v) {
    switch (a.dtype()) {
#define X(E, name, ctype, size) case DType::E: fill_as<ctype>(a, static_cast<ctype>(v)); break;
        TACK_DTYPES(X)
#undef X
    }
}

}  // namespace

void Array::fill_int(int64_t value) { fill_converted(scalars(), value); }
void Array::fill_uint(uint64_t value) { fill_converted(scalars(), value); }
void Array::fill_float(double value) { fill_converted(scalars(), value); }

std::string Array::describe() const {
    std::string s = "array[";
    if (element_.shape.size() == 1) s += "vec" + std::to_string(element_.shape[0]) + " of ";
    if (element_.shape.size() == 2)
        s += "mat" + std::to_string(element_.shape[0]) + "x" + std::to_string(element_.shape[1]) + " of ";
    s += std::string(name_of(dtype_)) + ", (";
    for (size_t d = 0; d < shape_.size(); ++d) s += (d ? ", " : "") + std::to_string(shape_[d]);
    if (shape_.size() == 1) s += ",";
    s += ")";
    if (element_.layout == Layout::Soa) s += ", soa";
    return s + "]";
}

}  // namespace tack::runtime
