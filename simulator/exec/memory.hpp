// The simulated GPU's address spaces. Global memory is host memory that the
// stand-in driver made accessible (allocations, registered and mapped host
// memory, module variables); every access is checked against those ranges.
// Generic addresses of shared and local memory live in windows no host pointer
// can take (the top 16 bits of a user-space x86-64/arm64 pointer are zero).
#pragma once

#include <cstdint>
#include <map>
#include <shared_mutex>
#include <stdexcept>
#include <string>

namespace cudajit::sim {

constexpr uint64_t kWindowMask = 0xFFFF000000000000ull;
constexpr uint64_t kSharedWindow = 0xFFFE000000000000ull;
constexpr uint64_t kLocalWindow = 0xFFFD000000000000ull;

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
  void add(uint64_t begin, uint64_t size, std::string what);
  void remove(uint64_t begin);
  // The live range holding [address, address + size), or an empty range.
  Range find(uint64_t address, uint64_t size) const;
  // A description of what lies near an address that no range holds (for diagnostics).
  std::string describe_miss(uint64_t address) const;

 private:
  mutable std::shared_mutex mutex_;
  struct Entry {
    uint64_t end;
    std::string what;
  };
  std::map<uint64_t, Entry> ranges_;
};

}  // namespace cudajit::sim
