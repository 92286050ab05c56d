// The cuda device. Without a driver or a GPU only the "unavailable" behaviour
// is checked; every other test is skipped, with the reason.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cudajit/runtime/device.hpp"

namespace rt = cudajit::runtime;
using Catch::Matchers::Contains;

namespace {

// Tests that need a GPU are skipped where there is none, with the reason.
bool gpu_missing() {
  if (rt::cuda_available()) return false;
  WARN("skipped: " << rt::cuda_unavailable_reason());
  return true;
}

rt::Device& gpu() { return rt::cuda_device(0); }

// Hand-written PTX, so these tests do not depend on the compiler.
//   fill(int32* out, int32 value, int32 n): out[i] = value for i < n
//   spin(int64 cycles): busy-waits about `cycles` clock cycles
//   last_shared_word(int32* out, int32 bytes): 42 through the last word of dynamic shared memory
const char* const kTestPtx = R"(
.version 7.0
.target sm_50
.address_size 64

.extern .shared .align 4 .b8 dynamic_shared[];

.visible .entry fill(.param .u64 fill_out, .param .u32 fill_value, .param .u32 fill_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<7>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [fill_out];
  ld.param.u32 %r1, [fill_value];
  ld.param.u32 %r2, [fill_n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r6, %r2;
  @%p1 bra FILL_DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r1;
FILL_DONE:
  ret;
}

.visible .entry spin(.param .u64 spin_cycles)
{
  .reg .pred %p<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [spin_cycles];
  mov.u64 %rd2, %clock64;
SPIN_LOOP:
  mov.u64 %rd3, %clock64;
  sub.s64 %rd4, %rd3, %rd2;
  setp.lt.s64 %p1, %rd4, %rd1;
  @%p1 bra SPIN_LOOP;
  ret;
}

.visible .entry last_shared_word(.param .u64 lsw_out, .param .u32 lsw_bytes)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [lsw_out];
  ld.param.u32 %r1, [lsw_bytes];
  sub.s32 %r2, %r1, 4;
  cvt.u64.u32 %rd2, %r2;
  mov.u64 %rd3, dynamic_shared;
  add.s64 %rd3, %rd3, %rd2;
  mov.u32 %r3, 42;
  st.shared.u32 [%rd3], %r3;
  bar.sync 0;
  ld.shared.u32 %r3, [%rd3];
  cvta.to.global.u64 %rd4, %rd1;
  st.global.u32 [%rd4], %r3;
  ret;
}
)";

std::shared_ptr<rt::LoadedKernel> load_test_kernel(const std::string& name) {
  rt::KernelCode code;
  code.ptx = kTestPtx;
  code.entry_name = name;
  return gpu().load(code);
}

// About 0.1 s at the clock of current GPUs.
constexpr int64_t kSpinCycles = 200'000'000;

void launch_spin(rt::Device& device, rt::LoadedKernel& spin, rt::Stream& stream,
                 std::vector<std::shared_ptr<const void>> keep_alive = {}) {
  rt::KernelParams params(1);
  params.set(0, kSpinCycles);
  device.launch(spin, {1, 1, 1}, {1, 1, 1}, 0, stream, std::move(params), std::move(keep_alive));
}

}  // namespace

// --- without a GPU ---------------------------------------------------------------------

TEST_CASE("cuda_available never throws and gives a reason when it is false", "[cuda]") {
  bool available = false;
  REQUIRE_NOTHROW(available = rt::cuda_available());
  if (available) {
    CHECK(rt::cuda_unavailable_reason().empty());
    CHECK(rt::cuda_device_count() > 0);
    return;
  }
  std::string reason = rt::cuda_unavailable_reason();
  CHECK_FALSE(reason.empty());
  CHECK(rt::cuda_device_count() == 0);
  CHECK_THROWS_AS(rt::cuda_device(0), rt::CudaUnavailable);
  CHECK_THROWS_WITH(rt::cuda_device(0), Contains(reason));
}

