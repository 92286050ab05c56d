// The cpu device: host memory, streams that really are asynchronous in-order
// queues, events, CUDA's legacy default stream rules, launch checks, and
// kernels (hand-written host entries and ones compiled from kernel IR).
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cudajit/compiler/compile.hpp"
#include "cudajit/runtime/device.hpp"

namespace rt = cudajit::runtime;
using Catch::Matchers::Contains;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

rt::Device& cpu() { return rt::cpu_device(); }

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A host task that blocks its stream until open() is called (or 5 s pass, so
// a broken ordering fails a test instead of hanging it).
class Gate {
 public:
  std::function<void()> task() {
    return [future = opened_.get_future().share()] { future.wait_for(std::chrono::seconds(5)); };
  }
  void open() { opened_.set_value(); }

 private:
  std::promise<void> opened_;
};

// Host entries written in C++, with the HostEntry signature compiled kernels have.
// params[0] points at a BlockLog.
struct BlockLog {
  std::mutex mutex;
  std::vector<int64_t> blocks;
};

void log_blocks(void** params, const cudajit::target::LaunchDims*, int64_t begin, int64_t end,
                unsigned char*) {
  auto* log = *static_cast<BlockLog**>(params[0]);
  std::lock_guard lock(log->mutex);
  for (int64_t b = begin; b < end; ++b) log->blocks.push_back(b);
}

// Launched on two streams at once: each call (a chunk of blocks) counts itself
// in `mine` and waits, up to 5 s, until the partner launch has run a chunk too.
struct Handshake {
  std::atomic<int> mine{0};
  std::atomic<int>* partner = nullptr;
  std::atomic<int> timeouts{0};
};

void wait_for_partner(void** params, const cudajit::target::LaunchDims*, int64_t, int64_t,
                      unsigned char*) {
  auto* shake = *static_cast<Handshake**>(params[0]);
  shake->mine++;
  auto deadline = Clock::now() + std::chrono::seconds(5);
  while (shake->partner->load() == 0 && Clock::now() < deadline) std::this_thread::yield();
  if (shake->partner->load() == 0) shake->timeouts++;
}

void do_nothing(void**, const cudajit::target::LaunchDims*, int64_t, int64_t, unsigned char*) {}

std::shared_ptr<rt::LoadedKernel> load_entry(cudajit::target::HostEntry entry) {
  rt::KernelCode code;
  code.host.entry = entry;
  code.entry_name = "test_entry";
  return cpu().load(code);
}

template <class T>
rt::KernelParams params_of(T* pointer) {
  rt::KernelParams params(1);
  params.set(0, pointer);
  return params;
}

}  // namespace

// --- memory ----------------------------------------------------------------------------

TEST_CASE("cpu memory of every kind is host memory aligned to 256 bytes", "[cpu]") {
  for (auto kind : {rt::MemoryKind::Device, rt::MemoryKind::Pinned, rt::MemoryKind::Mapped,
                    rt::MemoryKind::Managed}) {
    auto allocation = cpu().allocate(1000, kind);
    REQUIRE(allocation->device_pointer() != nullptr);
    CHECK(allocation->device_pointer() == allocation->host_pointer());
    CHECK(reinterpret_cast<uintptr_t>(allocation->device_pointer()) % 256 == 0);
    CHECK(allocation->size() == 1000);
    CHECK(allocation->kind() == kind);
    CHECK(&allocation->device() == &cpu());
    std::memset(allocation->host_pointer(), 0xab, 1000);  // all of it is writable
  }
}

TEST_CASE("a zero-byte cpu allocation is allowed and has a null pointer", "[cpu]") {
  auto allocation = cpu().allocate(0, rt::MemoryKind::Device);
  CHECK(allocation->size() == 0);
  CHECK(allocation->device_pointer() == nullptr);
}

