// Code generation targets: PTX through NVPTX + libdevice, native code through
// the host JIT. The modules are built by hand, so these tests do not depend on
// the lowering.
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cudajit/compiler/errors.hpp"
#include "cudajit/compiler/target.hpp"
#include "math_kernels.hpp"
#include "ptxas.hpp"

namespace target = cudajit::target;
using Catch::Matchers::Contains;

using cudajit::testing::libdevice_missing;
using cudajit::testing::make_math_calls_kernel;

namespace {

// kernel void k(float* out, float x, double y):
//   out[0] = __nv_sinf(x); out[1] = (float)__nv_pow(y, y)
std::unique_ptr<llvm::Module> make_math_kernel(llvm::LLVMContext& context,
                                               const std::string& callee = "__nv_sinf") {
  auto module = std::make_unique<llvm::Module>("math_kernel", context);
  llvm::IRBuilder<> b(context);
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* f64 = b.getDoubleTy();
  llvm::Type* ptr = b.getPtrTy();
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {ptr, f32, f64}, false);
  auto* kernel = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "k", *module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::FunctionCallee sinf =
      module->getOrInsertFunction(callee, llvm::FunctionType::get(f32, {f32}, false));
  llvm::FunctionCallee pow =
      module->getOrInsertFunction("__nv_pow", llvm::FunctionType::get(f64, {f64, f64}, false));

  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", kernel));
  llvm::Value* out = kernel->getArg(0);
  b.CreateStore(b.CreateCall(sinf, {kernel->getArg(1)}), out);
  llvm::Value* power = b.CreateCall(pow, {kernel->getArg(2), kernel->getArg(2)});
  b.CreateStore(b.CreateFPTrunc(power, f32), b.CreateConstGEP1_64(f32, out, 1));
  b.CreateRetVoid();
  return module;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// A function whose only block has no terminator.
std::unique_ptr<llvm::Module> make_invalid_module(llvm::LLVMContext& context,
                                                  const std::string& name) {
  auto module = std::make_unique<llvm::Module>("invalid", context);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
  auto* function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, *module);
  function->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::BasicBlock::Create(context, "entry", function);
  return module;
}

// Tests that link libdevice are skipped, with the reason, without a CUDA toolkit.

// The host entry signature: void entry(void** params, const LaunchDims*, i64, i64).
// Writes out[0] = (double)callee_f32(x) and out[1] = callee_f64(y), where
// params = {&out, &x, &y}.
std::unique_ptr<llvm::Module> make_host_entry(llvm::LLVMContext& context, const std::string& name,
                                              const std::string& f32_callee,
                                              const std::string& f64_callee) {
  auto module = std::make_unique<llvm::Module>("host_" + name, context);
  llvm::IRBuilder<> b(context);
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* f64 = b.getDoubleTy();
  auto* type = llvm::FunctionType::get(b.getVoidTy(),
                                       {ptr, ptr, b.getInt64Ty(), b.getInt64Ty(), ptr}, false);
  auto* entry = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, *module);
  llvm::FunctionCallee single =
      module->getOrInsertFunction(f32_callee, llvm::FunctionType::get(f32, {f32}, false));
  llvm::FunctionCallee twice =
      module->getOrInsertFunction(f64_callee, llvm::FunctionType::get(f64, {f64}, false));

  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value* params = entry->getArg(0);
  auto param = [&](int index, llvm::Type* value_type) {
    llvm::Value* slot = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, params, index));
    return b.CreateLoad(value_type, slot);
  };
  llvm::Value* out = param(0, ptr);
  b.CreateStore(b.CreateFPExt(b.CreateCall(single, {param(1, f32)}), f64), out);
  b.CreateStore(b.CreateCall(twice, {param(2, f64)}), b.CreateConstGEP1_64(f64, out, 1));
  b.CreateRetVoid();
  return module;
}

// Builds a host entry in a fresh context, jits it and runs it on (x, y).
void run_host_entry(const std::string& name, const std::string& f32_callee,
                    const std::string& f64_callee, float x, double y, double out[2]) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = make_host_entry(*context, name, f32_callee, f64_callee);
  auto entry = reinterpret_cast<target::HostEntry>(
      target::jit_host(std::move(module), std::move(context), name).address);
  REQUIRE(entry != nullptr);
  double* out_pointer = out;
  void* params[] = {&out_pointer, &x, &y};
  const target::LaunchDims dims{{1, 1, 1}, {1, 1, 1}};
  entry(params, &dims, 0, 1, nullptr);
}

}  // namespace

