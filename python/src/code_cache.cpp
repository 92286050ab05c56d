#include "code_cache.hpp"

namespace cudajit::python {

namespace {

// Kernels a program keeps compiled beyond the dispatchers that made them.
constexpr std::size_t kSharedCapacity = 256;

}  // namespace

std::optional<runtime::KernelCode> CodeCache::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto found = index_.find(key);
  if (found == index_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  entries_.splice(entries_.begin(), entries_, found->second);
  return found->second->second;
}

void CodeCache::insert(const std::string& key, const runtime::KernelCode& code) {
  std::lock_guard lock(mutex_);
  if (auto found = index_.find(key); found != index_.end()) {
    entries_.splice(entries_.begin(), entries_, found->second);
    return;
  }
  entries_.emplace_front(key, code);
  index_[key] = entries_.begin();
  evict_beyond_capacity();
}

void CodeCache::set_capacity(std::size_t capacity) {
  std::lock_guard lock(mutex_);
  capacity_ = capacity;
  evict_beyond_capacity();
}

void CodeCache::evict_beyond_capacity() {
  while (entries_.size() > capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
}

CodeCache::Info CodeCache::info() const {
  std::lock_guard lock(mutex_);
  return {hits_, misses_, entries_.size(), capacity_};
}

void CodeCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
  index_.clear();
  hits_ = misses_ = 0;
}

CodeCache& CodeCache::shared() {
  static CodeCache cache(kSharedCapacity);
  return cache;
}

}  // namespace cudajit::python
