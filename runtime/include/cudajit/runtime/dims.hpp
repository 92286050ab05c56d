// The extents or byte strides of an imported array, held inline: importing a
// foreign array runs at every launch, and two heap vectors per argument were a
// measurable part of its cost.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <vector>

namespace cudajit::runtime {

class Dims {
 public:
  // NumPy 2's limit: a producer's description is read whole before it is judged
  // (imports accept fewer, kMaxImportDims).
  static constexpr int kCapacity = 64;

  Dims() = default;
  Dims(std::initializer_list<int64_t> values) { assign(values.begin(), values.end()); }
  Dims(const std::vector<int64_t>& values) { assign(values.begin(), values.end()); }
  Dims(const Dims& other) { assign(other.begin(), other.end()); }
  Dims& operator=(const Dims& other) {
    assign(other.begin(), other.end());
    return *this;
  }

  template <typename It>
  void assign(It first, It last) {
    auto n = static_cast<size_t>(std::distance(first, last));
    check_fits(n);
    std::copy(first, last, values_);
    size_ = static_cast<int>(n);
  }
  // Extents become zeros (the caller sets them).
  void resize(size_t n) {
    check_fits(n);
    std::fill(values_ + size_, values_ + std::max(size_, static_cast<int>(n)), 0);
    size_ = static_cast<int>(n);
  }
  void push_back(int64_t v) {
    check_fits(size_ + 1);
    values_[size_++] = v;
  }

  size_t size() const { return static_cast<size_t>(size_); }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return values_[i]; }
  int64_t operator[](size_t i) const { return values_[i]; }
  int64_t* data() { return values_; }
  const int64_t* data() const { return values_; }
  int64_t* begin() { return values_; }
  int64_t* end() { return values_ + size_; }
  const int64_t* begin() const { return values_; }
  const int64_t* end() const { return values_ + size_; }

  friend bool operator==(const Dims& a, const Dims& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static void check_fits(size_t n) {
    if (n > kCapacity) throw std::length_error("an array description of more than 64 dimensions");
  }
  int size_ = 0;
  int64_t values_[kCapacity];  // only the first size_ are ever read
};

}  // namespace cudajit::runtime