TEST_CASE("sm_name and ptx_feature give the lowest PTX ISA that supports each sm", "[target]") {
  CHECK(target::sm_name(80) == "sm_80");
  CHECK(target::ptx_feature(50) == "ptx40");
  CHECK(target::ptx_feature(53) == "ptx42");
  CHECK(target::ptx_feature(61) == "ptx50");
  CHECK(target::ptx_feature(70) == "ptx60");
  CHECK(target::ptx_feature(75) == "ptx63");
  CHECK(target::ptx_feature(80) == "ptx70");
  CHECK(target::ptx_feature(86) == "ptx71");
  CHECK(target::ptx_feature(87) == "ptx74");
  CHECK(target::ptx_feature(89) == "ptx78");
  CHECK(target::ptx_feature(90) == "ptx78");
}

TEST_CASE("an unknown compute capability is rejected with the supported list", "[target]") {
  CHECK_THROWS_AS(target::sm_name(81), std::invalid_argument);
  CHECK_THROWS_WITH(target::ptx_feature(35),
                    Contains("35") && Contains("supported") && Contains("50") && Contains("90"));
  llvm::LLVMContext context;
  CHECK_THROWS_AS(target::emit_ptx(make_math_kernel(context), {.cc = 81}), std::invalid_argument);
}

TEST_CASE("emit_ptx gives an sm_80 kernel entry in PTX 7.0", "[target][nvptx]") {
  if (libdevice_missing()) return;
  llvm::LLVMContext context;
  const std::string ptx = target::emit_ptx(make_math_kernel(context), {.cc = 80});
  CHECK_THAT(ptx, Contains(".version 7.0"));
  CHECK_THAT(ptx, Contains(".target sm_80"));
  CHECK_THAT(ptx, Contains(".entry k("));
  CHECK_THAT(ptx, !Contains("__nvvm_reflect"));
}

TEST_CASE("emit_ptx links only the libdevice functions the kernel calls", "[target][nvptx]") {
  if (libdevice_missing()) return;
  // At -O0 the unused always-inline __nv_ functions are dropped but not the
  // helpers they call, so these libdevice helpers would show had they been
  // linked: lgamma's (__nv_lgamma, __nv_tgamma) and double sin/cos's.
  llvm::LLVMContext context;
  const std::string ptx = target::emit_ptx(make_math_kernel(context), {.cc = 80, .opt_level = 0});
  CHECK_THAT(ptx, Contains(".entry k("));
  CHECK_THAT(ptx, !Contains("__internal_lgamma_pos"));
  CHECK_THAT(ptx, !Contains("__internal_trig_reduction_slowpathd"));
  CHECK_THAT(ptx, !Contains("__nv_cosf"));
  CHECK_THAT(ptx, !Contains("__nvvm_reflect"));
}

TEST_CASE("fastmath flushes float denormals in libdevice code", "[target][nvptx]") {
  if (libdevice_missing()) return;
  llvm::LLVMContext context;
  const std::string precise = target::emit_ptx(make_math_kernel(context), {.cc = 80});
  const std::string fast =
      target::emit_ptx(make_math_kernel(context), {.cc = 80, .fastmath = true});
  CHECK_THAT(precise, !Contains(".ftz.f32"));
  CHECK_THAT(fast, Contains(".ftz.f32"));
}

TEST_CASE("libdevice gets nvcc's __CUDA_PREC_SQRT: a rounded square root unless fastmath",
          "[target][nvptx]") {
  if (libdevice_missing()) return;
  // hypotf asks __nvvm_reflect("__CUDA_PREC_SQRT"), which LLVM's NVVMReflect
  // (before LLVM 21) answers 0: the approximate square root.
  llvm::LLVMContext context;
  const std::string precise =
      target::emit_ptx(make_math_calls_kernel(context, {"__nv_hypotf"}, 2), {});
  const std::string fast =
      target::emit_ptx(make_math_calls_kernel(context, {"__nv_hypotf"}, 2), {.fastmath = true});
  CHECK_THAT(precise, Contains("sqrt.rn.f32"));
  CHECK_THAT(precise, !Contains("sqrt.approx"));
  CHECK_THAT(fast, Contains("sqrt.approx.ftz.f32"));
}

TEST_CASE("libdevice helpers that two functions call are defined once", "[target][nvptx]") {
  if (libdevice_missing()) return;
  // Double sin and cos each call the noinline __internal_trig_reduction_slowpathd;
  // each function is optimised apart, and their copies must merge when linked.
  llvm::LLVMContext both_context;
  const std::string both = target::emit_ptx(
      make_math_calls_kernel(both_context, {"__nv_sin", "__nv_cos"}, 1, /*f64=*/true), {});
  // A forward declaration and a definition, of one function.
  CHECK(count(both, "__internal_trig_reduction_slowpathd(") == 1);  // the definition
  CHECK(count(both, ".func ") == 2);  // its forward declaration and its definition
}