TEST_CASE("cpu copies and memsets round-trip through a stream", "[cpu]") {
  auto stream = cpu().create_stream();
  std::vector<int32_t> host(256), back(256, -1);
  std::iota(host.begin(), host.end(), 0);
  auto device = cpu().allocate(host.size() * 4, rt::MemoryKind::Device);
  cpu().copy(device->device_pointer(), host.data(), host.size() * 4, *stream);
  cpu().copy(back.data(), device->device_pointer(), host.size() * 4, *stream);
  stream->synchronize();
  CHECK(back == host);

  cpu().memset(device->device_pointer(), 0, 128 * 4, *stream);
  cpu().copy(back.data(), device->device_pointer(), host.size() * 4, *stream);
  stream->synchronize();
  CHECK(back[0] == 0);
  CHECK(back[127] == 0);
  CHECK(back[128] == 128);
}

TEST_CASE("a copy holds its keep_alive references until it has run", "[cpu]") {
  auto stream = cpu().create_stream();
  Gate gate;
  stream->enqueue_host(gate.task());
  auto owner = std::make_shared<int>(1);
  std::weak_ptr<int> watch = owner;
  // Device memory at both ends: the copy is queued (with pageable host memory it would
  // complete before returning).
  auto source = cpu().allocate(sizeof(int), rt::MemoryKind::Device);
  auto target = cpu().allocate(sizeof(int), rt::MemoryKind::Device);
  *static_cast<int*>(source->host_pointer()) = 5;
  *static_cast<int*>(target->host_pointer()) = 0;
  cpu().copy(target->device_pointer(), source->device_pointer(), sizeof(int), *stream,
             {std::move(owner)});
  CHECK_FALSE(watch.expired());
  CHECK(*static_cast<int*>(target->host_pointer()) == 0);
  gate.open();
  stream->synchronize();
  CHECK(*static_cast<int*>(target->host_pointer()) == 5);
  CHECK(watch.expired());
}

TEST_CASE("a copy into pageable host memory is complete when it returns", "[cpu]") {
  auto stream = cpu().create_stream();
  auto source = cpu().allocate(sizeof(int), rt::MemoryKind::Device);
  *static_cast<int*>(source->host_pointer()) = 7;
  int pageable = 0;
  cpu().copy(&pageable, source->device_pointer(), sizeof(int), *stream);
  CHECK(pageable == 7);
  auto locked = cpu().register_host(&pageable, sizeof pageable);  // now page-locked: queued
  Gate gate;
  stream->enqueue_host(gate.task());
  *static_cast<int*>(source->host_pointer()) = 8;
  cpu().copy(&pageable, source->device_pointer(), sizeof(int), *stream);
  CHECK(pageable == 7);
  gate.open();
  stream->synchronize();
  CHECK(pageable == 8);
}

// --- streams -----------------------------------------------------------------------------

TEST_CASE("cpu streams run at once: a task on one waits for a task on the other", "[cpu]") {
  auto a = cpu().create_stream();
  auto b = cpu().create_stream();
  std::promise<void> fulfilled;
  std::atomic<bool> seen{false};
  a->enqueue_host([&, future = fulfilled.get_future().share()] {
    seen = future.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  });
  b->enqueue_host([&] { fulfilled.set_value(); });
  a->synchronize();
  b->synchronize();
  CHECK(seen);
}

TEST_CASE("two 200 ms tasks on two cpu streams take well under 400 ms", "[cpu]") {
  auto a = cpu().create_stream();
  auto b = cpu().create_stream();
  auto start = Clock::now();
  a->enqueue_host([] { std::this_thread::sleep_for(milliseconds(200)); });
  b->enqueue_host([] { std::this_thread::sleep_for(milliseconds(200)); });
  CHECK(ms_since(start) < 50);  // queuing does not wait for the work
  a->synchronize();
  b->synchronize();
  CHECK(ms_since(start) < 350);
}

TEST_CASE("a cpu stream runs its tasks in the order they were queued", "[cpu]") {
  auto stream = cpu().create_stream();
  std::vector<int> order;  // touched only by the stream's worker until synchronize
  for (int i = 0; i < 1000; ++i) stream->enqueue_host([&order, i] { order.push_back(i); });
  stream->synchronize();
  std::vector<int> expected(1000);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(order == expected);
}

