// Functions' addresses: each decoded Program takes a serial, and a function's address is its
// program's serial and its index in the function window (exec/memory.hpp). On hardware a
// function pointer is a code address of the context, so one module's pointer may be called
// from another module's kernel while both are loaded; the registry of live programs does that.
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "program.hpp"

namespace cudajit::sim {

namespace {

constexpr uint32_t kSerialBits = 24, kIndexShift = 4, kSerialShift = kIndexShift + 20;
static_assert(kMaxFunctions == 1u << (kSerialShift - kIndexShift));

struct Registry {
  std::shared_mutex mutex;
  std::unordered_map<uint32_t, const Program*> live;
  std::atomic<uint32_t> next{1};
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: programs may outlive static objects
  return *r;
}

}  // namespace

uint64_t function_address(uint32_t program_serial, uint32_t index) {
  return kFunctionWindow | uint64_t(program_serial) << kSerialShift |
         uint64_t(index) << kIndexShift;
}

Program::Program() {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  // Serial 0 is never used, so that no function's address is the window's base; serials wrap
  // after 2^24 loads, skipping those still live.
  do {
    serial = r.next.fetch_add(1) & ((1u << kSerialBits) - 1);
  } while (serial == 0 || r.live.count(serial));
  r.live[serial] = this;
}

Program::~Program() {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  r.live.erase(serial);
}

const Function* find_function_at(const Program& current, uint64_t address) {
  if ((address & kWindowMask) != kFunctionWindow || (address & ((1u << kIndexShift) - 1)) != 0)
    return nullptr;
  const uint32_t serial = uint32_t(address >> kSerialShift) & ((1u << kSerialBits) - 1);
  const uint32_t index = uint32_t(address >> kIndexShift) & (kMaxFunctions - 1);
  const Program* program = &current;
  std::shared_lock<std::shared_mutex> lock;
  if (serial != current.serial) {
    Registry& r = registry();
    lock = std::shared_lock(r.mutex);
    auto it = r.live.find(serial);
    if (it == r.live.end()) return nullptr;
    program = it->second;
  }
  return index < program->functions.size() ? program->functions[index].get() : nullptr;
}

}  // namespace cudajit::sim