TEST_CASE("max_registers gives kernels a .maxnreg directive", "[target][nvptx]") {
  if (libdevice_missing()) return;
  llvm::LLVMContext context;
  CHECK_THAT(target::emit_ptx(make_math_kernel(context), {}), !Contains(".maxnreg"));
  CHECK_THAT(target::emit_ptx(make_math_kernel(context), {.max_registers = 40}),
             Contains(".maxnreg 40"));
  CHECK_THROWS_WITH(target::emit_ptx(make_math_kernel(context), {.max_registers = -1}),
                    Contains("max_registers must be positive, got -1"));
}

TEST_CASE("emit_ptx targets the requested sm", "[target][nvptx]") {
  if (libdevice_missing()) return;
  llvm::LLVMContext context;
  const std::string ptx = target::emit_ptx(make_math_kernel(context), {.cc = 90});
  CHECK_THAT(ptx, Contains(".version 7.8"));
  CHECK_THAT(ptx, Contains(".target sm_90"));
}

TEST_CASE("ptxas accepts the PTX for sm_80 and sm_90", "[target][nvptx][ptxas]") {
  if (libdevice_missing()) return;
  const std::string ptxas = cudajit::testing::ptxas_path();
  if (ptxas.empty()) {
    WARN("skipped: ptxas not found ($CUDA_HOME/bin or /usr/local/cuda/bin)");
    return;
  }
  for (const int cc : {80, 90}) {
    for (const bool fastmath : {false, true}) {
      llvm::LLVMContext context;
      const std::string ptx =
          target::emit_ptx(make_math_kernel(context), {.cc = cc, .fastmath = fastmath});
      std::string output;
      const int status = cudajit::testing::run_ptxas(ptxas, ptx, target::sm_name(cc), output);
      INFO("sm_" << cc << (fastmath ? " fastmath" : "") << ": " << output);
      CHECK(status == 0);
    }
  }
}

TEST_CASE("emit_ptx may run on several threads at once", "[target][nvptx]") {
  if (libdevice_missing()) return;
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&results, i] {
      llvm::LLVMContext context;  // one context per thread, as LLVM requires
      results[i] = target::emit_ptx(make_math_kernel(context), {.cc = i % 2 == 0 ? 80 : 90});
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t i = 0; i < results.size(); ++i) {
    CHECK_THAT(results[i], Contains(i % 2 == 0 ? ".target sm_80" : ".target sm_90"));
    CHECK_THAT(results[i], Contains(".entry k("));
  }
}

TEST_CASE("a call to a function libdevice lacks is an LlvmError naming it", "[target][nvptx]") {
  if (libdevice_missing()) return;
  llvm::LLVMContext context;
  CHECK_THROWS_WITH(target::emit_ptx(make_math_kernel(context, "__nv_no_such_function"), {}),
                    Contains("__nv_no_such_function"));
}

TEST_CASE("invalid LLVM IR is an LlvmError carrying the verifier's report", "[target]") {
  llvm::LLVMContext context;
  CHECK_THROWS_AS(target::emit_ptx(make_invalid_module(context, "bad"), {}), cudajit::LlvmError);
  CHECK_THROWS_WITH(target::emit_ptx(make_invalid_module(context, "bad"), {}),
                    Contains("terminator"));

  auto host_context = std::make_unique<llvm::LLVMContext>();
  auto module = make_invalid_module(*host_context, "bad_host_entry");
  CHECK_THROWS_WITH(target::jit_host(std::move(module), std::move(host_context), "bad_host_entry"),
                    Contains("terminator"));
}

