#include "memory.hpp"

#include <cstdio>
#include <mutex>

namespace cudajit::sim {

void GlobalMemory::add(uint64_t begin, uint64_t size, std::string what) {
  std::unique_lock lock(mutex_);
  ranges_[begin] = Entry{begin + size, std::move(what)};
}

void GlobalMemory::remove(uint64_t begin) {
  std::unique_lock lock(mutex_);
  ranges_.erase(begin);
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
