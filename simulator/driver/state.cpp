// Streams as in-order queues with a worker thread each; the context's handle
// sets; the device models; the driver singleton.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "api_types.hpp"
#include "driver.hpp"

namespace cudajit::sim::driver {

const DeviceModel& device_model() {
  static const DeviceModel model = [] {
    DeviceModel m;
    const char* cc = std::getenv("CUDAJIT_SIM_CC");
    std::string wanted = cc && *cc ? cc : "9.0";
    if (wanted == "8.0") {
      m.major = 8, m.minor = 0, m.multiprocessors = 108, m.shared_per_block_optin = 166912;
      m.shared_per_multiprocessor = 167936, m.l2_bytes = 41943040, m.clock_khz = 1410000;
      m.name = "A100";
    } else if (wanted == "7.5") {
      m.major = 7, m.minor = 5, m.multiprocessors = 40, m.shared_per_block_optin = 65536;
      m.shared_per_multiprocessor = 65536, m.threads_per_multiprocessor = 1024;
      m.blocks_per_multiprocessor = 16, m.l2_bytes = 4194304, m.clock_khz = 1590000;
      m.total_memory = 16ull << 30, m.name = "T4";
    } else {
      if (wanted != "9.0")
        std::fprintf(stderr,
                     "cudajit simulated GPU: CUDAJIT_SIM_CC=%s is not one of 7.5, 8.0, 9.0; "
                     "simulating 9.0\n",
                     wanted.c_str());
      m.name = "H100";
    }
    m.name = "cudajit simulated GPU (" + m.name + ", sm_" + std::to_string(m.sm()) + ")";
    return m;
  }();
  return model;
}

// ---- streams

Stream::Stream(Kind kind, unsigned flags, int priority)
    : kind_(kind), flags_(flags), priority_(priority) {
  worker_ = std::thread([this] { work(); });
}

Stream::~Stream() {
  {
    std::lock_guard lock(progress_->mutex);
    stopping_ = true;
  }
  work_.notify_all();
  worker_.join();
}

Point Stream::enqueue(std::function<void()> task, std::vector<Point> waits, bool instant) {
  Progress& p = *progress_;
  if (instant) {
    bool ready = true;
    for (const Point& w : waits) ready = ready && (w.progress == progress_ || w.reached());
    std::lock_guard lock(p.mutex);
    if (ready && queue_.empty() && p.completed == p.submitted) {
      if (task) task();
      ++p.submitted, ++p.completed;
      return {progress_, p.submitted};
    }
  }
  std::lock_guard lock(p.mutex);
  queue_.emplace_back(std::move(waits), std::move(task));
  ++p.submitted;
  if (worker_idle_) work_.notify_all();
  return {progress_, p.submitted};
}

Point Stream::tail() {
  std::lock_guard lock(progress_->mutex);
  return {progress_, progress_->submitted};
}

void Stream::work() {
  Progress& p = *progress_;
  std::unique_lock lock(p.mutex);
  for (;;) {
    while (!stopping_ && queue_.empty()) {
      worker_idle_ = true;
      work_.wait(lock);
      worker_idle_ = false;
    }
    if (queue_.empty()) return;  // stopping, nothing left
    auto [waits, task] = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    for (const Point& w : waits)
      if (w.progress != progress_) w.wait();
    if (task) task();
    lock.lock();
    ++p.completed;
    if (p.waiters > 0) p.changed.notify_all();
  }
}

// ---- the context

Context::Context(uint64_t id, unsigned flags)
    : id(id), flags(flags), legacy(std::make_unique<Stream>(Stream::Kind::Legacy, 0)) {}

void Context::destroy() {
  synchronize();
  std::unordered_set<Stream*> created_streams;
  std::unordered_set<Library*> loaded_libraries;
  std::vector<Module*> loaded_modules;
  {
    std::lock_guard lock(mutex);
    created_streams.swap(streams);
    loaded_libraries.swap(libraries);
    for (Event* e : events) delete e;
    events.clear();
  }
  for (Stream* s : created_streams) delete s;  // idle: the destructor stops the worker
  per_thread.clear();
  for (Library* l : loaded_libraries) {
    unload_module(this, l->module);
    delete l;
  }
  {
    std::lock_guard lock(mutex);
    loaded_modules.assign(modules.begin(), modules.end());
  }
  for (Module* m : loaded_modules) unload_module(this, m);
  std::lock_guard lock(mutex);
  for (const auto& [address, allocation] : allocations) {
    memory.remove(address);
    if (allocation.kind != Allocation::Kind::HostRegistered)  // the caller's memory
      std::free(reinterpret_cast<void*>(uintptr_t(address)));
  }
  allocations.clear();
  destroyed.store(true);
}

Stream* Context::stream(CUstream handle) {
  if (handle == nullptr || handle == CU_STREAM_LEGACY) return legacy.get();
  std::lock_guard lock(mutex);
  if (handle == CU_STREAM_PER_THREAD) {
    auto& stream = per_thread[std::this_thread::get_id()];
    if (!stream) stream = std::make_unique<Stream>(Stream::Kind::PerThread, 0);
    return stream.get();
  }
  Stream* s = reinterpret_cast<Stream*>(handle);
  return streams.count(s) ? s : nullptr;
}

std::vector<Point> Context::implicit_waits(Stream* stream) {
  std::vector<Point> waits;
  if (stream->kind() == Stream::Kind::Legacy) {
    // The legacy stream waits for all blocking streams' work so far.
    std::lock_guard lock(mutex);
    for (Stream* s : streams)
      if (s->blocking()) waits.push_back(s->tail());
    for (auto& [id, s] : per_thread) waits.push_back(s->tail());
  } else if (stream->blocking()) {
    waits.push_back(legacy->tail());  // and blocking streams wait for the legacy stream
  }
  return waits;
}

void Context::synchronize() {
  legacy->tail().wait();
  std::vector<Stream*> all;
  {
    std::lock_guard lock(mutex);
    all.assign(streams.begin(), streams.end());
    for (auto& [id, s] : per_thread) all.push_back(s.get());
  }
  for (Stream* s : all) s->tail().wait();
}

void Context::fault(CUresult code, const std::string& message) {
  {
    std::lock_guard lock(fault_mutex);
    if (sticky.load() != CUDA_SUCCESS) return;  // the first fault is the one reported
    fault_message = message;
  }
  sticky.store(code);
  std::fprintf(stderr, "cudajit simulated GPU: %s\n", message.c_str());
}

// ---- the driver

Driver& driver() {
  static Driver* instance = [] {
    auto* d = new Driver();
    const char* execute = std::getenv("CUDAJIT_SIM_EXECUTE");
    d->execute = !(execute && std::strcmp(execute, "0") == 0);
    const char* threads = std::getenv("CUDAJIT_SIM_THREADS");
    d->threads = threads ? unsigned(std::atoi(threads)) : 0;
    return d;
  }();
  return *instance;
}

std::optional<std::string> read_file(const char* path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Context*& current_context() {
  thread_local Context* context = nullptr;
  return context;
}

bool live_context(Context* c) {
  Driver& d = driver();
  if (c != nullptr && c == d.primary) return true;
  std::lock_guard lock(d.contexts_mutex);
  return d.created.count(c) > 0;
}

CUresult check_context(Context*& context) {
  if (!driver().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  context = current_context();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (context->destroyed.load(std::memory_order_relaxed)) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  return context->sticky.load();
}

}  // namespace cudajit::sim::driver
