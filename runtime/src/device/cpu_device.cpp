// The cpu device: memory, copies, kernels and launches. Streams and their
// order are in cpu_stream.cpp, events in cpu_event.cpp.
#include "cpu_device.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "cudajit/runtime/host_launch.hpp"
#include "cudajit/runtime/interrupt.hpp"
#include "launch_config.hpp"

namespace cudajit::runtime {

namespace {

constexpr size_t kAlignment = 256;  // cuMemAlloc's alignment

// Allocations this large ask for transparent huge pages, as NumPy's do (its threshold):
// streaming kernels read them with fewer TLB misses and prefetchers that are not stopped at
// every 4 KiB page (saxpy over 64 MiB arrays: 6.3 -> 5.5 ms on 2 cores). Only a hint: where
// the system has huge pages off, or refuses, the memory is the same.
constexpr size_t kHugePageThreshold = size_t(4) << 20;

void ask_for_huge_pages(void* data, size_t bytes) {
  const auto page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (uintptr_t(data) + page - 1) / page * page;
  uintptr_t end = (uintptr_t(data) + bytes) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace

// --- memory ---------------------------------------------------------------------

void CpuAllocation::Free::operator()(void* p) const { std::free(p); }

CpuAllocation::CpuAllocation(CpuDevice& device, size_t bytes, MemoryKind kind)
    : device_(device), size_(bytes), kind_(kind) {
  if (bytes == 0) return;  // no memory, a null pointer (as a zero-size CAI array has)
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;  // aligned_alloc needs it
  if (bytes <= SIZE_MAX - kAlignment) data_.reset(std::aligned_alloc(kAlignment, rounded));
  if (!data_)
    throw OutOfMemory("cpu device: out of memory allocating " + std::to_string(bytes) + " bytes");
  if (rounded >= kHugePageThreshold) ask_for_huge_pages(data_.get(), rounded);
  device_.track(data_.get(), bytes);
}

CpuAllocation::~CpuAllocation() {
  if (data_) device_.untrack(data_.get());
}

Device& CpuAllocation::device() const { return device_; }

// --- kernels ----------------------------------------------------------------------

KernelResources CpuKernel::resources() const {
  KernelResources r;
  r.static_shared_bytes = int64_t(code_.static_shared_bytes);
  r.max_threads_per_block = 1024;
  return r;
}

int64_t CpuKernel::max_resident_blocks(uint64_t block_threads, size_t) {
  return int64_t(host_cooperative_blocks(block_threads));
}

// --- the device -----------------------------------------------------------------

CpuDevice::CpuDevice() : legacy_(make_stream(kLegacyStreamHandle)) {
  limits_.multiprocessors = static_cast<int>(host_worker_count());
  // What the generated code assumes of its launches (its !range on blockDim and gridDim).
  for (int d = 0; d < 3; ++d) {
    limits_.max_grid[d] = target::kHostMaxGrid[d];
    limits_.max_block[d] = target::kHostMaxBlock[d];
  }
}

std::shared_ptr<Allocation> CpuDevice::allocate(size_t bytes, MemoryKind kind) {
  // Every kind is plain host memory: pinned, mapped and managed need nothing more here.
  return queued_allocation([&] { return std::make_unique<CpuAllocation>(*this, bytes, kind); });
}

void CpuDevice::track(const void* begin, size_t bytes) {
  std::lock_guard lock(ranges_mutex_);
  ranges_[uintptr_t(begin)] = uintptr_t(begin) + bytes;
}

void CpuDevice::untrack(const void* begin) {
  std::lock_guard lock(ranges_mutex_);
  ranges_.erase(uintptr_t(begin));
}

bool CpuDevice::tracked(const void* begin, size_t bytes) {
  std::lock_guard lock(ranges_mutex_);
  auto it = ranges_.upper_bound(uintptr_t(begin));
  if (it == ranges_.begin()) return false;
  --it;
  return uintptr_t(begin) >= it->first && uintptr_t(begin) + bytes <= it->second;
}

void CpuDevice::copy(void* dst, const void* src, size_t bytes, Stream& stream,
                     std::vector<std::shared_ptr<const void>> keep_alive) {
  if (bytes == 0) return;
  CpuStream& s = own(stream);
  if (!tracked(src, bytes)) {  // pageable source: read now, into a staging buffer
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src),
                                                      static_cast<const char*>(src) + bytes);
    src = staged->data();
    keep_alive.push_back(std::move(staged));
  }
  enqueue(s,
          [dst, src, bytes, keep_alive = std::move(keep_alive)] { std::memcpy(dst, src, bytes); });
  if (!tracked(dst, bytes)) s.synchronize();  // pageable destination: complete on return
}

void CpuDevice::check_accessible(const void*) {}

std::shared_ptr<void> CpuDevice::register_host(void* ptr, size_t bytes) {
  // Host memory is what kernels use here already; registering only makes copies with it
  // asynchronous, as page-locking does on a GPU.
  track(ptr, bytes);
  return std::shared_ptr<void>(ptr, [this](void* p) { untrack(p); });
}

void CpuDevice::memset(void* dst, int value, size_t bytes, Stream& stream,
                       std::vector<std::shared_ptr<const void>> keep_alive) {
  enqueue(own(stream), [dst, value, bytes, keep_alive = std::move(keep_alive)] {
    if (bytes != 0) std::memset(dst, value, bytes);
  });
}

std::shared_ptr<Event> CpuDevice::create_event(bool timing) {
  return std::make_shared<CpuEvent>(*this, timing);
}

std::shared_ptr<LoadedKernel> CpuDevice::load(const KernelCode& code) {
  if (!code.host)
    throw std::invalid_argument(
        "the cpu device runs host code: KernelCode::host has no entry" +
        (code.entry_name.empty() ? std::string() : " for kernel " + code.entry_name) +
        " (PTX is for the cuda device)");
  return std::make_shared<CpuKernel>(
      code.host, code.kernel_name.empty() ? code.entry_name : code.kernel_name, code.source_file);
}

std::string CpuKernelInfo::index_error_message(const target::IndexErrorRecord& record) const {
  std::string where = source_file.empty() ? std::string("line ") : source_file + ":";
  where += std::to_string(record.line) + ":" + std::to_string(record.col + 1);
  return "kernel '" + name + "' (" + where + "): index " + std::to_string(record.index) +
         " is out of bounds for axis " + std::to_string(record.axis) + " with size " +
         std::to_string(record.extent) +
         " (the access was skipped; CUDAJIT_BOUNDSCHECK=0 turns the cpu device's checks off)";
}

void CpuDevice::launch(LoadedKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                       Stream& stream, KernelParams params,
                       std::vector<std::shared_ptr<const void>> keep_alive) {
  auto* cpu_kernel = dynamic_cast<CpuKernel*>(&kernel);
  if (cpu_kernel == nullptr)
    throw std::invalid_argument("the cpu device can launch only kernels it loaded");
  check_launch_config(limits_, grid, block, shared_bytes, "cpu");
  host_stream_bytes();  // std::invalid_argument for a bad CUDAJIT_CPU_STREAM_BYTES
  const target::HostKernel& code = cpu_kernel->code();
  if (code.static_shared_bytes + shared_bytes > limits_.max_shared_per_block)
    throw std::invalid_argument(
        "kernel '" + cpu_kernel->name() + "' uses " + std::to_string(code.static_shared_bytes) +
        " bytes of static shared memory; with " + std::to_string(shared_bytes) +
        " dynamic bytes that exceeds the limit of " + std::to_string(limits_.max_shared_per_block) +
        " bytes per block on device cpu");
  if (code.cooperative)
    check_cooperative_grid(cpu_kernel->name(), grid, block,
                           int64_t(host_cooperative_blocks(block.count())), "cpu");
  // Grids queued before a Ctrl-C stop too (cancel_host_grids()).
  enqueue(own(stream),
          [code, grid, block, shared_bytes, info = cpu_kernel->info(), params = std::move(params),
           keep_alive = std::move(keep_alive), epoch = host_grid_epoch()]() mutable {
            target::IndexErrorRecord errors;
            try {
              launch_host(code, grid, block, shared_bytes, params.pointers(), params.large_arrays(),
                          &errors, epoch);
            } catch (const BarrierError& e) {
              throw BarrierError("kernel '" + info->name + "': " + e.what());
            } catch (const StackOverflowError& e) {
              throw StackOverflowError("kernel '" + info->name + "': " + e.what());
            }
            // Surfaces at the stream's next synchronisation, as a CUDA launch error does.
            if (errors.flag) throw KernelIndexError(info->index_error_message(errors));
          });
}

std::pair<uint64_t, uint64_t> CpuDevice::memory_info() {
  // Device memory is host memory: what the host has available, of its total.
  const long page = sysconf(_SC_PAGESIZE);
  const long available = sysconf(_SC_AVPHYS_PAGES), total = sysconf(_SC_PHYS_PAGES);
  if (page <= 0 || available < 0 || total <= 0) return {0, 0};
  return {uint64_t(available) * uint64_t(page), uint64_t(total) * uint64_t(page)};
}

CpuStream& CpuDevice::own(Stream& stream) {
  // As CudaDevice::own: a stream of this device is a CpuStream.
  auto* cpu_stream = &stream.device() == this ? static_cast<CpuStream*>(&stream) : nullptr;
  if (cpu_stream == nullptr)
    throw std::invalid_argument("expected a stream of the cpu device, got one of device " +
                                stream.device().name());
  return *cpu_stream;
}

CpuEvent& CpuDevice::own(Event& event) {
  auto* cpu_event = dynamic_cast<CpuEvent*>(&event);
  if (cpu_event == nullptr)
    throw std::invalid_argument("expected an event of the cpu device, got one of another device");
  return *cpu_event;
}

}  // namespace cudajit::runtime