TEST_CASE("query tells whether a cpu stream has finished its work", "[cpu]") {
  auto stream = cpu().create_stream();
  CHECK(stream->query());
  Gate gate;
  stream->enqueue_host(gate.task());
  CHECK_FALSE(stream->query());
  gate.open();
  stream->synchronize();
  CHECK(stream->query());
}

TEST_CASE("an exception thrown by a host task is rethrown by the stream's synchronize", "[cpu]") {
  auto stream = cpu().create_stream();
  bool later_ran = false;
  stream->enqueue_host([] { throw std::runtime_error("task failed"); });
  stream->enqueue_host([&] { later_ran = true; });
  CHECK_THROWS_WITH(stream->synchronize(), "task failed");
  CHECK(later_ran);
  CHECK_NOTHROW(stream->synchronize());  // reported once
}

TEST_CASE("work queued on a destroyed cpu stream still runs, and device sync waits for it",
          "[cpu]") {
  std::atomic<bool> ran{false};
  {
    auto stream = cpu().create_stream();
    stream->enqueue_host([&] {
      std::this_thread::sleep_for(milliseconds(50));
      ran = true;
    });
  }
  cpu().synchronize();
  CHECK(ran);
}

TEST_CASE("cpu stream handles: 0 legacy, 2 per-thread, unique ids from 0x1000", "[cpu]") {
  CHECK(cpu().legacy_default_stream()->handle() == 0);
  CHECK(cpu().per_thread_default_stream()->handle() == 2);
  auto a = cpu().create_stream();
  auto b = cpu().create_stream();
  CHECK(a->handle() >= 0x1000);
  CHECK(b->handle() >= 0x1000);
  CHECK(a->handle() != b->handle());
}

TEST_CASE("external_stream on the cpu device finds only the device's own streams", "[cpu]") {
  auto created = cpu().create_stream();
  CHECK(cpu().external_stream(created->handle()) == created);
  CHECK(cpu().external_stream(0) == cpu().legacy_default_stream());
  CHECK(cpu().external_stream(1) == cpu().legacy_default_stream());  // CU_STREAM_LEGACY
  CHECK(cpu().external_stream(2) == cpu().per_thread_default_stream());
  CHECK_THROWS_WITH(cpu().external_stream(0xdead0000),
                    Contains("no stream of the cpu device has handle 0xdead0000"));
  uintptr_t gone = cpu().create_stream()->handle();
  CHECK_THROWS_AS(cpu().external_stream(gone), std::invalid_argument);
}

TEST_CASE("each host thread has its own per-thread default stream", "[cpu]") {
  auto mine = cpu().per_thread_default_stream();
  std::shared_ptr<rt::Stream> theirs;
  std::thread([&] { theirs = cpu().per_thread_default_stream(); }).join();
  CHECK(mine == cpu().per_thread_default_stream());
  CHECK(mine != theirs);
  CHECK(theirs->handle() == 2);
}

// --- the legacy default stream -------------------------------------------------------------

TEST_CASE("work on the legacy default stream waits for earlier work on other streams", "[cpu]") {
  auto created = cpu().create_stream();
  auto legacy = cpu().legacy_default_stream();
  Gate gate;
  created->enqueue_host(gate.task());
  std::atomic<bool> legacy_ran{false};
  legacy->enqueue_host([&] { legacy_ran = true; });
  std::this_thread::sleep_for(milliseconds(50));
  CHECK_FALSE(legacy_ran);
  gate.open();
  legacy->synchronize();
  CHECK(legacy_ran);
}

TEST_CASE("work on other streams waits for earlier work on the legacy default stream", "[cpu]") {
  auto legacy = cpu().legacy_default_stream();
  auto created = cpu().create_stream();
  auto per_thread = cpu().per_thread_default_stream();
  Gate gate;
  legacy->enqueue_host(gate.task());
  std::atomic<int> ran{0};
  created->enqueue_host([&] { ran++; });
  per_thread->enqueue_host([&] { ran++; });
  std::this_thread::sleep_for(milliseconds(50));
  CHECK(ran == 0);
  gate.open();
  created->synchronize();
  per_thread->synchronize();
  CHECK(ran == 2);
}

