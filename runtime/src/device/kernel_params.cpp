#include "cudajit/runtime/device.hpp"

#include <stdexcept>

#include "cudajit/runtime/host_launch.hpp"

namespace cudajit::runtime {

// Slots are value-initialised (zeroed), so an unset parameter is 0, never garbage.
KernelParams::KernelParams(size_t count) : slots_(count) { rebuild_pointers(); }

// A moved vector keeps its buffer, so the moved pointers still address the moved slots.
KernelParams::KernelParams(KernelParams&& other) noexcept
    : slots_(std::move(other.slots_)),
      pointers_(std::move(other.pointers_)),
      large_arrays_(other.large_arrays_) {
  other.slots_.clear();
  other.pointers_.clear();
}

KernelParams& KernelParams::operator=(KernelParams&& other) noexcept {
  if (this != &other) {
    slots_ = std::move(other.slots_);
    pointers_ = std::move(other.pointers_);
    large_arrays_ = other.large_arrays_;
    other.slots_.clear();
    other.pointers_.clear();
  }
  return *this;
}

// The pointers of a copy must address its own slots, never the source's.
KernelParams::KernelParams(const KernelParams& other)
    : slots_(other.slots_), large_arrays_(other.large_arrays_) {
  rebuild_pointers();
}

// One pointer per slot and a NULL after the last: the simulated GPU checks the count by it
// (the real driver reads only as many as the kernel declares).
void KernelParams::rebuild_pointers() {
  pointers_.assign(slots_.size() + 1, nullptr);
  for (size_t i = 0; i < slots_.size(); ++i) pointers_[i] = slots_[i].bytes.data();
}

void KernelParams::note_array(size_t index, uint64_t bytes) {
  if (index >= 64) return;
  uint64_t threshold;
  try {
    threshold = host_stream_bytes();
  } catch (const std::invalid_argument&) {
    return;  // a bad CUDAJIT_CPU_STREAM_BYTES fails the cpu device's launches, no other's
  }
  if (bytes >= threshold) large_arrays_ |= uint64_t(1) << index;
}

}  // namespace cudajit::runtime