TEST_CASE("without the driver library the reason names the library", "[cuda]") {
  std::string path = rt::cuda_driver_library();
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (library == nullptr) library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library != nullptr) {
    dlclose(library);
    WARN("skipped: " << path << " is present");
    return;
  }
  CHECK_FALSE(rt::cuda_available());
  CHECK_THROWS_WITH(rt::cuda_device(0), Contains(path + " not found"));
}

// --- with a GPU ----------------------------------------------------------------------------

TEST_CASE("a cuda device describes itself", "[cuda][gpu]") {
  if (gpu_missing()) return;
  CHECK(gpu().kind() == rt::DeviceKind::Cuda);
  CHECK(gpu().ordinal() == 0);
  CHECK_FALSE(gpu().name().empty());
  CHECK(gpu().compute_capability() >= 50);
  const rt::DeviceLimits& limits = gpu().limits();
  CHECK(limits.max_threads_per_block == 1024);
  CHECK(limits.max_grid[1] == 65535u);
  CHECK(limits.max_shared_per_block >= 48 * 1024);
  CHECK(limits.warp_size == 32);
  CHECK(limits.multiprocessors > 0);
  CHECK_THROWS_AS(rt::cuda_device(rt::cuda_device_count()), std::out_of_range);
  CHECK(&rt::cuda_device(0) == &gpu());
}

TEST_CASE("cuda memory of every kind round-trips through copies and memset", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto stream = gpu().create_stream();
  std::vector<int32_t> host(1000), back(1000, -1);
  std::iota(host.begin(), host.end(), 0);
  for (auto kind : {rt::MemoryKind::Device, rt::MemoryKind::Pinned, rt::MemoryKind::Mapped,
                    rt::MemoryKind::Managed}) {
    auto memory = gpu().allocate(host.size() * 4, kind);
    REQUIRE(memory->device_pointer() != nullptr);
    CHECK((memory->host_pointer() == nullptr) == (kind == rt::MemoryKind::Device));
    gpu().copy(memory->device_pointer(), host.data(), host.size() * 4, *stream);
    gpu().copy(back.data(), memory->device_pointer(), host.size() * 4, *stream);
    stream->synchronize();
    CHECK(back == host);
    gpu().memset(memory->device_pointer(), 0, 40, *stream);
    gpu().copy(back.data(), memory->device_pointer(), host.size() * 4, *stream);
    stream->synchronize();
    CHECK(back[9] == 0);
    CHECK(back[10] == 10);
  }
  CHECK(gpu().allocate(0, rt::MemoryKind::Device)->device_pointer() == nullptr);
}

TEST_CASE("a PTX kernel launched on the cuda device writes its output", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto fill = load_test_kernel("fill");
  auto stream = gpu().create_stream();
  const int32_t n = 1000;
  auto memory = gpu().allocate(n * 4, rt::MemoryKind::Device);
  rt::KernelParams params(3);
  params.set(0, memory->device_pointer());
  params.set(1, int32_t(7));
  params.set(2, n);
  gpu().launch(*fill, {4, 1, 1}, {256, 1, 1}, 0, *stream, std::move(params), {memory});
  std::vector<int32_t> result(n);
  gpu().copy(result.data(), memory->device_pointer(), n * 4, *stream);
  stream->synchronize();
  CHECK(result == std::vector<int32_t>(n, 7));
}

TEST_CASE("a PTX kernel can use more than 48 KiB of dynamic shared memory", "[cuda][gpu]") {
  if (gpu_missing()) return;
  size_t limit = gpu().limits().max_shared_per_block;
  if (limit <= 48 * 1024) {
    WARN("skipped: this GPU offers no more than 48 KiB of shared memory per block");
    return;
  }
  auto kernel = load_test_kernel("last_shared_word");
  auto stream = gpu().create_stream();
  auto memory = gpu().allocate(4, rt::MemoryKind::Device);
  auto bytes = static_cast<uint32_t>(limit);
  rt::KernelParams params(2);
  params.set(0, memory->device_pointer());
  params.set(1, bytes);
  gpu().launch(*kernel, {1, 1, 1}, {32, 1, 1}, bytes, *stream, std::move(params), {});
  int32_t result = 0;
  gpu().copy(&result, memory->device_pointer(), 4, *stream);
  stream->synchronize();
  CHECK(result == 42);
}