TEST_CASE("created cpu streams do not wait for each other", "[cpu]") {
  auto a = cpu().create_stream();
  auto b = cpu().create_stream();
  Gate gate;
  a->enqueue_host(gate.task());
  std::atomic<bool> b_ran{false};
  b->enqueue_host([&] { b_ran = true; });
  b->synchronize();
  CHECK(b_ran);
  gate.open();
  a->synchronize();
}

// --- events --------------------------------------------------------------------------------

TEST_CASE("a cpu event completes when its stream reaches it", "[cpu]") {
  auto stream = cpu().create_stream();
  auto event = cpu().create_event(true);
  CHECK(event->timing());
  CHECK(event->query());  // never recorded counts as complete
  Gate gate;
  stream->enqueue_host(gate.task());
  event->record(*stream);
  CHECK_FALSE(event->query());
  gate.open();
  event->synchronize();
  CHECK(event->query());
}

TEST_CASE("elapsed_ms measures the time between two cpu events", "[cpu]") {
  auto stream = cpu().create_stream();
  auto start = cpu().create_event(true);
  auto end = cpu().create_event(true);
  start->record(*stream);
  stream->enqueue_host([] { std::this_thread::sleep_for(milliseconds(30)); });
  end->record(*stream);
  end->synchronize();
  float ms = start->elapsed_ms(*end);
  CHECK(ms >= 29.0f);
  CHECK(ms < 1000.0f);
}

TEST_CASE("elapsed_ms refuses events that cannot be timed, as CUDA does", "[cpu]") {
  auto stream = cpu().create_stream();
  auto timed = cpu().create_event(true);
  auto untimed = cpu().create_event(false);
  auto never = cpu().create_event(true);
  timed->record(*stream);
  untimed->record(*stream);
  stream->synchronize();
  CHECK_THROWS_WITH(timed->elapsed_ms(*untimed),
                    Contains("end event was created with timing disabled"));
  CHECK_THROWS_WITH(untimed->elapsed_ms(*timed),
                    Contains("start event was created with timing disabled"));
  CHECK_THROWS_WITH(timed->elapsed_ms(*never), Contains("end event was never recorded"));

  Gate gate;
  auto pending = cpu().create_event(true);
  stream->enqueue_host(gate.task());
  pending->record(*stream);
  CHECK_THROWS_WITH(timed->elapsed_ms(*pending), Contains("has not completed"));
  CHECK_THROWS_AS(timed->elapsed_ms(*pending), std::runtime_error);
  gate.open();
  stream->synchronize();
  CHECK(timed->elapsed_ms(*pending) >= 0.0f);
}

TEST_CASE("Stream::wait makes later work wait for the event, as recorded at the call", "[cpu]") {
  auto producer = cpu().create_stream();
  auto consumer = cpu().create_stream();
  auto other = cpu().create_stream();
  auto event = cpu().create_event(false);
  Gate gate;
  producer->enqueue_host(gate.task());
  event->record(*producer);
  consumer->wait(*event);
  event->record(*other);  // a later recording does not change what consumer waits for
  std::atomic<bool> consumer_ran{false};
  consumer->enqueue_host([&] { consumer_ran = true; });
  other->synchronize();
  std::this_thread::sleep_for(milliseconds(50));
  CHECK_FALSE(consumer_ran);
  gate.open();
  consumer->synchronize();
  CHECK(consumer_ran);
}

TEST_CASE("waiting on a never-recorded event does not block a cpu stream", "[cpu]") {
  auto stream = cpu().create_stream();
  auto event = cpu().create_event(false);
  stream->wait(*event);
  bool ran = false;
  stream->enqueue_host([&] { ran = true; });
  stream->synchronize();
  CHECK(ran);
}

// --- launches ------------------------------------------------------------------------------

