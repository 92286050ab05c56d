// Strides, layout and byte extent of imported arrays.
#include <string>

#include "cudajit/runtime/interop.hpp"

namespace cudajit::runtime {

namespace {

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result)) {
    throw InteropError(std::string(what) + " overflows int64 (" + std::to_string(a) + " * " +
                       std::to_string(b) + ")");
  }
  return result;
}

int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result)) {
    throw InteropError(std::string(what) + " overflows int64 (" + std::to_string(a) + " + " +
                       std::to_string(b) + ")");
  }
  return result;
}

bool has_zero_extent(const Dims& shape) {
  for (int64_t n : shape) {
    if (n == 0) return true;
  }
  return false;
}

}  // namespace

Dims c_contiguous_strides(const Dims& shape, int itemsize) {
  Dims strides;
  strides.resize(shape.size());
  int64_t step = itemsize;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    // A zero extent would make the outer strides 0; NumPy 1 skips it (any
    // strides are right for a zero-size array), and so do we.
    step = checked_mul(step, shape[i] > 0 ? shape[i] : 1, "the array's byte size");
  }
  return strides;
}

Layout detect_layout(const Dims& shape, const Dims& strides, int itemsize) {
  return strided_layout({shape.data(), shape.size()}, {strides.data(), strides.size()}, itemsize);
}

ByteExtent byte_extent(const Dims& shape, const Dims& strides, int itemsize) {
  if (has_zero_extent(shape)) return {};
  ByteExtent extent{0, itemsize};
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t reach = checked_mul(shape[i] - 1, strides[i], "the array's byte extent");
    if (reach < 0) {
      extent.lo = checked_add(extent.lo, reach, "the array's byte extent");
    } else {
      extent.hi = checked_add(extent.hi, reach, "the array's byte extent");
    }
  }
  // hi - lo must be representable too: size() is used for bounds checks.
  int64_t span;
  if (__builtin_sub_overflow(extent.hi, extent.lo, &span)) {
    throw InteropError("the array's byte extent overflows int64 (from " +
                       std::to_string(extent.lo) + " to " + std::to_string(extent.hi) + ")");
  }
  return extent;
}

void detail::throw_too_many_dims(size_t ndim, std::string_view source) {
  throw InteropError(std::string(source) + ": " + std::to_string(ndim) + " dimensions; at most " +
                     std::to_string(kMaxImportDims) + " are supported");
}

int64_t detail::check_shape(const Dims& shape, int itemsize, std::string_view source) {
  if (shape.size() > static_cast<size_t>(kMaxImportDims)) throw_too_many_dims(shape.size(), source);
  const auto prefix = [&] { return std::string(source); };  // messages only
  int64_t count = 1;
  int64_t bytes = itemsize;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      throw InteropError(prefix() + ": shape[" + std::to_string(i) + "] is " +
                         std::to_string(shape[i]) + "; extents must be non-negative");
    }
    if (shape[i] == 0) {
      count = 0;
      continue;
    }
    if (__builtin_mul_overflow(bytes, shape[i], &bytes)) {
      std::string text;
      for (size_t j = 0; j < shape.size(); ++j) {
        text += (j ? ", " : "") + std::to_string(shape[j]);
      }
      throw InteropError(prefix() + ": shape (" + text + ") with " + std::to_string(itemsize) +
                         "-byte elements is larger than 2**63 - 1 bytes");
    }
    count *= shape[i];  // <= bytes, cannot overflow
  }
  return count;
}

void detail::complete_import(ArrayImport& array, std::string_view source) {
  array.size = 1;
  for (int64_t n : array.shape) array.size *= n;  // check_shape bounded it
  try {
    array.extent = byte_extent(array.shape, array.strides, array.itemsize);
  } catch (const InteropError& e) {
    throw InteropError(std::string(source) + ": " + e.what());
  }
  array.layout = detect_layout(array.shape, array.strides, array.itemsize);
  array.aligned = true;
  if (array.size > 0) {
    // Kernels access complex numbers as two parts, so (as in NumPy) the part's
    // size is the alignment that matters.
    const Scalar unit = is_complex(array.dtype) ? complex_part(array.dtype) : array.dtype;
    const int64_t alignment = byte_size(unit);
    if (array.data % static_cast<uintptr_t>(alignment) != 0) array.aligned = false;
    for (size_t i = 0; i < array.shape.size(); ++i) {
      if (array.shape[i] > 1 && array.strides[i] % alignment != 0) array.aligned = false;
    }
  }
}

}  // namespace cudajit::runtime
