// Importing foreign arrays, without Python: the CUDA Array Interface (versions 0
// to 3), DLPack (0.x and 1.x capsules), and the synchronisation policy with the
// producer's stream. The Python binding reads a producer's dict or capsule into
// these structures; everything that can be decided from the values is decided
// here, so every rule has one implementation and one message.
//
// Errors, and the Python exception each becomes (catch the most derived first):
//   InteropNotImplemented  -> NotImplementedError  (a mask)
//   InteropTypeError       -> TypeError            (an unsupported dtype or device)
//   InteropError           -> ValueError           (a malformed or inconsistent value)
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cudajit/compiler/types.hpp"
#include "cudajit/runtime/dims.hpp"

// DLPack 1.0's versioned tensor, for the 0.x dlpack.h that Debian ships; a 1.x
// header declares the same structures itself. The layout is the ABI of DLPack 1.0.
#ifndef DLPACK_MAJOR_VERSION
extern "C" {
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
}
#endif

namespace cudajit::runtime {

// --- errors -------------------------------------------------------------------

class InteropError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class InteropTypeError : public InteropError {
 public:
  using InteropError::InteropError;
};

class InteropNotImplemented : public InteropError {
 public:
  using InteropError::InteropError;
};

// --- the imported array ------------------------------------------------------------

// Bytes an array may touch, relative to its data pointer: [lo, hi). Empty ({0, 0})
// for a zero-size array; lo < 0 when some stride is negative.
struct ByteExtent {
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t size() const { return hi - lo; }
  bool operator==(const ByteExtent&) const = default;
};

// A foreign array, validated: what a kernel argument or a DeviceNDArray view needs.
struct ArrayImport {
  Scalar dtype = Scalar::Float64;
  int itemsize = 8;
  Dims shape;
  Dims strides;        // in bytes, one per dimension, as given or C-contiguous
  uintptr_t data = 0;  // DLPack: data + byte_offset
  bool readonly = false;
  Layout layout = Layout::C;  // C also for 1-d contiguous, 0-d and zero-size arrays
  ByteExtent extent;
  int64_t size = 0;  // number of elements
  // The data pointer and every stride that is used (extent > 1) are multiples
  // of the element's alignment (the itemsize; for complex, the part's size),
  // as NumPy's ALIGNED flag; a misaligned array faults on the GPU.
  bool aligned = true;
  // CAI convention: 1 the legacy default stream, 2 the per-thread default
  // stream, else a CUstream. Never 0. Always nullopt for DLPack (the producer
  // already ordered its work before the stream passed to __dlpack__).
  std::optional<int64_t> stream;
  // DLPack only: where the producer says the data lives. CAI does not say;
  // ask the driver about the pointer.
  std::optional<DLDevice> dl_device;

