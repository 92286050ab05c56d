// Runs hand-written PTX on the simulator without the driver: a module, device
// buffers registered as global memory, a launch, and the buffers read back.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "exec/device_heap.hpp"
#include "exec/executor.hpp"
#include "ptx/module.hpp"

namespace cudajit::sim::testing {

// A PTX module with the usual header (PTX ISA 7.8, sm_80, 64-bit) before `body`.
inline std::string ptx_module(const std::string& body, const std::string& target = "sm_80") {
  return ".version 7.8\n.target " + target + "\n.address_size 64\n\n" + body;
}

inline std::unique_ptr<Program> load(const std::string& text) { return decode(ptx::parse(text)); }

// Device memory for a test: host buffers that kernels may touch.
class TestMemory {
 public:
  template <class T>
  T* buffer(std::vector<T> values) {
    auto bytes = std::make_unique<uint8_t[]>(std::max<size_t>(values.size() * sizeof(T), 1));
    std::memcpy(bytes.get(), values.data(), values.size() * sizeof(T));
    T* p = reinterpret_cast<T*>(bytes.get());
    memory.add(uint64_t(uintptr_t(p)), values.size() * sizeof(T), "test buffer");
    buffers_.push_back(std::move(bytes));
    return p;
  }
  GlobalMemory memory;
  DeviceHeap heap{memory};  // kernels' malloc and free

 private:
  std::vector<std::unique_ptr<uint8_t[]>> buffers_;
};

// Launches `kernel` of `program`; `args` are pointers to each parameter's value.
inline LaunchStats launch(const Program& program, const std::string& kernel, Dim3 grid, Dim3 block,
                          std::vector<void*> args, GlobalMemory& memory,
                          uint64_t dynamic_shared = 0, unsigned threads = 1,
                          DeviceHeap* heap = nullptr) {
  const Function* f = program.find(kernel);
  if (!f) throw std::runtime_error("no kernel " + kernel);
  Launch l;
  l.program = &program;
  l.kernel = f;
  l.memory = &memory;
  l.grid = grid;
  l.block = block;
  l.dynamic_shared_bytes = dynamic_shared;
  l.heap = heap;
  l.params = pack_params(*f, args.data(), long(args.size()));
  return execute(l, threads);
}

// Launches one block of `block` threads of `kernel`, whose first parameter is an output buffer
// of `n` T (zeroed) and whose other parameters are `more`; returns the buffer.
template <class T>
std::vector<T> run_with_output(const Program& program, const std::string& kernel, size_t n,
                               Dim3 block, std::vector<void*> more = {}) {
  TestMemory memory;
  for (const auto& g : program.globals)  // module variables, as the driver's loader adds them
    memory.memory.add(uint64_t(uintptr_t(g->storage.data())), g->storage.size(), g->name);
  T* out = memory.buffer(std::vector<T>(n));
  uint64_t address = uint64_t(uintptr_t(out));
  more.insert(more.begin(), &address);
  launch(program, kernel, {1, 1, 1}, block, more, memory.memory, 0, 1, &memory.heap);
  return std::vector<T>(out, out + n);
}

// One thread per element: `kernel(const T* in, R* out, n)`-style helpers are built on this.
// Runs a kernel taking (u64 out, u64 a, u64 b, u32 n) over n threads in blocks of 64.
template <class R, class A, class B = A>
std::vector<R> run_binary(const std::string& ptx, const std::vector<A>& a, const std::vector<B>& b,
                          const std::string& kernel = "k") {
  auto program = load(ptx);
  TestMemory memory;
  uint32_t n = uint32_t(a.size());
  R* out = memory.buffer(std::vector<R>(n));
  A* pa = memory.buffer(a);
  B* pb = memory.buffer(b.empty() ? std::vector<B>(n) : b);
  uint64_t out_address = uint64_t(uintptr_t(out)), a_address = uint64_t(uintptr_t(pa)),
           b_address = uint64_t(uintptr_t(pb));
  launch(*program, kernel, {(n + 63) / 64, 1, 1}, {64, 1, 1},
         {&out_address, &a_address, &b_address, &n}, memory.memory);
  return std::vector<R>(out, out + n);
}

}  // namespace cudajit::sim::testing