TEST_CASE("cpu launches are checked against CUDA's limits", "[cpu]") {
  const rt::DeviceLimits& limits = cpu().limits();
  CHECK(limits.max_threads_per_block == 1024);
  CHECK(limits.max_grid[0] == 0x7fffffffu);
  CHECK(limits.max_shared_per_block == 48 * 1024);
  CHECK(limits.multiprocessors == int(rt::host_worker_count()));

  auto kernel = load_entry(do_nothing);
  auto stream = cpu().create_stream();
  auto launch = [&](rt::Dim3 grid, rt::Dim3 block, unsigned shared) {
    cpu().launch(*kernel, grid, block, shared, *stream, rt::KernelParams(0), {});
  };
  CHECK_THROWS_WITH(launch({1, 1, 1}, {1025, 1, 1}, 0),
                    Contains("block dimension x = 1025 exceeds the limit of 1024"));
  CHECK_THROWS_WITH(launch({1, 1, 1}, {64, 32, 1}, 0),
                    Contains("2048 threads, more than the limit of 1024 threads per block"));
  CHECK_THROWS_WITH(launch({1, 65536, 1}, {1, 1, 1}, 0),
                    Contains("grid dimension y = 65536 exceeds the limit of 65535"));
  CHECK_THROWS_WITH(launch({1, 1, 1}, {1, 1, 1}, 64 * 1024),
                    Contains("dynamic shared memory of 65536 bytes exceeds the limit of 49152"));
  CHECK_THROWS_WITH(launch({0, 1, 1}, {1, 1, 1}, 0),
                    Contains("grid dimensions must be at least 1, got (0, 1, 1)"));
  CHECK_THROWS_AS(launch({1, 1, 1}, {1025, 1, 1}, 0), std::invalid_argument);
  CHECK_NOTHROW(launch({0x7fffffffu, 1, 1}, {1024, 1, 1}, 48 * 1024));
  stream->synchronize();
}

TEST_CASE("the cpu device loads only host code", "[cpu]") {
  rt::KernelCode ptx_only;
  ptx_only.ptx = std::string(".version 7.0");  // (moved: GCC 12 warns falsely on = "...")
  ptx_only.entry_name = "k";
  CHECK_THROWS_WITH(cpu().load(ptx_only), Contains("KernelCode::host has no entry for kernel k"));
}

TEST_CASE("a cpu launch runs every block of the grid exactly once", "[cpu]") {
  auto kernel = load_entry(log_blocks);
  auto stream = cpu().create_stream();
  BlockLog log;
  cpu().launch(*kernel, {7, 5, 3}, {32, 1, 1}, 0, *stream, params_of(&log), {});
  stream->synchronize();
  std::sort(log.blocks.begin(), log.blocks.end());
  std::vector<int64_t> expected(7 * 5 * 3);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(log.blocks == expected);
}

TEST_CASE("kernels launched on two cpu streams run at the same time", "[cpu]") {
  auto kernel = load_entry(wait_for_partner);
  auto a = cpu().create_stream();
  auto b = cpu().create_stream();
  // Each block of one launch waits for the other launch to start: this finishes
  // in time only if the worker pool runs both launches at once.
  for (uint32_t blocks : {1u, 64u}) {
    Handshake on_a, on_b;
    on_a.partner = &on_b.mine;
    on_b.partner = &on_a.mine;
    cpu().launch(*kernel, {blocks, 1, 1}, {1, 1, 1}, 0, *a, params_of(&on_a), {});
    cpu().launch(*kernel, {blocks, 1, 1}, {1, 1, 1}, 0, *b, params_of(&on_b), {});
    a->synchronize();
    b->synchronize();
    CHECK(on_a.timeouts == 0);
    CHECK(on_b.timeouts == 0);
    CHECK(on_a.mine > 0);
  }
}

