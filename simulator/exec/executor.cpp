#include "executor.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "checks.hpp"
#include "grid_sync.hpp"
#include "racecheck.hpp"

namespace cudajit::sim {

std::vector<uint8_t> pack_params(const Function& kernel, void** params, long count) {
  std::vector<uint8_t> packed(kernel.kernel_param_bytes, 0);
  size_t expected = kernel.param_offsets.size();
  if (count >= 0 && size_t(count) != expected)
    throw ExecutionFault(Fault::InvalidParameter,
                         "kernel '" + kernel.name + "' takes " + std::to_string(expected) +
                             " parameters, the launch passed " + std::to_string(count));
  if (expected > 0 && params == nullptr)
    throw ExecutionFault(Fault::InvalidParameter, "kernel '" + kernel.name + "' takes " +
                                                      std::to_string(expected) +
                                                      " parameters, kernelParams is NULL");
  for (size_t i = 0; i < expected; ++i) {
    if (params[i] == nullptr)
      throw ExecutionFault(Fault::InvalidParameter, "kernel '" + kernel.name + "': parameter " +
                                                        std::to_string(i) + " is a NULL pointer");
    std::memcpy(packed.data() + kernel.param_offsets[i], params[i], kernel.param_sizes[i]);
  }
  return packed;
}

LaunchStats execute(const Launch& launch, unsigned threads) {
  const uint64_t blocks = launch.grid.count();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<uint64_t>(threads, blocks));
  // A cooperative grid's blocks wait for each other: all of them run at once.
  if (launch.cooperative) threads = unsigned(blocks);
  std::atomic<int64_t> first_block_end_ns{0};
  std::atomic<uint64_t> next{0};
  std::atomic<bool> abort{false};
  Launch local = launch;  // abort flag and printf output of this execution
  if (!local.abort) local.abort = &abort;
  PrintfOutput printed;
  local.printf = &printed;
  CheckReports reports;
  if (launch.program->checks) local.reports = &reports;
  local.first_block_end_ns = &first_block_end_ns;
  std::optional<GridSync> grid_sync;  // its workspace is global memory while the grid runs
  if (launch.cooperative) local.grid_sync = &grid_sync.emplace(blocks, launch.memory);
  std::mutex mutex;
  std::exception_ptr failure;
  std::atomic<uint64_t> total{0};
  Profile profile;  // the workers' counts, added under `mutex`

  auto worker = [&] {
    RaceShadow race;
    Block block;
    if (launch.program->checks & kRaceCheck) block.race = &race;
    uint64_t instructions = 0;
    try {
      for (uint64_t b; !local.abort->load(std::memory_order_relaxed) &&
                       (b = next.fetch_add(1, std::memory_order_relaxed)) < blocks;) {
        block.index.x = uint32_t(b % launch.grid.x);
        block.index.y = uint32_t(b / launch.grid.x % launch.grid.y);
        block.index.z = uint32_t(b / (uint64_t(launch.grid.x) * launch.grid.y));
        run_block(local, block, &instructions);
        int64_t none = 0;
        first_block_end_ns.compare_exchange_strong(none, steady_now_ns(),
                                                   std::memory_order_relaxed);
        if (grid_sync) grid_sync->block_finished();
      }
    } catch (...) {
      {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        local.abort->store(true);
      }
      if (grid_sync) grid_sync->wake();  // blocks waiting at a grid sync stop
    }
    total += instructions;
    std::lock_guard lock(mutex);
    profile.add(block.counts);
  };
  if (threads <= 1) {
    worker();
  } else {
    // Joined on every way out, as std::jthread would (which GCC 16 builds on
    // libstdc++ symbols no manylinux tag allows).
    std::vector<std::thread> pool;
    struct JoinAll {
      std::vector<std::thread>& pool;
      ~JoinAll() {
        for (std::thread& t : pool) t.join();
      }
    } join_all{pool};
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  }
  // What the kernel printed reaches stdout before the launch counts as done
  // (a fault too: lines printed before it are shown, as the driver does).
  for (size_t written = 0; written < printed.text.size();) {
    ssize_t n = ::write(1, printed.text.data() + written, printed.text.size() - written);
    if (n <= 0) break;
    written += size_t(n);
  }
  // The checks' findings, as compute-sanitizer reports them: the kernel ran on.
  std::vector<std::string> found = reports.lines();
  for (const std::string& line : found)
    std::fprintf(stderr, "cudajit simulated GPU: %s\n", line.c_str());
  if (failure) std::rethrow_exception(failure);
  profile.thread_instructions = total.load();
  return {total.load(), profile, std::move(found)};
}

}  // namespace cudajit::sim
