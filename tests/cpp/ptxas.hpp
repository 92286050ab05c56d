// The CUDA toolkit in the C++ tests: running ptxas on generated PTX, and
// skipping what needs libdevice where it is missing.
#pragma once

#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cudajit/compiler/target.hpp"

namespace cudajit::testing {

// True (with a warning saying why) when libdevice is not found: the test
// returns early.
inline bool libdevice_missing() {
  try {
    cudajit::target::libdevice_path();
    return false;
  } catch (const std::runtime_error& error) {
    WARN("skipped: " << error.what());
    return true;
  }
}

// ptxas from $CUDA_HOME/bin, else /usr/local/cuda/bin; empty when neither has it.
inline std::string ptxas_path() {
  const char* home = std::getenv("CUDA_HOME");
  std::string path = std::string(home != nullptr ? home : "/usr/local/cuda") + "/bin/ptxas";
  if (std::filesystem::exists(path)) return path;
  return std::filesystem::exists("/usr/local/cuda/bin/ptxas") ? "/usr/local/cuda/bin/ptxas" : "";
}

// Runs ptxas on `ptx` (written to a temporary file); returns its exit status
// and fills `output` with what it printed.
inline int run_ptxas(const std::string& ptxas, const std::string& ptx, const std::string& arch,
                     std::string& output) {
  static std::atomic<int> counter{0};
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem =
      "cudajit_ptxas_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + arch;
  const std::string ptx_file = (dir / (stem + ".ptx")).string();
  const std::string cubin_file = (dir / (stem + ".cubin")).string();
  std::ofstream(ptx_file) << ptx;
  const std::string command =
      ptxas + " -arch=" + arch + " " + ptx_file + " -o " + cubin_file + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  std::filesystem::remove(ptx_file);
  std::filesystem::remove(cubin_file);
  return status;
}

}  // namespace cudajit::testing