TEST_CASE("cuda launches are checked against the device's limits", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto fill = load_test_kernel("fill");
  auto stream = gpu().create_stream();
  auto launch = [&](rt::Dim3 grid, rt::Dim3 block, unsigned shared) {
    gpu().launch(*fill, grid, block, shared, *stream, rt::KernelParams(3), {});
  };
  CHECK_THROWS_WITH(launch({1, 1, 1}, {1025, 1, 1}, 0),
                    Contains("block dimension x = 1025 exceeds the limit of 1024"));
  CHECK_THROWS_WITH(launch({1, 65536, 1}, {1, 1, 1}, 0),
                    Contains("grid dimension y = 65536 exceeds the limit of 65535"));
  unsigned too_much = unsigned(gpu().limits().max_shared_per_block) + 1;
  CHECK_THROWS_WITH(launch({1, 1, 1}, {1, 1, 1}, too_much), Contains("exceeds the limit of"));
}

TEST_CASE("PTX that does not load raises a DriverError carrying the JIT log", "[cuda][gpu]") {
  if (gpu_missing()) return;
  rt::KernelCode code;
  code.ptx =
      ".version 7.0\n.target sm_50\n.address_size 64\n"
      ".visible .entry broken() { not_an_instruction; ret; }\n";
  code.entry_name = "broken";
  try {
    gpu().load(code);
    FAIL("loading broken PTX did not throw");
  } catch (const rt::DriverError& error) {
    CHECK(error.call() == "cuModuleLoadDataEx");
    CHECK_THAT(error.what(), Contains("JIT log"));
    CHECK_THAT(error.what(), Contains("not_an_instruction"));
  }
  CHECK_THROWS_AS(load_test_kernel("no_such_kernel"), rt::DriverError);
}

TEST_CASE("a cuda launch holds keep_alive until the kernel has completed", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto spin = load_test_kernel("spin");
  auto stream = gpu().create_stream();
  auto owner = std::make_shared<int>(1);
  std::weak_ptr<int> watch = owner;
  launch_spin(gpu(), *spin, *stream, {std::move(owner)});
  CHECK_FALSE(stream->query());
  CHECK_FALSE(watch.expired());
  stream->synchronize();
  CHECK(watch.expired());
}

TEST_CASE("keep_alive goes with a later launch's event, without a synchronize", "[cuda][gpu]") {
  if (gpu_missing()) return;
  // The cuda device records an event per 32 launches (CompletionList::kBatch): of 40
  // launches, the first 32 are released once that event has completed, the last 8 when
  // the stream is synchronised.
  auto fill = load_test_kernel("fill");
  auto stream = gpu().create_stream();
  auto memory = gpu().allocate(4, rt::MemoryKind::Device);
  std::vector<std::weak_ptr<int>> watches;
  for (int i = 0; i < 40; ++i) {
    auto owner = std::make_shared<int>(i);
    watches.push_back(owner);
    rt::KernelParams params(3);
    params.set(0, memory->device_pointer());
    params.set(1, int32_t(i));
    params.set(2, int32_t(1));
    gpu().launch(*fill, {1, 1, 1}, {1, 1, 1}, 0, *stream, std::move(params), {std::move(owner)});
  }
  auto event = gpu().create_event(false);
  event->record(*stream);
  event->synchronize();
  CHECK(watches[0].expired());
  CHECK(watches[31].expired());
  CHECK_FALSE(watches[39].expired());
  stream->synchronize();
  CHECK(watches[39].expired());
}

TEST_CASE("enqueue_host on cuda runs once the stream has reached it", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto spin = load_test_kernel("spin");
  auto stream = gpu().create_stream();
  bool ran = false;
  launch_spin(gpu(), *spin, *stream);
  stream->enqueue_host([&] { ran = true; });
  CHECK_FALSE(ran);
  stream->synchronize();
  CHECK(ran);
}

