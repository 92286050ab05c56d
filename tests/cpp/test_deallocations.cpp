// A device's queue of pending deallocations: released allocations wait there until the
// queue passes its count or byte limit, or is cleared; disabled, it frees nothing.
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "cudajit/runtime/device.hpp"

namespace rt = cudajit::runtime;

namespace {

// An allocation that records its destruction.
class Probe final : public rt::Allocation {
 public:
  Probe(size_t size, int& freed) : size_(size), freed_(freed) {}
  ~Probe() override { ++freed_; }
  void* device_pointer() const override { return nullptr; }
  void* host_pointer() const override { return nullptr; }
  size_t size() const override { return size_; }
  rt::MemoryKind kind() const override { return rt::MemoryKind::Device; }
  rt::Device& device() const override { return rt::cpu_device(); }

 private:
  size_t size_;
  int& freed_;
};

// Restores the process-wide limits after a test.
struct Limits {
  size_t count = rt::PendingDeallocations::max_count();
  double ratio = rt::PendingDeallocations::ratio();
  ~Limits() { rt::PendingDeallocations::set_limits(count, ratio); }
};

}  // namespace

TEST_CASE("a released allocation waits in the queue until it is cleared", "[deallocations]") {
  Limits restore;
  rt::PendingDeallocations queue([] { return uint64_t(1000); });
  int freed = 0;
  std::shared_ptr<rt::Allocation> a = queue.adopt(std::make_unique<Probe>(10, freed));
  a.reset();
  CHECK(freed == 0);
  CHECK(queue.count() == 1);
  CHECK(queue.bytes() == 10);
  CHECK(queue.clear() == 1);
  CHECK(freed == 1);
  CHECK(queue.count() == 0);
  CHECK(queue.bytes() == 0);
}

TEST_CASE("the queue frees itself past its count and past its share of memory", "[deallocations]") {
  Limits restore;
  rt::PendingDeallocations::set_limits(2, 0.5);
  rt::PendingDeallocations queue([] { return uint64_t(1000); });
  CHECK(queue.max_pending_bytes() == 500);
  int freed = 0;
  queue.add(std::make_unique<Probe>(1, freed));
  queue.add(std::make_unique<Probe>(1, freed));
  CHECK(queue.count() == 2);
  queue.add(std::make_unique<Probe>(1, freed));  // a third: past the count
  CHECK(freed == 3);
  CHECK(queue.count() == 0);
  queue.add(std::make_unique<Probe>(500, freed));  // at the byte limit: kept
  CHECK(queue.count() == 1);
  queue.add(std::make_unique<Probe>(1, freed));  // past it
  CHECK(freed == 5);
  CHECK(queue.count() == 0);
}

TEST_CASE("a disabled queue frees nothing until enabled as often", "[deallocations]") {
  Limits restore;
  rt::PendingDeallocations::set_limits(1, 0.2);
  rt::PendingDeallocations queue([] { return uint64_t(1000); });
  int freed = 0;
  queue.disable();
  queue.disable();
  for (int i = 0; i < 5; ++i) queue.add(std::make_unique<Probe>(100, freed));
  CHECK(queue.clear() == 0);
  queue.enable();
  CHECK(queue.disabled());
  CHECK(queue.clear() == 0);
  queue.enable();
  CHECK_FALSE(queue.disabled());
  CHECK(freed == 0);
  CHECK(queue.clear() == 5);
  CHECK(freed == 5);
  CHECK_THROWS_AS(queue.enable(), std::logic_error);
  CHECK_THROWS_AS(rt::PendingDeallocations::set_limits(1, -0.5), std::invalid_argument);
}