TEST_CASE("libdevice_path looks in $CUDA_HOME first", "[target][nvptx]") {
  const auto root =
      std::filesystem::temp_directory_path() / ("cudajit_cuda_home_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "nvvm" / "libdevice");
  const auto file = root / "nvvm" / "libdevice" / "libdevice.10.bc";
  std::ofstream(file) << "";
  const char* saved = std::getenv("CUDA_HOME");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("CUDA_HOME", root.c_str(), 1);
  const std::string path = target::libdevice_path();
  if (saved != nullptr) {
    ::setenv("CUDA_HOME", saved_value.c_str(), 1);
  } else {
    ::unsetenv("CUDA_HOME");
  }
  std::filesystem::remove_all(root);
  CHECK(path == file.string());
}

TEST_CASE("the host JIT resolves libm functions and matches <cmath>", "[target][host]") {
  double out[2] = {0, 0};
  run_host_entry("test_host_libm", "sinf", "tgamma", 0.5F, 4.5, out);
  CHECK(out[0] == Approx(std::sin(0.5F)).epsilon(1e-6));
  CHECK(out[1] == Approx(std::tgamma(4.5)).epsilon(1e-12));
}

TEST_CASE("a host object loads again under the same entry name, libm resolved", "[target][host]") {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = make_host_entry(*context, "test_host_object_again", "sinf", "cos");
  target::HostObject compiled =
      target::jit_host(std::move(module), std::move(context), "test_host_object_again");
  REQUIRE(!compiled.object.empty());
  // As a later process loads it from a disk cache: in a JITDylib of its own, so the name
  // already taken in this one does not clash.
  auto entry = reinterpret_cast<target::HostEntry>(
      target::load_host_object(compiled.object, "test_host_object_again"));
  REQUIRE(entry != nullptr);
  CHECK(reinterpret_cast<void*>(entry) != compiled.address);
  double out[2] = {0, 0};
  double* out_pointer = out;
  float x = 0.5f;
  double y = 0.25;
  void* params[] = {&out_pointer, &x, &y};
  const target::LaunchDims dims{{1, 1, 1}, {1, 1, 1}};
  entry(params, &dims, 0, 1, nullptr);
  CHECK(out[0] == static_cast<double>(std::sin(0.5f)));
  CHECK(out[1] == std::cos(0.25));
  CHECK_THROWS_WITH(target::load_host_object("not an object file", "x"),
                    Contains("cannot add host object"));
  CHECK(target::host_cpu_identity().find(target::host_triple()) == 0);
}

TEST_CASE("helpers of two host modules with the same name do not clash", "[target][host]") {
  // Each module defines its own external `helper`; the JIT must keep them apart.
  auto jit_with_helper = [](const std::string& entry_name, double factor) {
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>(entry_name, *context);
    llvm::IRBuilder<> b(*context);
    llvm::Type* f64 = b.getDoubleTy();
    llvm::Type* ptr = b.getPtrTy();
    auto* helper = llvm::Function::Create(llvm::FunctionType::get(f64, false),
                                          llvm::Function::ExternalLinkage, "helper", *module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", helper));
    b.CreateRet(llvm::ConstantFP::get(f64, factor));
    auto* type = llvm::FunctionType::get(b.getVoidTy(),
                                         {ptr, ptr, b.getInt64Ty(), b.getInt64Ty(), ptr}, false);
    auto* entry =
        llvm::Function::Create(type, llvm::Function::ExternalLinkage, entry_name, *module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", entry));
    llvm::Value* out = b.CreateLoad(ptr, entry->getArg(0));
    b.CreateStore(b.CreateCall(helper), out);
    b.CreateRetVoid();
    return reinterpret_cast<target::HostEntry>(
        target::jit_host(std::move(module), std::move(context), entry_name).address);
  };
  target::HostEntry first = jit_with_helper("test_host_helper_1", 1.0);
  target::HostEntry second = jit_with_helper("test_host_helper_2", 2.0);
  double result = 0;
  void* params[] = {&result};
  first(params, nullptr, 0, 0, nullptr);
  CHECK(result == 1.0);
  second(params, nullptr, 0, 0, nullptr);
  CHECK(result == 2.0);
}

TEST_CASE("an unresolved symbol in a host module is an LlvmError naming it", "[target][host]") {
  double out[2];
  CHECK_THROWS_WITH(
      run_host_entry("test_host_unresolved", "sinf", "cudajit_no_such_symbol", 1.0F, 1.0, out),
      Contains("cudajit_no_such_symbol"));
}

TEST_CASE("the host triple and data layout describe this machine", "[target][host]") {
  CHECK_FALSE(target::host_triple().empty());
  CHECK_FALSE(target::host_data_layout().empty());
#if defined(__x86_64__)
  CHECK_THAT(target::host_triple(), Contains("x86_64"));
#endif
}

TEST_CASE("a GPU newer than the table gets the PTX of the newest capability known",
          "[target][nvptx]") {
  CHECK(target::ptx_cc_for_device(80) == 80);
  CHECK(target::ptx_cc_for_device(88) == 87);
  CHECK(target::ptx_cc_for_device(120) == 90);
  CHECK_THROWS_WITH(target::ptx_cc_for_device(35), Contains("unsupported compute capability 35"));
}