  int ndim() const { return static_cast<int>(shape.size()); }
};

// Import accepts up to NumPy 1's limit; kernels take fewer dimensions.
inline constexpr int kMaxImportDims = 32;

// --- array geometry ----------------------------------------------------------------

// Byte strides of a C-contiguous array.
Dims c_contiguous_strides(const Dims& shape, int itemsize);
// NumPy's rule: dimensions of extent 1 constrain nothing; a zero-size array
// is C. C wins where both C and F hold (1-d contiguous, all extents 1).
Layout detect_layout(const Dims& shape, const Dims& strides, int itemsize);
// Throws InteropError if an offset overflows int64.
ByteExtent byte_extent(const Dims& shape, const Dims& strides, int itemsize);

namespace detail {
// Shared by the CAI and DLPack importers; messages start with `source`.
// Checks ndim <= kMaxImportDims, extents >= 0, and that the byte size (zero
// extents counted as 1, as NumPy does) fits int64; returns the element count.
int64_t check_shape(const Dims& shape, int itemsize, std::string_view source);
// "<source>: N dimensions; at most 32 are supported".
[[noreturn]] void throw_too_many_dims(size_t ndim, std::string_view source);
// With dtype, itemsize, shape (checked), strides (bytes, one per dimension) and
// data set: fills size, extent, layout and aligned.
void complete_import(ArrayImport& array, std::string_view source);
// parse_typestr, its messages starting with `context` (e.g. "__cuda_array_interface__ typestr").
Scalar parse_typestr_in(std::string_view typestr, std::string_view context);
}  // namespace detail

// --- CUDA Array Interface --------------------------------------------------------

// One entry of `descr`: (name, typestr) or (name, typestr, shape).
struct CaiDescrField {
  std::string name;
  std::optional<std::string> typestr;  // nullopt: not a str (a nested structure)
  bool has_shape = false;              // the entry had a third element (a sub-array)
};

// What a __cuda_array_interface__ dict says, read without judging it. The binding
// checks Python types (and raises through throw_cai_missing_key /
// throw_cai_bad_entry, so messages look alike); every rule about values is
// validate_cai's.
struct CaiDescription {
  int64_t version = 3;
  Dims shape;
  std::optional<Dims> strides;  // nullopt: absent or None
  std::string typestr;
  std::optional<std::vector<CaiDescrField>> descr;  // nullopt: absent or None
  uintptr_t data = 0;
  bool readonly = false;
  bool mask_present = false;      // `mask` present and not None
  std::optional<int64_t> stream;  // nullopt: absent or None
};

// Applies every rule of the CAI specs (versions 0 to 3). Throws InteropError,
// InteropTypeError or InteropNotImplemented with what was expected and given.
ArrayImport validate_cai(const CaiDescription& description);

// For the binding: a required key (shape, typestr, data, version) is absent.
[[noreturn]] void throw_cai_missing_key(std::string_view key);
// For the binding: `key` holds a value of the wrong Python type or shape,
// e.g. ("data", "a 2-tuple (int, bool)", "[1, 2, 3]").
[[noreturn]] void throw_cai_bad_entry(std::string_view key, std::string_view expected,
                                      std::string_view given);

// NumPy typestr ("<f4", "|b1", "=i8") -> scalar. Non-native byte order and
// unsupported kinds or sizes: InteropTypeError; malformed text: InteropError.
Scalar parse_typestr(std::string_view typestr);
// The native-order typestr of a scalar, as NumPy writes it: "<f4", "|b1", "|i1".
std::string scalar_typestr(Scalar scalar);

// --- DLPack --------------------------------------------------------------------------

inline constexpr uint64_t kDlpackFlagReadOnly = uint64_t{1} << 0;  // DLPACK_FLAG_BITMASK_READ_ONLY
inline constexpr uint64_t kDlpackFlagIsCopied = uint64_t{1} << 1;  // DLPACK_FLAG_BITMASK_IS_COPIED
inline constexpr uint8_t kDlpackCodeBool = 6;                      // kDLBool, absent from 0.x
inline constexpr uint32_t kDlpackMajorVersion = 1;                 // versioned tensors we can read
inline constexpr uint32_t kDlpackMinorVersion = 0;  // what we ask for: max_version=(1, 0)

// PyCapsule names: the producer's, and the name a consumer renames it to.
inline constexpr const char* kDltensorCapsule = "dltensor";
inline constexpr const char* kUsedDltensorCapsule = "used_dltensor";
inline constexpr const char* kDltensorVersionedCapsule = "dltensor_versioned";
inline constexpr const char* kUsedDltensorVersionedCapsule = "used_dltensor_versioned";

// Converts a DLTensor: dtype (lanes 1; int, uint, float, complex, bool), shape,
// strides in elements (NULL: C-contiguous) to bytes, byte_offset added to data.
// dl_device is set; the caller checks it (check_dlpack_device).
ArrayImport import_dltensor(const DLTensor& tensor, bool readonly);

DLDataType dlpack_dtype(Scalar scalar);

// Whether an array on `device` can be used by a launch on the cuda device
// `launch_ordinal` (launch_on_cuda) or on the cpu device. Accepted: on cuda,
// kDLCUDA (same ordinal unless peer_access), kDLCUDAManaged, kDLCUDAHost; on
// cpu, kDLCPU and kDLCUDAHost. Another device type: InteropTypeError (as the
// array API recommends); another ordinal: InteropError.
void check_dlpack_device(const DLDevice& device, bool launch_on_cuda, int launch_ordinal,
                         bool peer_access = false);

// The tensor a capsule holds must be on the device its producer's
// __dlpack_device__ reported (which the checks above used): else an error
// naming both.
void check_dlpack_device_matches(const DLDevice& reported, const DLDevice& actual);

// Owns a consumed capsule's managed tensor: calls its deleter exactly once, when
// destroyed or reset (a NULL deleter is allowed and skipped). Producers'
// deleters may call into Python (NumPy, PyTorch decref there): destroy an owner
// where the GIL may be taken, never in a driver callback.
class DlpackOwner {
 public:
  DlpackOwner() = default;
  explicit DlpackOwner(DLManagedTensor* tensor) noexcept : legacy_(tensor) {}
  explicit DlpackOwner(DLManagedTensorVersioned* tensor) noexcept : versioned_(tensor) {}
  DlpackOwner(DlpackOwner&& other) noexcept;
  DlpackOwner& operator=(DlpackOwner&& other) noexcept;
  DlpackOwner(const DlpackOwner&) = delete;
  DlpackOwner& operator=(const DlpackOwner&) = delete;
  ~DlpackOwner() { reset(); }

