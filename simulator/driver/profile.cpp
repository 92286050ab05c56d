// Not in the real driver: the counters of the last completed launch (exec/profile.hpp), for
// benchmarks/sim_profile.py and any program that runs on the simulated GPU. Launches complete
// on their streams' worker threads, so the record is kept under a lock.
#include "profile.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cudajit::sim::driver {

namespace {

std::atomic<bool>& profiling_flag() {
  static std::atomic<bool> flag = [] {
    const char* value = std::getenv("CUDAJIT_SIM_PROFILE");
    return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
  }();
  return flag;
}

struct LastLaunch {
  std::mutex mutex;
  std::string kernel;
  Profile profile;
  unsigned long long launches = 0;
};

LastLaunch& last_launch() {
  static LastLaunch* last = new LastLaunch;  // never destroyed: streams may complete at exit
  return *last;
}

}  // namespace

bool profiling() { return profiling_flag().load(std::memory_order_relaxed); }

void record_launch_profile(const std::string& kernel, const Profile& profile) {
  LastLaunch& last = last_launch();
  std::lock_guard lock(last.mutex);
  last.kernel = kernel;
  last.profile = profile;
  ++last.launches;
}

}  // namespace cudajit::sim::driver

using namespace cudajit::sim;

// Turns the memory counters of later launches on (1) or off (0); returns the previous setting.
extern "C" __attribute__((visibility("default"))) int cudajitSimSetProfiling(int on) {
  return driver::profiling_flag().exchange(on != 0) ? 1 : 0;
}

// The counters' names, comma-separated, in the order cudajitSimLaunchProfile writes them.
extern "C" __attribute__((visibility("default"))) const char* cudajitSimProfileCounterNames() {
  static const std::string names = [] {
    std::string text;
    for (size_t i = 0; i < kProfileCounterCount; ++i)
      text += (i ? "," : "") + std::string(kProfileCounters[i].name);
    return text;
  }();
  return names.c_str();
}

// Writes up to `capacity` counters of the last completed launch into `values` and its
// kernel's name (at most `name_size` bytes with the NUL) into `kernel`; either may be null.
// Returns how many launches have completed so far (0: none, nothing written).
extern "C" __attribute__((visibility("default"))) unsigned long long cudajitSimLaunchProfile(
    unsigned long long* values, size_t capacity, char* kernel, size_t name_size) {
  driver::LastLaunch& last = driver::last_launch();
  std::lock_guard lock(last.mutex);
  if (last.launches == 0) return 0;
  for (size_t i = 0; values && i < capacity && i < kProfileCounterCount; ++i)
    values[i] = last.profile.*kProfileCounters[i].field;
  if (kernel && name_size > 0) {
    size_t n = std::min(name_size - 1, last.kernel.size());
    std::memcpy(kernel, last.kernel.data(), n);
    kernel[n] = '\0';
  }
  return last.launches;
}
