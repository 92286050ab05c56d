#include <chrono>
#include <stdexcept>

#include "cuda_device.hpp"
#include "cudajit/runtime/bench.hpp"

namespace cudajit::runtime {

double bare_launch_microseconds(Device& device, LoadedKernel& kernel, Dim3 grid, Dim3 block,
                                Stream& stream, KernelParams& params, int count) {
  auto* cuda = dynamic_cast<cuda::CudaDevice*>(&device);
  auto* function = dynamic_cast<cuda::CudaKernel*>(&kernel);
  if (!cuda || !function)
    throw std::invalid_argument("bare_launch_microseconds: the cuda device only, got " +
                                device.name());
  if (count < 1) throw std::invalid_argument("bare_launch_microseconds: count must be positive");
  const cuda::DriverApi& api = cuda->api();
  cuda->bind();
  auto handle = reinterpret_cast<CUstream>(stream.handle());
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i)
    cuda::check(api,
                api.cuLaunchKernel(function->function(), grid.x, grid.y, grid.z, block.x, block.y,
                                   block.z, 0, handle, params.pointers(), nullptr),
                "cuLaunchKernel");
  auto elapsed = std::chrono::steady_clock::now() - start;
  stream.synchronize();
  return std::chrono::duration<double, std::micro>(elapsed).count() / count;
}

}  // namespace cudajit::runtime