TEST_CASE("kernels on two cuda streams overlap", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto spin = load_test_kernel("spin");
  auto a = gpu().create_stream();
  auto b = gpu().create_stream();
  auto timed_start = gpu().create_event(true), timed_end = gpu().create_event(true);
  // One spin alone, for the reference time.
  timed_start->record(*a);
  launch_spin(gpu(), *spin, *a);
  timed_end->record(*a);
  timed_end->synchronize();
  float alone = timed_start->elapsed_ms(*timed_end);
  auto start = std::chrono::steady_clock::now();
  launch_spin(gpu(), *spin, *a);
  launch_spin(gpu(), *spin, *b);
  gpu().synchronize();
  double both =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  CHECK(alone > 10.0f);
  CHECK(both < 1.6 * alone);
}

TEST_CASE("cuda events record, query, synchronize and time", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto spin = load_test_kernel("spin");
  auto stream = gpu().create_stream();
  auto start = gpu().create_event(true), end = gpu().create_event(true);
  auto untimed = gpu().create_event(false), never = gpu().create_event(true);
  CHECK(never->query());
  start->record(*stream);
  launch_spin(gpu(), *spin, *stream);
  end->record(*stream);
  untimed->record(*stream);
  CHECK_FALSE(end->query());
  CHECK_THROWS_AS(start->elapsed_ms(*end), rt::DriverError);  // CUDA_ERROR_NOT_READY
  end->synchronize();
  CHECK(end->query());
  CHECK(start->elapsed_ms(*end) > 1.0f);
  CHECK_THROWS_WITH(start->elapsed_ms(*untimed), Contains("timing disabled"));
  CHECK_THROWS_WITH(start->elapsed_ms(*never), Contains("never recorded"));
}

TEST_CASE("Stream::wait on cuda orders work across streams", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto spin = load_test_kernel("spin");
  auto producer = gpu().create_stream();
  auto consumer = gpu().create_stream();
  auto event = gpu().create_event(false);
  launch_spin(gpu(), *spin, *producer);
  event->record(*producer);
  consumer->wait(*event);
  auto done = gpu().create_event(false);
  done->record(*consumer);
  CHECK_FALSE(done->query());  // the consumer waits for the spinning producer
  gpu().synchronize();
  CHECK(done->query());
}

TEST_CASE("cuda stream handles follow CUDA's values", "[cuda][gpu]") {
  if (gpu_missing()) return;
  CHECK(gpu().legacy_default_stream()->handle() == 0);
  CHECK(gpu().per_thread_default_stream()->handle() == 2);
  CHECK(gpu().external_stream(1) == gpu().legacy_default_stream());
  CHECK(gpu().external_stream(2) == gpu().per_thread_default_stream());
  auto created = gpu().create_stream();
  CHECK(created->handle() > 2);
  auto wrapped = gpu().external_stream(created->handle());
  CHECK(wrapped->handle() == created->handle());
  wrapped->synchronize();
  wrapped.reset();  // not owned: the stream itself stays usable
  CHECK(created->query());
}

TEST_CASE("the cuda device works from any host thread", "[cuda][gpu]") {
  if (gpu_missing()) return;
  auto fill = load_test_kernel("fill");
  auto memory = gpu().allocate(64 * 4, rt::MemoryKind::Device);
  std::vector<int32_t> result(64);
  // A fresh thread has no current context: each operation makes the primary one current.
  std::thread([&] {
    auto stream = gpu().create_stream();
    rt::KernelParams params(3);
    params.set(0, memory->device_pointer());
    params.set(1, int32_t(3));
    params.set(2, int32_t(64));
    gpu().launch(*fill, {1, 1, 1}, {64, 1, 1}, 0, *stream, std::move(params), {});
    gpu().copy(result.data(), memory->device_pointer(), 64 * 4, *stream);
    stream->synchronize();
  }).join();
  CHECK(result == std::vector<int32_t>(64, 3));
}
