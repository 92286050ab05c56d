// The JIT options that module loading and linking share: log buffers and the target.
#include <cstring>

#include "api_types.hpp"
#include "driver.hpp"

namespace cudajit::sim::driver {

namespace {

void write_log(char* buffer, size_t size, const std::string& text) {
  if (!buffer || size == 0) return;
  size_t n = std::min(size - 1, text.size());
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

}  // namespace

void JitLog::error(const std::string& text) const { write_log(error_log, error_log_size, text); }
void JitLog::info(const std::string& text) const { write_log(info_log, info_log_size, text); }

CUresult read_jit_options(unsigned count, CUjit_option* options, void** values, JitLog& out) {
  if (count > 0 && (!options || !values)) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < count; ++i) {
    switch (int(options[i])) {
      case CU_JIT_ERROR_LOG_BUFFER:
        out.error_log = static_cast<char*>(values[i]);
        break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        out.error_log_size = uintptr_t(values[i]);
        break;
      case CU_JIT_INFO_LOG_BUFFER:
        out.info_log = static_cast<char*>(values[i]);
        break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        out.info_log_size = uintptr_t(values[i]);
        break;
      case 0:  // CU_JIT_MAX_REGISTERS
        out.max_registers = int(uintptr_t(values[i]));
        break;
      case CU_JIT_TARGET: {  // a CUjit_target: 10 * major + minor, + 0x10000 for sm_90a's kind
        unsigned target = unsigned(uintptr_t(values[i]));
        out.target = "sm_" + std::to_string(target & 0xffff) +
                     (target & 0x10000   ? "a"
                      : target & 0x20000 ? "f"
                                         : "");
        break;
      }
      default:
        break;  // optimisation levels, register limits, caching: no effect on the simulator
    }
  }
  return CUDA_SUCCESS;
}

}  // namespace cudajit::sim::driver
