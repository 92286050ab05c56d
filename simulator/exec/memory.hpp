// The simulated GPU's address spaces. Global memory is host memory that the
// stand-in driver made accessible (allocations, registered and mapped host
// memory, module variables); every access is checked against those ranges.
// Generic addresses of shared and local memory, and functions' addresses, live in windows
// no host pointer can take (the top 16 bits of a user-space x86-64/arm64 pointer are zero).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <string>

namespace cudajit::sim {

constexpr uint64_t kWindowMask = 0xFFFF000000000000ull;
constexpr uint64_t kSharedWindow = 0xFFFE000000000000ull;
constexpr uint64_t kLocalWindow = 0xFFFD000000000000ull;
// Functions' addresses (mov.u64 %rd, f; `.global .u64 tbl[2] = {f, g};`): distinct values
// that no access can read or write, which indirect calls take (exec/functions.cpp).
constexpr uint64_t kFunctionWindow = 0xFFFC000000000000ull;

// What stopped a launch, as the driver reports it.
enum class Fault {
  IllegalAddress,      // CUDA_ERROR_ILLEGAL_ADDRESS
  MisalignedAddress,   // CUDA_ERROR_MISALIGNED_ADDRESS
  IllegalInstruction,  // CUDA_ERROR_ILLEGAL_INSTRUCTION
  Trap,                // CUDA_ERROR_LAUNCH_FAILED (trap)
  HardwareStack,       // CUDA_ERROR_HARDWARE_STACK_ERROR
  BarrierDeadlock,     // a barrier not every thread reaches (hardware would hang)
  InvalidParameter,    // kernelParams that do not match the entry
};

class ExecutionFault : public std::runtime_error {
 public:
  ExecutionFault(Fault fault, const std::string& message)
      : std::runtime_error(message), fault_(fault) {}
  Fault fault() const { return fault_; }

 private:
  Fault fault_;
};

struct Range {
  uint64_t begin = 0, end = 0;
  bool contains(uint64_t address, uint64_t size) const {
    return address >= begin && address <= end && size <= end - address;
  }
};

// The ranges a kernel may touch in global space. Thread-safe; lookups take a
// shared lock (warps keep the last range they hit, so most accesses take none).
class GlobalMemory {
 public:
  // `track_writes` (initcheck, device allocations): the range starts unwritten, and which of
  // its bytes have been written since is kept.
  void add(uint64_t begin, uint64_t size, std::string what, bool track_writes = false);
  void remove(uint64_t begin);
  // The live range holding [address, address + size), or an empty range.
  Range find(uint64_t address, uint64_t size) const;
  // A description of what lies near an address that no range holds (for diagnostics).
  std::string describe_miss(uint64_t address) const;

  // initcheck: bytes written (by a copy, a memset or a kernel). Does nothing where no range
  // tracks writes.
  void mark_written(uint64_t address, uint64_t size);
  struct Unwritten {
    uint64_t begin, size;
    std::string what;
  };
  // initcheck: a read of [address, address + size) that takes a byte nothing wrote, the first
  // such read of its range (each range is reported once); else nothing.
  std::optional<Unwritten> unwritten_read(uint64_t address, uint64_t size);

 private:
  struct WriteShadow {
    std::unique_ptr<std::atomic<uint64_t>[]> bits;  // a bit per byte: written since allocated
    std::atomic<bool> reported{false};
  };
  mutable std::shared_mutex mutex_;
  struct Entry {
    uint64_t end;
    std::string what;
    std::unique_ptr<WriteShadow> written;  // null: not tracked (counts as written)
  };
  std::map<uint64_t, Entry> ranges_;
  std::atomic<size_t> tracked_{0};  // ranges with a WriteShadow: none, no lookup
};

}  // namespace cudajit::sim