  explicit operator bool() const { return legacy_ != nullptr || versioned_ != nullptr; }
  bool versioned() const { return versioned_ != nullptr; }
  // Versioned: the producer's version and flags; legacy: {0, 0} and 0.
  DLPackVersion version() const;
  uint64_t flags() const;
  bool readonly() const { return (flags() & kDlpackFlagReadOnly) != 0; }

  // The tensor, once its version is checked: throws InteropError for a
  // versioned tensor whose major version is not 1 (its other fields may have
  // another layout then; the deleter is still safe to call).
  const DLTensor& tensor() const;
  // import_dltensor(tensor(), readonly()).
  ArrayImport import() const;

  // Calls the deleter now (once) and owns nothing afterwards.
  void reset() noexcept;

 private:
  DLManagedTensor* legacy_ = nullptr;
  DLManagedTensorVersioned* versioned_ = nullptr;
};

// --- synchronisation with the producer's stream ---------------------------------------
//
// Stream values follow the CAI (and DLPack) convention: 1 the legacy default
// stream, 2 the per-thread default stream, else a CUstream (or a cpu stream id).
// Launch stream handles are Stream::handle() values, where 0 is also the legacy
// default; both devices' external_stream() accept 1 and 2, so an array's stream
// value can be handed to external_stream() as it is.

enum class SyncMode {
  Stream,  // default: event waits both ways, the host never blocks
  Host,    // Numba's: synchronise the producer's stream on the host before the launch
  Off,     // the user orders the streams; an array's stream is ignored
};

enum class SyncAction {
  None,  // no stream, same stream as the launch, or SyncMode::Off
  // Before the launch: record an event on the producer's stream, the launch
  // stream waits on it. After the launch: record an event on the launch stream,
  // the producer's stream waits on it, so the producer's later work cannot run
  // before the kernel is done (the CAI v3 condition for consumers).
  EventWait,
  HostSync,  // synchronise the producer's stream before the launch
};

// "stream", "host", "off" (also "0", "false" for off); else InteropError.
SyncMode parse_sync_mode(std::string_view text);
std::string_view sync_mode_name(SyncMode mode);

// A launch stream handle in the CAI convention: 0 -> 1, others unchanged.
int64_t cai_stream_value(uintptr_t launch_stream);
// What to do for one imported array with stream `array_stream` (CAI convention)
// launched on `launch_stream` (a Stream::handle()), which is `launch_blocking` when it is
// a blocking stream (Stream::blocking()).
SyncAction sync_action(SyncMode mode, std::optional<int64_t> array_stream, uintptr_t launch_stream,
                       bool launch_blocking = false);

// The `stream` argument for __dlpack__(stream=...) given __dlpack_device__'s
// device type: for kDLCUDA, kDLCUDAManaged and kDLCUDAHost the launch stream in
// the array API's CUDA convention (1 legacy default, 2 per-thread default, else
// the handle; never 0), or -1 ("producer must not synchronise") when mode is
// Off; for every other device type nullopt (Python None: only None is allowed
// for devices without streams).
std::optional<int64_t> dlpack_stream_argument(int32_t device_type, uintptr_t launch_stream,
                                              SyncMode mode = SyncMode::Stream);

}  // namespace cudajit::runtime
