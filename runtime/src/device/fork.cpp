#include "cudajit/runtime/fork.hpp"

#include <pthread.h>

#include <atomic>

namespace cudajit::runtime {

namespace {

std::atomic<bool> g_started{false};
std::atomic<bool> g_forked{false};

void mark_child() { g_forked.store(true); }

}  // namespace

DevicesForked::DevicesForked()
    : std::runtime_error(
          "CUDA initialized before forking: this process was forked after cudajit started its "
          "devices, whose threads and driver state stay in the parent, so it cannot use "
          "them. Start worker processes with the 'spawn' or 'forkserver' method "
          "(multiprocessing.get_context('spawn'), concurrent.futures.ProcessPoolExecutor("
          "mp_context=...)), or fork before the first cudajit call") {}

void note_devices_started() {
  if (g_started.exchange(true)) return;
  pthread_atfork(nullptr, nullptr, &mark_child);
}

bool forked_after_start() noexcept { return g_forked.load(std::memory_order_relaxed); }

void check_not_forked() {
  if (forked_after_start()) throw DevicesForked();
}

}  // namespace cudajit::runtime
