// Compiled kernels shared between dispatchers with the same kernel IR: a
// kernel defined inside a function gets a new Dispatcher at every call, and
// its identical code is compiled once, not at every call. Keyed by the kernel
// IR text (which holds everything a compile reads from Python: the source
// locations, the frozen globals and closure values, the device functions),
// the argument types, the options and the target. Process-wide, bounded,
// least recently used out first; it holds code, not loaded modules, so no
// driver resource outlives the devices.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "cudajit/runtime/device.hpp"

namespace cudajit::python {

class CodeCache {
 public:
  explicit CodeCache(std::size_t capacity) : capacity_(capacity) {}

  std::optional<runtime::KernelCode> find(const std::string& key);
  void insert(const std::string& key, const runtime::KernelCode& code);

  struct Info {
    std::size_t hits = 0, misses = 0, size = 0, capacity = 0;
  };
  Info info() const;
  void clear();
  // Keeps at most `capacity` kernels (0: none), dropping the oldest now.
  void set_capacity(std::size_t capacity);

  // The one the dispatchers share.
  static CodeCache& shared();

 private:
  using Entries = std::list<std::pair<std::string, runtime::KernelCode>>;  // most recent first

  void evict_beyond_capacity();  // under mutex_

  mutable std::mutex mutex_;
  std::size_t capacity_;
  Entries entries_;
  std::unordered_map<std::string, Entries::iterator> index_;
  std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace cudajit::python
