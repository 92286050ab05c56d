#include "memory.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace cudajit::sim {

void GlobalMemory::add(uint64_t begin, uint64_t size, std::string what, bool track_writes) {
  std::unique_ptr<WriteShadow> written;
  if (track_writes) {
    written = std::make_unique<WriteShadow>();
    written->bits = std::make_unique<std::atomic<uint64_t>[]>((size + 63) / 64);  // zeroed
  }
  std::unique_lock lock(mutex_);
  auto& entry = ranges_[begin];
  if (entry.written) tracked_ -= 1;
  if (written) tracked_ += 1;
  entry = Entry{begin + size, std::move(what), std::move(written)};
}

void GlobalMemory::remove(uint64_t begin) {
  std::unique_lock lock(mutex_);
  auto it = ranges_.find(begin);
  if (it == ranges_.end()) return;
  if (it->second.written) tracked_ -= 1;
  ranges_.erase(it);
}

void GlobalMemory::mark_written(uint64_t address, uint64_t size) {
  if (tracked_.load(std::memory_order_relaxed) == 0 || size == 0) return;
  std::shared_lock lock(mutex_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return;
  --it;
  const Entry& e = it->second;
  if (!e.written || address >= e.end) return;
  uint64_t first = address - it->first, last = std::min(address + size, e.end) - it->first;
  std::atomic<uint64_t>* bits = e.written->bits.get();
  // Whole words at once: a copy of a large array marks it in size / 64 steps.
  while (first < last) {
    uint64_t word = first / 64, bit = first % 64,
             count = std::min<uint64_t>(64 - bit, last - first);
    uint64_t mask = count == 64 ? ~uint64_t(0) : ((uint64_t(1) << count) - 1) << bit;
    bits[word].fetch_or(mask, std::memory_order_relaxed);
    first += count;
  }
}

std::optional<GlobalMemory::Unwritten> GlobalMemory::unwritten_read(uint64_t address,
                                                                    uint64_t size) {
  if (tracked_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  std::shared_lock lock(mutex_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  const Entry& e = it->second;
  if (!e.written || address >= e.end || e.written->reported.load(std::memory_order_relaxed))
    return std::nullopt;
  const std::atomic<uint64_t>* bits = e.written->bits.get();
  for (uint64_t b = address - it->first; b < std::min(address + size, e.end) - it->first; ++b) {
    if (bits[b / 64].load(std::memory_order_relaxed) >> (b % 64) & 1) continue;
    if (e.written->reported.exchange(true)) return std::nullopt;  // another thread reports it
    return Unwritten{it->first, e.end - it->first, e.what};
  }
  return std::nullopt;
}

Range GlobalMemory::find(uint64_t address, uint64_t size) const {
  std::shared_lock lock(mutex_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return {};
  --it;
  Range range{it->first, it->second.end};
  return range.contains(address, size) ? range : Range{};
}

std::string GlobalMemory::describe_miss(uint64_t address) const {
  std::shared_lock lock(mutex_);
  auto after = ranges_.upper_bound(address);
  if (after == ranges_.begin()) return "not in any allocation";
  auto before = std::prev(after);  // the range starting at or before the address
  const Entry& e = before->second;
  if (address < e.end) return "across the end of " + e.what;
  char text[160];
  std::snprintf(text, sizeof text, "%llu bytes past the end of %s of %llu bytes at 0x%llx",
                (unsigned long long)(address - e.end), e.what.c_str(),
                (unsigned long long)(e.end - before->first), (unsigned long long)before->first);
  return text;
}

}  // namespace cudajit::sim