TEST_CASE("a cpu launch holds keep_alive until the kernel has run, and copies its params",
          "[cpu]") {
  auto kernel = load_entry(log_blocks);
  auto stream = cpu().create_stream();
  Gate gate;
  stream->enqueue_host(gate.task());
  auto owner = std::make_shared<int>(1);
  std::weak_ptr<int> watch = owner;
  BlockLog log;
  {
    rt::KernelParams params = params_of(&log);
    cpu().launch(*kernel, {3, 1, 1}, {1, 1, 1}, 0, *stream, std::move(params), {owner});
  }
  owner.reset();
  CHECK_FALSE(watch.expired());
  gate.open();
  stream->synchronize();
  CHECK(watch.expired());
  CHECK(log.blocks.size() == 3);
}

TEST_CASE("a kernel compiled from kernel IR runs through the cpu device", "[cpu]") {
  // def k(a): a[cuda.grid(1)] = cuda.grid(1)
  cudajit::Program program(
      "(module \"t.py\" (func@1:0 k (params a)"
      " (assign@2:4 (subscript@2:4 (name@2:4 a) (call@2:6 cuda.grid (int@2:16 1)))"
      " (call@2:20 cuda.grid (int@2:30 1)))))");
  std::vector<cudajit::Type> arg_types{
      cudajit::Type::array(cudajit::Scalar::Int64, 1, cudajit::Layout::C)};
  cudajit::HostArtifact artifact = program.compile_host(arg_types, {});
  REQUIRE(artifact.params.size() == 1);
  REQUIRE(artifact.params[0].param_count == 3);  // data, extent, stride

  rt::KernelCode code;
  code.host = artifact.kernel;
  code.entry_name = artifact.entry_name;
  auto kernel = cpu().load(code);

  const int64_t n = 4 * 64;
  auto memory = cpu().allocate(n * sizeof(int64_t), rt::MemoryKind::Device);
  auto stream = cpu().create_stream();
  cpu().memset(memory->device_pointer(), 0xff, n * sizeof(int64_t), *stream);
  rt::KernelParams params(3);
  int first = artifact.params[0].first_param;
  params.set(first, memory->device_pointer());
  params.set(first + 1, n);
  params.set(first + 2, int64_t(sizeof(int64_t)));
  cpu().launch(*kernel, {4, 1, 1}, {64, 1, 1}, 0, *stream, std::move(params), {memory});
  std::vector<int64_t> result(n);
  cpu().copy(result.data(), memory->device_pointer(), n * sizeof(int64_t), *stream);
  stream->synchronize();
  std::vector<int64_t> expected(n);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(result == expected);
}

TEST_CASE("device synchronize waits for every cpu stream", "[cpu]") {
  std::atomic<int> done{0};
  auto a = cpu().create_stream();
  auto b = cpu().create_stream();
  for (auto* stream : {a.get(), b.get(), cpu().per_thread_default_stream().get()}) {
    stream->enqueue_host([&] {
      std::this_thread::sleep_for(milliseconds(20));
      done++;
    });
  }
  cpu().synchronize();
  CHECK(done == 3);
}

// --- kernel parameters ---------------------------------------------------------------------

TEST_CASE("KernelParams copies and moves keep pointers to their own slots", "[cpu]") {
  rt::KernelParams params(3);
  params.set(0, int32_t(7));
  params.set(1, 2.5);
  params.set(2, static_cast<void*>(&params));
  CHECK(*static_cast<int64_t*>(params.pointers()[0]) == 7);  // the rest of a slot is zero

  rt::KernelParams copy(params);
  CHECK(copy.size() == 3);
  CHECK(copy.pointers()[0] != params.pointers()[0]);
  CHECK(*static_cast<int32_t*>(copy.pointers()[0]) == 7);
  CHECK(*static_cast<double*>(copy.pointers()[1]) == 2.5);

  void* slot = params.pointers()[1];
  rt::KernelParams moved(std::move(params));
  CHECK(moved.pointers()[1] == slot);
  CHECK(*static_cast<double*>(moved.pointers()[1]) == 2.5);

  rt::KernelParams assigned;
  assigned = std::move(copy);
  CHECK(*static_cast<int32_t*>(assigned.pointers()[0]) == 7);
  CHECK(reinterpret_cast<uintptr_t>(assigned.pointers()[1]) % 16 == 0);
}
