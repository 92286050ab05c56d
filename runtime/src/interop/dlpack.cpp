// DLPack tensors (dlpack.h; 0.x DLManagedTensor and 1.x DLManagedTensorVersioned):
// conversion to ArrayImport, device checks, and the owner that calls the deleter.
#include <string>
#include <utility>

#include "cudajit/runtime/interop.hpp"

namespace cudajit::runtime {

namespace {

constexpr std::string_view kSource = "DLPack";

InteropError dlpack_error(const std::string& text) {
  return InteropError(std::string(kSource) + ": " + text);
}

std::string dtype_text(const DLDataType& t) {
  return "(code " + std::to_string(t.code) + ", bits " + std::to_string(t.bits) + ", lanes " +
         std::to_string(t.lanes) + ")";
}

std::string_view device_type_name(int32_t type) {
  switch (type) {
    case kDLCPU:
      return "kDLCPU";
    case kDLCUDA:
      return "kDLCUDA";
    case kDLCUDAHost:
      return "kDLCUDAHost";
    case kDLCUDAManaged:
      return "kDLCUDAManaged";
    case kDLROCM:
      return "kDLROCM";
    case kDLROCMHost:
      return "kDLROCMHost";
    case kDLOpenCL:
      return "kDLOpenCL";
    case kDLVulkan:
      return "kDLVulkan";
    case kDLMetal:
      return "kDLMetal";
    default:
      return "unknown";
  }
}

std::string device_text(const DLDevice& device) {
  return std::string(device_type_name(device.device_type)) + " (" +
         std::to_string(static_cast<int32_t>(device.device_type)) + "), device " +
         std::to_string(device.device_id);
}

Scalar scalar_of(const DLDataType& t) {
  constexpr std::string_view kSupported =
      "; supported: int and uint of 8, 16, 32, 64 bits, float of 16, 32 and 64, bfloat of 16, "
      "complex of 64 and 128, bool of 8, all with lanes 1";
  if (t.lanes != 1) {
    throw InteropTypeError(std::string(kSource) + ": dtype " + dtype_text(t) +
                           " is a vector type; only lanes 1 is supported");
  }
  const int bits = t.bits;
  switch (t.code) {
    case kDLInt:
    case kDLUInt:
      if (bits == 8 || bits == 16 || bits == 32 || bits == 64) {
        return make_int(bits, t.code == kDLInt);
      }
      break;
    case kDLFloat:
      if (bits == 16 || bits == 32 || bits == 64) return make_float(bits);
      break;
    case kDLBfloat:
      if (bits == 16) return Scalar::BFloat16;
      break;
    case kDLComplex:
      if (bits == 64) return Scalar::Complex64;
      if (bits == 128) return Scalar::Complex128;
      break;
    case kDlpackCodeBool:
      if (bits == 8) return Scalar::Bool;
      break;
  }
  throw InteropTypeError(std::string(kSource) + ": dtype " + dtype_text(t) + " is not supported" +
                         std::string(kSupported));
}

}  // namespace

ArrayImport import_dltensor(const DLTensor& tensor, bool readonly) {
  ArrayImport array;
  array.dtype = scalar_of(tensor.dtype);
  array.itemsize = byte_size(array.dtype);
  if (tensor.ndim < 0) {
    throw dlpack_error("ndim is " + std::to_string(tensor.ndim) + "; expected 0 or more");
  }
  if (tensor.ndim > kMaxImportDims) {  // before reading ndim entries of shape
    detail::throw_too_many_dims(static_cast<size_t>(tensor.ndim), kSource);
  }
  if (tensor.ndim > 0 && tensor.shape == nullptr) {
    throw dlpack_error("shape is NULL for a " + std::to_string(tensor.ndim) + "-d tensor");
  }
  array.shape.assign(tensor.shape, tensor.shape + tensor.ndim);
  detail::check_shape(array.shape, array.itemsize, kSource);
  if (tensor.strides == nullptr) {
    // NULL strides: compact row-major (DLPack < 1.2 and the array API allow it).
    array.strides = c_contiguous_strides(array.shape, array.itemsize);
  } else {
    array.strides.resize(array.shape.size());
    for (size_t i = 0; i < array.shape.size(); ++i) {
      if (__builtin_mul_overflow(tensor.strides[i], int64_t{array.itemsize}, &array.strides[i])) {
        throw dlpack_error("strides[" + std::to_string(i) +
                           "] = " + std::to_string(tensor.strides[i]) +
                           " elements overflows int64 in bytes");
      }
    }
  }
  const auto base = reinterpret_cast<uintptr_t>(tensor.data);
  if (tensor.byte_offset > UINTPTR_MAX - base) {
    throw dlpack_error("data + byte_offset overflows a pointer (byte_offset " +
                       std::to_string(tensor.byte_offset) + ")");
  }
  array.data = base + static_cast<uintptr_t>(tensor.byte_offset);
  array.readonly = readonly;
  array.dl_device = tensor.device;
  detail::complete_import(array, kSource);
  if (base == 0 && array.size > 0) {
    throw dlpack_error("data is NULL for a tensor of " + std::to_string(array.size) +
                       " elements; only zero-size tensors may have a NULL data pointer");
  }
  return array;
}

DLDataType dlpack_dtype(Scalar scalar) {
  uint8_t code = kDLFloat;
  if (scalar == Scalar::Bool) {
    code = kDlpackCodeBool;
  } else if (is_integer(scalar)) {
    code = is_signed(scalar) ? kDLInt : kDLUInt;
  } else if (is_complex(scalar)) {
    code = kDLComplex;
  } else if (scalar == Scalar::BFloat16) {
    code = kDLBfloat;
  }
  return DLDataType{code, static_cast<uint8_t>(byte_size(scalar) * 8), 1};
}

void check_dlpack_device(const DLDevice& device, bool launch_on_cuda, int launch_ordinal,
                         bool peer_access) {
  const int32_t type = device.device_type;
  if (launch_on_cuda) {
    if (type == kDLCUDAManaged || type == kDLCUDAHost) return;
    if (type == kDLCUDA) {
      if (device.device_id == launch_ordinal || peer_access) return;
      throw dlpack_error("the tensor is on cuda device " + std::to_string(device.device_id) +
                         " and the launch on cuda device " + std::to_string(launch_ordinal) +
                         "; copy it there or enable peer access");
    }
    throw InteropTypeError(std::string(kSource) + ": the tensor is on " + device_text(device) +
                           "; a launch on the cuda device takes kDLCUDA, kDLCUDAManaged or "
                           "kDLCUDAHost memory");
  }
  if (type == kDLCPU || type == kDLCUDAHost) return;
  throw InteropTypeError(std::string(kSource) + ": the tensor is on " + device_text(device) +
                         "; a launch on the cpu device takes kDLCPU or kDLCUDAHost memory");
}

void check_dlpack_device_matches(const DLDevice& reported, const DLDevice& actual) {
  if (reported.device_type == actual.device_type && reported.device_id == actual.device_id) return;
  throw dlpack_error("the tensor is on " + device_text(actual) + ", but __dlpack_device__() said " +
                     device_text(reported));
}

// --- DlpackOwner -------------------------------------------------------------------

DlpackOwner::DlpackOwner(DlpackOwner&& other) noexcept
    : legacy_(std::exchange(other.legacy_, nullptr)),
      versioned_(std::exchange(other.versioned_, nullptr)) {}

DlpackOwner& DlpackOwner::operator=(DlpackOwner&& other) noexcept {
  if (this != &other) {
    reset();
    legacy_ = std::exchange(other.legacy_, nullptr);
    versioned_ = std::exchange(other.versioned_, nullptr);
  }
  return *this;
}

void DlpackOwner::reset() noexcept {
  // Cleared before the call, so a deleter that reaches this owner again finds nothing.
  if (DLManagedTensor* t = std::exchange(legacy_, nullptr); t && t->deleter) t->deleter(t);
  if (DLManagedTensorVersioned* t = std::exchange(versioned_, nullptr); t && t->deleter) {
    t->deleter(t);
  }
}

DLPackVersion DlpackOwner::version() const {
  return versioned_ ? versioned_->version : DLPackVersion{0, 0};
}

uint64_t DlpackOwner::flags() const { return versioned_ ? versioned_->flags : 0; }

const DLTensor& DlpackOwner::tensor() const {
  if (versioned_) {
    if (versioned_->version.major != kDlpackMajorVersion) {
      throw dlpack_error("the tensor has DLPack version " +
                         std::to_string(versioned_->version.major) + "." +
                         std::to_string(versioned_->version.minor) + "; expected major version " +
                         std::to_string(kDlpackMajorVersion));
    }
    return versioned_->dl_tensor;
  }
  if (legacy_) return legacy_->dl_tensor;
  throw dlpack_error("no tensor: the owner is empty");
}

ArrayImport DlpackOwner::import() const {
  const DLTensor& t = tensor();  // checks the version before the flags are trusted
  return import_dltensor(t, readonly());
}

}  // namespace cudajit::runtime
