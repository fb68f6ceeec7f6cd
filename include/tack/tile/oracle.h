// Host tensors for checking kernels against an oracle: the tensor lies inside
// a larger allocation whose margin, on every side of every axis, holds a
// sentinel. A kernel that writes outside the view it was given changes the
// margin, which margin_intact() reports.
#pragma once

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tack/tile/interpreter.h"

namespace tack::tile {

template <class T>
class GuardedTensor {
 public:
  GuardedTensor(Shape shape, T fill, int64_t margin = 2, T sentinel = T(-12345))
      : shape_(shape), margin_(margin), sentinel_(sentinel) {
    padded_ = shape;
    for (int d = 0; d < shape.rank(); ++d) padded_[d] = shape[d] + 2 * margin;
    data_.assign(size_t(padded_.num_elements()), sentinel);
    for (int64_t i = 0; i < shape.num_elements(); ++i) data_[size_t(inner(i))] = fill;
  }

  // The strided view of the tensor inside its margin.
  HostTensor view() {
    HostTensor t{data_.data(), scalar_of<T>(), shape_, {}, 0};
    int64_t step = 1;
    for (int d = shape_.rank() - 1; d >= 0; --d) {
      t.strides[size_t(d)] = step;
      t.offset += margin_ * step;
      step *= padded_[d];
    }
    return t;
  }

  const Shape& shape() const { return shape_; }
  int64_t size() const { return shape_.num_elements(); }
  // Element `i` in row-major order of the tensor.
  T& operator[](int64_t i) { return data_[size_t(inner(i))]; }
  const T& operator[](int64_t i) const { return data_[size_t(inner(i))]; }
  std::vector<T> values() const {
    std::vector<T> out;
    for (int64_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
    return out;
  }

  // True if no element outside the tensor changed (compared bit for bit).
  bool margin_intact() const {
    std::vector<bool> inside(data_.size(), false);
    for (int64_t i = 0; i < size(); ++i) inside[size_t(inner(i))] = true;
    for (size_t i = 0; i < data_.size(); ++i)
      if (!inside[i] && std::memcmp(&data_[i], &sentinel_, sizeof(T)) != 0) return false;
    return true;
  }

 private:
  // The buffer position of row-major element `i`.
  int64_t inner(int64_t i) const {
    int64_t pos = 0, step = 1;
    for (int d = shape_.rank() - 1; d >= 0; --d) {
      pos += (i % shape_[d] + margin_) * step;
      i /= shape_[d];
      step *= padded_[d];
    }
    return pos;
  }

  Shape shape_, padded_;
  int64_t margin_;
  T sentinel_;
  std::vector<T> data_;
};

// A guarded f32 tensor of `shape` whose elements are drawn uniformly from
// [lo, hi) by a generator seeded with `seed` (the same values every run).
inline GuardedTensor<float> uniform_tensor(Shape shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  GuardedTensor<float> t(shape, 0.0f);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = dist(gen);
  return t;
}

// The first element where |got - want| > atol + rtol * |want|, as a sentence,
// or nullopt when every element is close. A NaN in `got` never matches, so
// an output left unwritten (initialized to NaN) is caught.
template <class T>
std::optional<std::string> mismatch(const std::vector<T>& got, const std::vector<double>& want, double atol, double rtol) {
  if (got.size() != want.size())
    return "got " + std::to_string(got.size()) + " elements, want " + std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double g = double(got[i]);
    if (!(std::fabs(g - want[i]) <= atol + rtol * std::fabs(want[i])))
      return "element " + std::to_string(i) + " is " + std::to_string(g) + ", want " + std::to_string(want[i]);
  }
  return std::nullopt;
}

}  // namespace tack::tile
