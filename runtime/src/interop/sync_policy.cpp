// Ordering a launch after the producer's work on an imported array (CAI v3
// "Synchronization"), and the stream a DLPack producer is asked to order for.
#include <string>

#include "cudajit/runtime/interop.hpp"

namespace cudajit::runtime {

namespace {

constexpr int64_t kLegacyDefaultStream = 1;  // 2, the per-thread default, is the same in both

}  // namespace

SyncMode parse_sync_mode(std::string_view text) {
  if (text == "stream") return SyncMode::Stream;
  if (text == "host") return SyncMode::Host;
  if (text == "off" || text == "0" || text == "false") return SyncMode::Off;
  throw InteropError("CUDA array interface sync mode '" + std::string(text) +
                     "' is not known; expected 'stream', 'host' or 'off'");
}

std::string_view sync_mode_name(SyncMode mode) {
  switch (mode) {
    case SyncMode::Stream:
      return "stream";
    case SyncMode::Host:
      return "host";
    case SyncMode::Off:
      return "off";
  }
  return "?";
}

int64_t cai_stream_value(uintptr_t launch_stream) {
  // CUstream 0 is the legacy default stream, which the CAI spells 1.
  return launch_stream == 0 ? kLegacyDefaultStream : static_cast<int64_t>(launch_stream);
}

SyncAction sync_action(SyncMode mode, std::optional<int64_t> array_stream, uintptr_t launch_stream,
                       bool launch_blocking) {
  if (mode == SyncMode::Off || !array_stream) return SyncAction::None;
  // Same queue: stream order already puts the kernel after the producer's
  // work and the producer's later work after the kernel. For 2 this holds
  // when producer and launch share a host thread, the only case the value can
  // name.
  if (*array_stream == cai_stream_value(launch_stream)) return SyncAction::None;
  // The legacy default stream and a blocking stream are ordered both ways by CUDA itself
  // (CuPy's arrays on its default stream say 1): no event is needed. Host mode still waits
  // on the host, as Numba does.
  if (mode == SyncMode::Stream && *array_stream == kLegacyDefaultStream && launch_blocking)
    return SyncAction::None;
  return mode == SyncMode::Host ? SyncAction::HostSync : SyncAction::EventWait;
}

std::optional<int64_t> dlpack_stream_argument(int32_t device_type, uintptr_t launch_stream,
                                              SyncMode mode) {
  if (device_type != kDLCUDA && device_type != kDLCUDAManaged && device_type != kDLCUDAHost) {
    return std::nullopt;
  }
  if (mode == SyncMode::Off) return -1;
  return cai_stream_value(launch_stream);
}

}  // namespace cudajit::runtime
