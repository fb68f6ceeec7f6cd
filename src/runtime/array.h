// Typed, shaped, strided storage in host memory, with a copy on a device
// for arrays of a GPU-style backend (runtime/device_copy.h). Views share
// their storage.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device_copy.h"
#include "tack/dtype.h"

namespace tack::runtime {

struct Storage {
    char* data = nullptr;
    size_t bytes = 0;
    bool readonly = false;
    std::shared_ptr<void> owner;  // keeps external memory alive; frees owned memory
    std::shared_ptr<DeviceCopy> device;  // null for an array of the CPU

    // The backend the storage belongs to: "cpu" or its device copy's.
    const std::string& device_name() const;

    // Owned, 64-byte aligned, uninitialized.
    static std::shared_ptr<Storage> allocate(size_t bytes);
    // Memory someone else allocated: nothing is copied or freed here. `owner`
    // (possibly null, when the caller promises to keep the memory alive) is
    // released with the last array that views the storage.
    static std::shared_ptr<Storage> wrap(char* data, size_t bytes, bool readonly, std::shared_ptr<void> owner);
};

// How the components of vector and matrix elements are stored: one element
// after another (an array of structures), or each component in a block of
// its own (a structure of arrays).
enum class Layout : uint8_t { Interleaved, Soa };

// What one element of an array is: a number, or a vector or matrix whose
// components are scalars of the array's dtype.
struct Element {
    std::vector<int> shape;        // empty for a number, {n} for a vector, {rows, cols} for a matrix
    Layout layout = Layout::Interleaved;
    int64_t component_stride = 1;  // scalars from one component to the next (row-major in a matrix)

    int components() const {
        int n = 1;
        for (int e : shape) n *= e;
        return n;
    }
};

// Whether two of the positions that axes of these extents and strides (in
// one unit: scalars) reach may coincide, as two elements of a NumPy
// as_strided view can: false where the axes, taken by growing |stride|,
// each step past every position the smaller ones reach. Axes this test
// cannot clear count as overlapping.
bool may_overlap_itself(const std::vector<int64_t>& extents, const std::vector<int64_t>& strides);

class Array {
public:
    // Strides count scalars of `dtype`, whatever the element.
    Array(std::shared_ptr<Storage> storage, int64_t byte_offset, DType dtype, std::vector<int64_t> shape,
          std::vector<int64_t> strides, Element element = {});

    // A new owned row-major array with unspecified contents. Elements of a
    // structure of arrays keep component k of every element together, the
    // element count apart from component k + 1.
    static Array empty(std::vector<int64_t> shape, DType dtype, std::vector<int> element_shape = {},
                       Layout layout = Layout::Interleaved);
    // A view of external memory whose first element lies at `first`, at any
    // byte address: CPU array accesses promise only byte alignment. Strides
    // are in elements and may be negative; empty means row-major. The
    // storage covers exactly the bytes the elements can touch.
    static Array external(char* first, DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                          bool readonly, std::shared_ptr<void> owner);

    // A view of memory another library allocated on a device, whose first
    // element lies at device address `first` (shape and strides as for
    // external()): host storage of the same span, unfilled, beside the
    // device copy that `adopt(base, bytes)` makes of the span's memory,
    // which holds the data (a shared copy, runtime/device_copy.h).
    static Array on_device(uint64_t first, DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                           bool readonly, std::shared_ptr<void> owner,
                           const std::function<std::shared_ptr<DeviceCopy>(uint64_t base, size_t bytes)>& adopt);

    DType dtype() const { return dtype_; }  // of one scalar component
    const Element& element() const { return element_; }
    int components() const { return element_.components(); }
    int ndim() const { return static_cast<int>(shape_.size()); }
    const std::vector<int64_t>& shape() const { return shape_; }
    const std::vector<int64_t>& strides() const { return strides_; }  // in scalars
    int64_t size() const;  // elements
    bool contiguous() const { return contiguous_; }
    bool readonly() const { return storage_->readonly; }
    // The first element's host address, current: an array on a device is
    // copied back first (and then counts as changed on the host).
    char* data() const {
        if (storage_->device) storage_->device->for_host(storage_->data, storage_->bytes);
        return storage_->data + offset_;
    }
    // After host code wrote through data(): a copy shared with another
    // library takes the bytes now (runtime/device_copy.h).
    void written_on_host() const {
        if (storage_->device) storage_->device->host_written(storage_->data, storage_->bytes);
    }
    // The same address, as it is: for overlap and alignment checks.
    char* address() const { return storage_->data + offset_; }
    const std::shared_ptr<Storage>& storage() const { return storage_; }
    int64_t byte_offset() const { return offset_; }
    // The byte range [lo, hi) the array's elements can touch.
    std::pair<uintptr_t, uintptr_t> byte_span() const;
    // Whether two of its scalars share memory (may_overlap_itself over the
    // element grid and the element's components).
    bool overlaps_itself() const;

    // Every scalar as an array of numbers: the element grid followed by the
    // element's own dimensions (the array itself for scalar elements).
    Array scalars() const;

    // Views.
    Array reshape(std::vector<int64_t> shape) const;  // requires contiguity
    // One dimension of a slice: `extent` elements from index `start`, `step`
    // apart (a negative step walks backwards).
    struct Range {
        int64_t start, step, extent;
    };
    Array slice(const std::vector<Range>& ranges) const;  // one range per dimension
    Array select(int dim, int64_t index) const;           // drops one dimension
    Array new_axis(int dim) const;                        // an extent-1 dimension before `dim`
    Array transpose(const std::vector<int>& axes) const;  // dimension d of the view is axes[d]

    // Sets every element to `value` (converted to the dtype as a cast would).
    void fill_int(int64_t value);
    void fill_uint(uint64_t value);
    void fill_float(double value);

    std::string describe() const;  // e.g. "array[f32, (3, 4)]", "array[vec3 of f32, (8,), soa]"

private:
    std::shared_ptr<Storage> storage_;
    int64_t offset_;
    DType dtype_;
    std::vector<int64_t> shape_;
    std::vector<int64_t> strides_;
    Element element_;
    bool contiguous_;  // elements in row-major order, one element (interleaved) or one scalar (soa) apart
};

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape);

}  // namespace tack::runtime
