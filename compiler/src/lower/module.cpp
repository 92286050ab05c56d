// The LLVM module of a typed program: types, function declarations, and the
// entries that unpack flattened kernel parameters (a kernel's .entry, the cpu
// device's grid loop).
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../dump.hpp"
#include "cudajit/compiler/target.hpp"
#include "fission.hpp"
#include "lowering.hpp"

namespace cudajit::lower {

using typing::TypedFunction;

llvm::Type* ModuleLowering::scalar_type(Scalar s) {
  switch (s) {
    case Scalar::Bool:
      return llvm::Type::getInt1Ty(context);
    case Scalar::Float16:
      return llvm::Type::getHalfTy(context);
    case Scalar::BFloat16:
      return llvm::Type::getBFloatTy(context);
    case Scalar::Float32:
      return llvm::Type::getFloatTy(context);
    case Scalar::Float64:
      return llvm::Type::getDoubleTy(context);
    case Scalar::Complex64:
    case Scalar::Complex128: {
      llvm::Type* part = scalar_type(complex_part(s));
      return llvm::StructType::get(context, {part, part});
    }
    default:
      return llvm::Type::getIntNTy(context, bit_width(s));
  }
}

llvm::Type* ModuleLowering::memory_type(Scalar s) {
  return s == Scalar::Bool ? llvm::Type::getInt8Ty(context) : scalar_type(s);
}

llvm::StructType* ModuleLowering::array_struct(int ndim) {
  llvm::Type* dims = llvm::ArrayType::get(llvm::Type::getInt64Ty(context), ndim);
  return llvm::StructType::get(context, {llvm::PointerType::get(context, 0), dims, dims});
}

llvm::Type* ModuleLowering::value_type(const Type& t) {
  switch (t.kind()) {
    case Type::Kind::None:
      return llvm::Type::getVoidTy(context);
    case Type::Kind::Scalar:
      return scalar_type(t.scalar());
    case Type::Kind::Array:
      return array_struct(t.ndim());
    case Type::Kind::Record:  // the address of the record
    case Type::Kind::Pointer:
      return llvm::PointerType::get(context, 0);
    case Type::Kind::Optional:  // the number, and whether there is one (not None)
      return llvm::StructType::get(
          context, {value_type(t.optional_value()), llvm::Type::getInt1Ty(context)});
    case Type::Kind::Tuple: {
      std::vector<llvm::Type*> elements;
      for (const Type& e : t.elements()) elements.push_back(value_type(e));
      return llvm::StructType::get(context, elements);
    }
  }
  return nullptr;
}

llvm::StructType* ModuleLowering::thread_ctx_type() {
  // target::HostThreadContext: threadIdx, blockDim, blockIdx, gridDim (3 x i32
  // each, in that order); the launch's IndexErrorRecord*; the block's shared
  // memory, its dynamic part and that part's size (i64); the barrier and warp
  // functions, the runtime's state of the thread, whether it raised (i32); the
  // stack limit of recursion (i64), the launch's stack-overflow flag and its abandon flag;
  // the arrays updated in private copies (i64 bits).
  auto* ptr = llvm::PointerType::get(context, 0);
  auto* i32 = llvm::Type::getInt32Ty(context);
  auto* i64 = llvm::Type::getInt64Ty(context);
  return llvm::StructType::get(context, {llvm::ArrayType::get(i32, 12), ptr, ptr, ptr, i64, ptr,
                                         ptr, ptr, i32, i64, ptr, ptr, i64});
}

llvm::StructType* ModuleLowering::error_record_type() {
  // target::IndexErrorRecord: flag, axis, line, col (i32), index, extent (i64), scratch.
  auto* i32 = llvm::Type::getInt32Ty(context);
  auto* i64 = llvm::Type::getInt64Ty(context);
  return llvm::StructType::get(context, {i32, i32, i32, i32, i64, i64,
                                         llvm::ArrayType::get(llvm::Type::getInt8Ty(context), 16)});
}

llvm::Function* ModuleLowering::declare(const TypedFunction& f) {
  auto found = functions.find(&f);
  if (found != functions.end()) return found->second;
  std::vector<llvm::Type*> params;
  if (hooks.has_thread_ctx() || grid_workspace)
    params.push_back(llvm::PointerType::get(context, 0));
  for (const Type& t : f.arg_types) params.push_back(value_type(t));
  auto* type = llvm::FunctionType::get(value_type(f.return_type), params, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::InternalLinkage, f.symbol, module);
  if (f.function->inline_mode == "force") fn->addFnAttr(llvm::Attribute::AlwaysInline);
  functions[&f] = fn;
  return fn;
}

llvm::FunctionCallee ModuleLowering::math_function(std::string_view name, Scalar float_type,
                                                   int arity) {
  llvm::Type* t = scalar_type(float_type);
  std::vector<llvm::Type*> params(arity, t);
  std::string symbol = hooks.math_symbol(name, float_type == Scalar::Float32);
  if (options.fastmath && float_type == Scalar::Float32) {
    std::string fast = hooks.fast_math_symbol(name);
    if (!fast.empty()) symbol = fast;
  }
  return module.getOrInsertFunction(symbol, llvm::FunctionType::get(t, params, false));
}

}  // namespace cudajit::lower

namespace cudajit {

namespace {

// A tuple argument is its items' parameters, in order (recursively).
void add_layout(const Type& t, int& next, std::vector<ParamLayout>& layout) {
  if (t.is_tuple()) {
    for (const Type& item : t.elements()) add_layout(item, next, layout);
    return;
  }
  int count = t.is_array() ? 1 + 2 * t.ndim() : 1;
  layout.push_back({t, next, count});
  next += count;
}

}  // namespace

std::vector<ParamLayout> param_layout(const std::vector<Type>& arg_types) {
  std::vector<ParamLayout> layout;
  int next = 0;
  for (const Type& t : arg_types) add_layout(t, next, layout);
  return layout;
}

}  // namespace cudajit

namespace cudajit::lower {

llvm::BranchInst* counted_loop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end,
                               const std::function<void(llvm::Value*)>& body, bool runs) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(b.getContext(), "loop", fn);
  auto* exit = llvm::BasicBlock::Create(b.getContext(), "loop.end", fn);
  if (runs)
    b.CreateBr(head);
  else
    b.CreateCondBr(b.CreateICmpSLT(begin, end), head, exit);
  b.SetInsertPoint(head);
  llvm::PHINode* v = b.CreatePHI(begin->getType(), 2);
  v->addIncoming(begin, pre);
  body(v);
  // v < end: v + 1 does not overflow (nsw lets SCEV count the trips without a wrap check)
  llvm::Value* next = b.CreateNSWAdd(v, llvm::ConstantInt::get(begin->getType(), 1));
  v->addIncoming(next, b.GetInsertBlock());
  llvm::BranchInst* latch = b.CreateCondBr(b.CreateICmpSLT(next, end), head, exit);
  b.SetInsertPoint(exit);
  return latch;
}

void set_loop_hint(llvm::BranchInst* latch, const char* hint) {
  llvm::LLVMContext& c = latch->getContext();
  llvm::Metadata* property = llvm::MDNode::get(c, llvm::MDString::get(c, hint));
  llvm::MDNode* id = llvm::MDNode::getDistinct(c, {nullptr, property});
  id->replaceOperandWith(0, id);  // a loop's ID names itself
  latch->setMetadata(llvm::LLVMContext::MD_loop, id);
}

void mark_outer_loop(llvm::BranchInst* latch) { set_loop_hint(latch, "llvm.loop.unroll.disable"); }

void mark_thread_loop(llvm::BranchInst* latch, bool lockstep) {
  // A thread loop's trip count is unknown: runtime unrolling is all LLVM could do, and it is
  // off. A lockstep row is never unrolled at all, so LLVM stops working out the trip counts
  // it would need (mandelbrot's optimisation 18 -> 16 ms); that would also turn off
  // interleaving, which a lockstep row sets itself.
  set_loop_hint(latch, lockstep ? "llvm.loop.unroll.disable" : "llvm.loop.unroll.runtime.disable");
  if (!lockstep) return;
  // 16 lanes, not interleaved, the row's last lanes masked instead of a scalar remainder
  // (less code to compile, and rows of fewer than 16 threads vectorise too): LLVM's cost
  // model picks 8 lanes for a lockstep iteration's masked loads and stores, which is half
  // as fast (mandelbrot 31 -> 15 ms, a float64 Newton iteration 16 -> 6.5 ms; 32 lanes 18
  // and 7.8 ms), and a row is often a single warp.
  llvm::LLVMContext& c = latch->getContext();
  auto property = [&](const char* name, llvm::Constant* value) -> llvm::Metadata* {
    return llvm::MDNode::get(c,
                             {llvm::MDString::get(c, name), llvm::ConstantAsMetadata::get(value)});
  };
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::MDNode* id = latch->getMetadata(llvm::LLVMContext::MD_loop);
  llvm::MDNode* hints = llvm::MDNode::getDistinct(
      c, {nullptr, id->getOperand(1),
          property("llvm.loop.vectorize.width", llvm::ConstantInt::get(i32, 16)),
          property("llvm.loop.interleave.count", llvm::ConstantInt::get(i32, 1)),
          property("llvm.loop.vectorize.predicate.enable", llvm::ConstantInt::getTrue(c))});
  hints->replaceOperandWith(0, hints);
  latch->setMetadata(llvm::LLVMContext::MD_loop, hints);
}

namespace {

// Rebuilds the kernel-language values of the arguments from the flattened
// parameters; `param(i, type)` yields flattened parameter i as `type`.
std::vector<llvm::Value*> unflatten_args(
    ModuleLowering& m, llvm::IRBuilder<>& b, const std::vector<Type>& arg_types,
    const std::function<llvm::Value*(int, llvm::Type*)>& param) {
  std::vector<llvm::Value*> leaves;
  auto* i64 = b.getInt64Ty();
  for (const ParamLayout& p : param_layout(arg_types)) {
    const Type& t = p.type;
    if (t.is_array()) {
      llvm::Value* a = llvm::UndefValue::get(m.array_struct(t.ndim()));
      a = b.CreateInsertValue(a, param(p.first_param, b.getPtrTy()), {0});
      for (int d = 0; d < t.ndim(); ++d) {
        a = b.CreateInsertValue(a, param(p.first_param + 1 + d, i64), {1, unsigned(d)});
        a = b.CreateInsertValue(a, param(p.first_param + 1 + t.ndim() + d, i64), {2, unsigned(d)});
      }
      leaves.push_back(a);
    } else if (t.is_record() || t.is_pointer()) {
      leaves.push_back(param(p.first_param, b.getPtrTy()));
    } else {
      llvm::Value* v = param(p.first_param, m.memory_type(t.scalar()));
      if (t.scalar() == Scalar::Bool) v = b.CreateICmpNE(v, b.getInt8(0));
      leaves.push_back(v);
    }
  }
  // Tuple arguments gather their items' values again.
  size_t next = 0;
  std::function<llvm::Value*(const Type&)> rebuild = [&](const Type& t) -> llvm::Value* {
    if (!t.is_tuple()) return leaves.at(next++);
    llvm::Value* tuple = llvm::UndefValue::get(m.value_type(t));
    for (unsigned k = 0; k < t.elements().size(); ++k)
      tuple = b.CreateInsertValue(tuple, rebuild(t.elements()[k]), {k});
    return tuple;
  };
  std::vector<llvm::Value*> args;
  for (const Type& t : arg_types) args.push_back(rebuild(t));
  return args;
}

std::vector<llvm::Type*> flat_param_types(ModuleLowering& m, const std::vector<Type>& arg_types) {
  std::vector<llvm::Type*> types;
  for (const ParamLayout& p : param_layout(arg_types)) {
    const Type& t = p.type;
    if (t.is_array()) {
      types.push_back(llvm::PointerType::get(m.context, 0));
      for (int i = 0; i < 2 * t.ndim(); ++i) types.push_back(llvm::Type::getInt64Ty(m.context));
    } else if (t.is_record() || t.is_pointer()) {
      types.push_back(llvm::PointerType::get(m.context, 0));
    } else {
      types.push_back(m.memory_type(t.scalar()));
    }
  }
  return types;
}

// The flattened parameters' names, from the Python parameters' (as in add_layout's order):
// `n`, an array's `a.data`, `a.shape.0`, `a.strides.0`, a tuple's items `t.0`, `t.1.data`
// (a named tuple's by field), so that the LLVM IR (inspect_llvm) names what each is. The
// PTX names parameters by position either way.
void name_flat_params(llvm::Function& kernel, const TypedFunction& f) {
  std::vector<std::string> names;
  std::function<void(const std::string&, const Type&)> add = [&](const std::string& prefix,
                                                                 const Type& t) {
    if (t.is_tuple()) {
      for (size_t k = 0; k < t.elements().size(); ++k)
        add(prefix + "." + (t.fields().empty() ? std::to_string(k) : t.fields()[k]),
            t.elements()[k]);
    } else if (t.is_array()) {
      names.push_back(prefix + ".data");
      for (const char* part : {".shape.", ".strides."})
        for (int d = 0; d < t.ndim(); ++d) names.push_back(prefix + part + std::to_string(d));
    } else {
      names.push_back(prefix);
    }
  };
  const auto& params = f.function->params;
  for (size_t i = 0; i < params.size() && i < f.arg_types.size(); ++i)
    add(python_variable_name(params[i]), f.arg_types[i]);
  if (names.size() > kernel.arg_size()) return;
  for (size_t i = 0; i < names.size(); ++i)
    kernel.getArg(static_cast<unsigned>(i))->setName(names[i]);
}

// The kernel's body is lowered straight into its .entry (a kernel is never
// called from device code): the array arguments are built from the flattened
// parameters there, so their fields are the parameters themselves.
std::string nvptx_kernel(ModuleLowering& m, const TypedFunction& f) {
  std::vector<llvm::Type*> params = flat_param_types(m, f.arg_types);
  if (m.grid_workspace) params.push_back(llvm::PointerType::get(m.context, 0));  // hidden, last
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(m.context), params, false);
  // The .entry takes the Python function's name; specialisations have their own modules.
  std::string name = f.function->name;
  auto* kernel = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m.module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  name_flat_params(*kernel, f);
  llvm::Value* workspace = m.grid_workspace ? kernel->getArg(kernel->arg_size() - 1) : nullptr;
  FunctionLowering(m, f).lower_into(
      kernel,
      [&](llvm::IRBuilder<>& b) {
        return unflatten_args(m, b, f.arg_types,
                              [&](int i, llvm::Type*) { return kernel->getArg(i); });
      },
      workspace);
  return name;
}

// The arguments, unpacked from cuLaunchKernel-style `params` (pointers to values).
std::vector<llvm::Value*> load_args(ModuleLowering& m, llvm::IRBuilder<>& b, const TypedFunction& f,
                                    llvm::Value* params) {
  auto* ptr = b.getPtrTy();
  return unflatten_args(m, b, f.arg_types, [&](int i, llvm::Type* t) {
    llvm::Value* slot = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, params, i));
    return b.CreateLoad(t, slot);
  });
}

// void entry(void** params, LaunchDims* dims, i64 block_begin, i64 block_end, i8* shared):
// runs every thread of blocks [begin, end) one after the other.
std::string host_kernel(ModuleLowering& m, const TypedFunction& f, llvm::Function* body) {
  llvm::LLVMContext& c = m.context;
  auto* ptr = llvm::PointerType::get(c, 0);
  auto* i32 = llvm::Type::getInt32Ty(c);
  auto* i64 = llvm::Type::getInt64Ty(c);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, ptr, i64, i64, ptr}, false);
  std::string name = f.symbol + "_host_entry";
  auto* entry = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m.module);
  entry->addFnAttr(target::kHostEntryAttribute);
  llvm::Value* params = entry->getArg(0);
  llvm::Value* dims = entry->getArg(1);
  llvm::Value* shared = entry->getArg(4);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", entry));

  auto args = load_args(m, b, f, params);
  llvm::StructType* ctx_type = m.thread_ctx_type();
  llvm::Value* ctx = b.CreateAlloca(ctx_type);
  auto ctx_slot = [&](unsigned i) {
    return b.CreateGEP(ctx_type, ctx, {b.getInt32(0), b.getInt32(0), b.getInt32(i)});
  };
  // LaunchDims::errors and ::dynamic_shared_bytes, after grid[3] and block[3].
  llvm::Value* errors = b.CreateLoad(ptr, b.CreateConstGEP1_32(b.getInt8Ty(), dims, 24));
  b.CreateStore(errors, b.CreateStructGEP(ctx_type, ctx, kErrors));
  b.CreateStore(shared, b.CreateStructGEP(ctx_type, ctx, kShared));
  uint64_t dynamic_offset = target::shared_offset(m.static_shared_bytes);
  b.CreateStore(b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), shared, dynamic_offset),
                b.CreateStructGEP(ctx_type, ctx, kDynamicShared));
  b.CreateStore(b.CreateLoad(i64, b.CreateConstGEP1_32(b.getInt8Ty(), dims, 32)),
                b.CreateStructGEP(ctx_type, ctx, kDynamicSharedBytes));
  // LaunchDims::stack_limit and ::stack_overflow: this worker's, for recursive functions.
  b.CreateStore(b.CreateLoad(i64, b.CreateConstGEP1_32(b.getInt8Ty(), dims, 40)),
                b.CreateStructGEP(ctx_type, ctx, kStackLimit));
  b.CreateStore(b.CreateLoad(ptr, b.CreateConstGEP1_32(b.getInt8Ty(), dims, 48)),
                b.CreateStructGEP(ctx_type, ctx, kStackOverflow));
  // LaunchDims::abandon, or a flag that is never set (callers that pass none: tests).
  llvm::Value* abandon = b.CreateLoad(ptr, b.CreateConstGEP1_32(b.getInt8Ty(), dims, 56));
  auto* never = new llvm::GlobalVariable(m.module, i32, true, llvm::GlobalValue::PrivateLinkage,
                                         b.getInt32(0), "abandon.never");
  b.CreateStore(b.CreateSelect(b.CreateIsNull(abandon), never, abandon),
                b.CreateStructGEP(ctx_type, ctx, kAbandon));
  for (unsigned field : {kBarrier, kWarp, kRuntime})  // no fibers here
    b.CreateStore(llvm::ConstantPointerNull::get(ptr), b.CreateStructGEP(ctx_type, ctx, field));
  // LaunchDims is {grid[3], block[3]}; the context holds blockDim at 3..5, gridDim at 9..11.
  // The launch checked them against kHostMaxGrid and kHostMaxBlock: SCEV then knows that
  // blockIdx * blockDim + threadIdx does not wrap (guarded_loops.cpp needs it).
  std::vector<llvm::Value*> grid(3), block(3);
  auto limited = [&](llvm::Value* at, uint32_t most) {
    llvm::LoadInst* load = b.CreateLoad(i32, at);
    load->setMetadata(
        llvm::LLVMContext::MD_range,
        llvm::MDBuilder(c).createRange(llvm::APInt(32, 0), llvm::APInt(32, most + 1)));
    return load;
  };
  for (int d = 0; d < 3; ++d) {
    grid[d] = limited(b.CreateConstGEP1_32(i32, dims, d), cudajit::target::kHostMaxGrid[d]);
    block[d] = limited(b.CreateConstGEP1_32(i32, dims, 3 + d), cudajit::target::kHostMaxBlock[d]);
    b.CreateStore(block[d], ctx_slot(3 + d));
    b.CreateStore(grid[d], ctx_slot(9 + d));
  }

  llvm::BranchInst* latch = nullptr;  // the last loop's
  using Body = std::function<void(llvm::Value*)>;
  // Loops around the thread loops, unless marked as one after (mark_thread_loop).
  auto loop = [&](llvm::Value* begin, llvm::Value* end, const Body& fn) {
    latch = counted_loop(b, begin, end, fn, false);
    mark_outer_loop(latch);
  };
  auto loop_that_runs = [&](llvm::Value* begin, llvm::Value* end, const Body& fn) {
    latch = counted_loop(b, begin, end, fn, true);
    mark_outer_loop(latch);
  };

  // Never zero (a launch has no empty dimension), which SCEV must know to compute
  // blockIdx outside a thread loop and test the loop's indices there.
  auto extent = [&](llvm::Value* v) {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, b.CreateZExt(v, i64), b.getInt64(1));
  };
  llvm::Value* gx = extent(grid[0]);
  llvm::Value* gxy = b.CreateMul(gx, extent(grid[1]));
  // Arrays the kernel only updates atomically: a copy for this run of blocks where it pays.
  llvm::Value* threads =
      b.CreateMul(b.CreateSub(entry->getArg(3), entry->getArg(2)),
                  b.CreateMul(b.CreateMul(extent(block[0]), extent(block[1])), extent(block[2])));
  std::vector<PrivateCopy> copies = open_private_copies(
      m, b, entry, args, threads, b.CreateStructGEP(ctx_type, ctx, kPrivateCopies));
  auto* blocks_end = llvm::BasicBlock::Create(c, "blocks.end", entry);
  // A cancelled launch (Ctrl-C) stops between blocks, so the runtime hands a worker a long
  // run of them at once.
  auto stop_if_abandoned = [&] {
    auto* flag = b.CreateAlignedLoad(
        i32, b.CreateLoad(ptr, b.CreateStructGEP(ctx_type, ctx, kAbandon)), llvm::Align(4));
    flag->setAtomic(llvm::AtomicOrdering::Monotonic);
    auto* go_on = llvm::BasicBlock::Create(c, "block", entry);
    b.CreateCondBr(b.CreateICmpNE(flag, b.getInt32(0)), blocks_end, go_on,
                   llvm::MDBuilder(c).createBranchWeights(1, 1 << 20));
    b.SetInsertPoint(go_on);
  };
  auto call_body = [&] {
    if (m.may_raise) b.CreateStore(b.getInt32(0), b.CreateStructGEP(ctx_type, ctx, kRaised));
    std::vector<llvm::Value*> call_args{ctx};
    call_args.insert(call_args.end(), args.begin(), args.end());
    b.CreateCall(body, call_args);
  };
  // Block indices are counted up from the first's, carried over from one dimension to the
  // next: no division per block (the code generator may sink one into the thread loops,
  // where it costs each thread). `from` is dimension 0 or 1.
  llvm::Value* begin = entry->getArg(2);
  llvm::Value* end = entry->getArg(3);
  std::array<llvm::Value*, 3> block_idx{};
  std::array<llvm::Value*, 3> first{b.CreateURem(begin, gx),
                                    b.CreateUDiv(b.CreateURem(begin, gxy), gx),
                                    b.CreateUDiv(begin, gxy)};
  for (int d = 0; d < 3; ++d) {
    block_idx[d] = b.CreateAlloca(i32, nullptr, "blockIdx");
    b.CreateStore(b.CreateTrunc(first[d], i32), block_idx[d]);
  }
  auto count_up = [&](int from) {
    llvm::Value* carry = b.getTrue();
    for (int d = from; d < 3; ++d) {
      llvm::Value* idx = b.CreateLoad(i32, block_idx[d]);
      llvm::Value* up = b.CreateAdd(idx, b.CreateZExt(carry, i32));
      llvm::Value* wraps = b.CreateAnd(carry, b.CreateICmpEQ(up, grid[d]));
      b.CreateStore(b.CreateSelect(wraps, b.getInt32(0), up), block_idx[d]);
      carry = wraps;
    }
  };
  auto set_block_idx = [&](int from) {
    for (int d = from; d < 3; ++d) b.CreateStore(b.CreateLoad(i32, block_idx[d]), ctx_slot(6 + d));
  };
  if (m.split_barriers) {
    // The body runs the block's threads itself (barrier_fission.cpp), block after block.
    loop(begin, end, [&](llvm::Value*) {
      stop_if_abandoned();
      set_block_idx(0);
      count_up(0);
      call_body();
    });
  } else {
    // Threads in the grid's order: a row of blocks (the blocks of one blockIdx.y and .z) runs
    // each (threadIdx.z, threadIdx.y) of its blocks together, so that a kernel whose blocks
    // are tiles of an array (blockDim (64, 4)) walks each row of the array from one end to
    // the other, as the hardware prefetcher wants, not in tile-wide pieces. The threads of a
    // kernel that never synchronises may run in any order, and each runs whole.
    llvm::Value* first_row = b.CreateUDiv(begin, gx);
    llvm::Value* last_row = b.CreateUDiv(b.CreateSub(end, b.getInt64(1)), gx);
    llvm::Value* first_x = b.CreateTrunc(first[0], i32);  // the first block's blockIdx.x
    llvm::Value* last_x = b.CreateTrunc(b.CreateURem(b.CreateSub(end, b.getInt64(1)), gx), i32);
    // (A launch has no empty dimension, and each row of the run has a block of it.)
    auto* rows = llvm::BasicBlock::Create(c, "rows", entry);
    b.CreateCondBr(b.CreateICmpSLT(begin, end), rows, blocks_end);
    b.SetInsertPoint(rows);
    loop_that_runs(first_row, b.CreateAdd(last_row, b.getInt64(1)), [&](llvm::Value* row) {
      set_block_idx(1);
      count_up(1);
      llvm::Value* x_begin = b.CreateSelect(b.CreateICmpEQ(row, first_row), first_x, b.getInt32(0));
      llvm::Value* x_end = b.CreateSelect(b.CreateICmpEQ(row, last_row),
                                          b.CreateAdd(last_x, b.getInt32(1)), grid[0]);
      loop_that_runs(b.getInt32(0), block[2], [&](llvm::Value* tz) {
        b.CreateStore(tz, ctx_slot(2));
        loop_that_runs(b.getInt32(0), block[1], [&](llvm::Value* ty) {
          b.CreateStore(ty, ctx_slot(1));
          if (m.rows_as_one_loop) {
            // One loop over the x of the row's threads, in chunks of up to 2^20 (a cancelled
            // launch stops between chunks; threadIdx.x stays an int32): blockIdx.x the
            // chunk's first block, threadIdx.x counted on from it past blockDim.x. The bounds
            // checks are tested once per chunk, not per block. (umax: SCEV must see that the
            // divisors are not zero to expand the loop's trip count for those tests.)
            auto at_least_one = [&](llvm::Value* v) {
              return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, v, b.getInt32(1));
            };
            llvm::Value* per_chunk =
                at_least_one(b.CreateUDiv(b.getInt32(1 << 20), at_least_one(block[0])));
            llvm::Value* row_blocks = b.CreateSub(x_end, x_begin);
            llvm::Value* chunks = b.CreateUDiv(
                b.CreateAdd(row_blocks, b.CreateSub(per_chunk, b.getInt32(1))), per_chunk);
            loop_that_runs(b.getInt32(0), chunks, [&](llvm::Value* chunk) {
              stop_if_abandoned();
              llvm::Value* done = b.CreateMul(chunk, per_chunk);
              b.CreateStore(b.CreateAdd(x_begin, done), ctx_slot(6));
              llvm::Value* blocks_here = b.CreateBinaryIntrinsic(
                  llvm::Intrinsic::umin, per_chunk, b.CreateSub(row_blocks, done));
              loop_that_runs(b.getInt32(0), b.CreateMul(blocks_here, block[0]),
                             [&](llvm::Value* tx) {
                               b.CreateStore(tx, ctx_slot(0));
                               call_body();
                             });
              mark_thread_loop(latch);
            });
            return;
          }
          loop_that_runs(x_begin, x_end, [&](llvm::Value* bx) {
            stop_if_abandoned();
            b.CreateStore(bx, ctx_slot(6));
            loop_that_runs(b.getInt32(0), block[0], [&](llvm::Value* tx) {
              b.CreateStore(tx, ctx_slot(0));
              call_body();
            });
            mark_thread_loop(latch);
          });
        });
      });
    });
  }
  b.CreateBr(blocks_end);
  b.SetInsertPoint(blocks_end);
  close_private_copies(m, b, entry, copies);
  b.CreateRetVoid();
  return name;
}

// void entry(void** params, HostThreadContext* ctx): one thread of a kernel
// that synchronises; the runtime runs a block's threads as fibers.
std::string host_thread_kernel(ModuleLowering& m, const TypedFunction& f, llvm::Function* body) {
  llvm::LLVMContext& c = m.context;
  auto* ptr = llvm::PointerType::get(c, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, ptr}, false);
  std::string name = f.symbol + "_host_thread";
  auto* entry = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m.module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", entry));
  std::vector<llvm::Value*> call_args{entry->getArg(1)};
  for (llvm::Value* a : load_args(m, b, f, entry->getArg(0))) call_args.push_back(a);
  b.CreateCall(body, call_args);
  b.CreateRetVoid();
  return name;
}

// CUDAJIT_DUMP=cpu: how the cpu device runs the kernel's blocks, and why.
void dump_host_path(const ModuleLowering& m, const TypedFunction& entry) {
  if (!dump_enabled("cpu")) return;
  std::string text;
  if (m.synchronises) {
    text = "fibers: each thread of a block a fiber, switched at ";
    if (m.block_syncing.empty()) {
      text += "warp functions (shuffles, votes, syncwarp, activemask)";
      if (!m.not_split_because.empty())
        text += "; not split into thread loops: " + m.not_split_because;
    } else {
      text += "block barriers, in";
      for (const TypedFunction* f : m.block_syncing) text += " " + f->function->name;
      text += "; not split into thread loops: " + m.not_split_because;
    }
  } else if (m.split_barriers) {
    text = m.block_syncing.empty() && !calls_warp_functions({&entry})
               ? "thread loops split around lockstep loops: the statements between them"
               : "thread loops split at barriers: the statements between two barriers";
    text +=
        " are a loop over the block's threads, each variable an array with an element per "
        "thread";
    std::vector<int> lines;
    for (const ir::Node* s : m.lockstep)
      if (s->kind != ir::NodeKind::If) lines.push_back(s->loc.line);
    std::sort(lines.begin(), lines.end());
    if (!lines.empty()) {
      text += "; lockstep loops (line";
      for (int line : lines) text += " " + std::to_string(line);
      text +=
          "): a for over a range the same in every thread (which a thread may leave "
          "early with break), or a while on a thread's own condition, counts its iterations "
          "once per chunk of up to 64 threads of the block, each iteration a loop over the "
          "chunk's threads still in it";
    }
    if (calls_warp_functions({&entry}))
      text += "; warp functions and syncwarp split them too: the loops between two block "
              "barriers run warp by warp, each over the warp's lanes (values only they use in "
              "arrays of 32; unrolled where blockDim.x is a multiple of 32, else the warps are "
              "32 threads at a time by linear index), or block-wide where a block scalar's "
              "assignment cannot move before them, each warp function's operands exchanged "
              "through an array";
  } else {
    text = "thread loops: no barrier or warp function, so a block is a loop over its threads "
           "(threadIdx.x innermost; bounds checks tested once per loop where the indices' "
           "range is known)";
    if (m.rows_as_one_loop)
      text += "; a row of blocks is one loop over its threads' x (the kernel reads "
              "threadIdx.x and blockIdx.x only through cuda.grid)";
  }
  if (!m.no_lockstep_because.empty())
    text += "; no lockstep loops: " + m.no_lockstep_because + ", so each thread runs its own loops";
  if (!m.synchronises && !m.private_atomics.empty()) {
    text += "\nprivate copies:";
    for (const auto& [name, atomics] : m.private_atomics) text += " " + name;
    text += " (only updated by atomics whose old value is dropped): a worker's run of blocks "
            "updates a copy of its own, merged into the array at the run's end";
  }
  for (const auto& s : entry.function->body)
    if (m.grid_stride_loops.count(s.get()))
      text += "\ngrid-stride loop at line " + std::to_string(s->loc.line) +
              ": each thread takes a contiguous share of the range";
  dump("cpu", entry.function->name, text);
}

void collect(const TypedFunction& f, std::vector<const TypedFunction*>& out) {
  if (std::find(out.begin(), out.end(), &f) != out.end()) return;
  out.push_back(&f);
  for (const auto& [node, callee] : f.callees) collect(*callee, out);
}

// Whether `f` can call itself, directly or through other functions.
bool recursive(const TypedFunction& f) {
  std::vector<const TypedFunction*> reached;
  for (const auto& [node, callee] : f.callees) collect(*callee, reached);
  return std::find(reached.begin(), reached.end(), &f) != reached.end();
}

// jit(inline="always"): every call of such a device function is replaced by its body once
// the program is lowered, as Numba inlines at its own IR, so the kernel's LLVM IR
// (inspect_llvm) holds no call of it. Not the entry, nor a recursive function.
void inline_always(ModuleLowering& m, const std::vector<const TypedFunction*>& functions,
                   const TypedFunction* entry) {
  for (const TypedFunction* f : functions) {
    if (f == entry || f->function->inline_mode != "always" || recursive(*f)) continue;
    auto found = m.functions.find(f);
    if (found == m.functions.end()) continue;
    llvm::Function* fn = found->second;
    std::vector<llvm::CallBase*> calls;
    for (llvm::User* user : fn->users())
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(user); call && call->getCalledFunction() == fn)
        calls.push_back(call);
    for (llvm::CallBase* call : calls) {
      llvm::InlineFunctionInfo info;
      llvm::InlineFunction(*call, info);
    }
    if (fn->use_empty()) {
      m.functions.erase(found);
      fn->eraseFromParent();
    }
  }
}

// A 2-D or 3-D kernel whose x indices are only cuda.grid's (ModuleLowering::rows_as_one_loop).
// Not with debug=True, which records a raising thread's threadIdx and blockIdx. (1-D kernels'
// blocks are long rows already; in them the code generator kept `blockIdx.x * blockDim.x` in
// the loop, recomputed per thread.)
bool rows_as_one_loop(const std::vector<const TypedFunction*>& functions,
                      const CompileOptions& options) {
  if (options.debug) return false;
  bool multi_dimensional = false;
  for (const TypedFunction* f : functions) {
    for (std::string_view name : {"cuda.threadIdx.x", "cuda.blockIdx.x", "cuda.laneid",
                                  "cuda.lanemask_lt", "cuda.cg.this_grid"})
      if (calls_builtin(f->function->body, name)) return false;
    for (const auto& s : f->function->body)
      visit(*s, [&](const ir::Node& n) {
        multi_dimensional |= n.kind == ir::NodeKind::Call && n.text == "cuda.grid" &&
                             n.size() == 1 && n.child(0).kind == ir::NodeKind::Int &&
                             n.child(0).int_value > 1;
      });
  }
  return multi_dimensional;
}

}  // namespace

LoweredProgram lower_program(const typing::TypedProgram& program, llvm::Module& module,
                             TargetKind target, bool device_entry, const CompileOptions& options) {
  auto hooks = make_hooks(target);
  ModuleLowering m{module.getContext(), module, *hooks, options, {}};
  // Debug information for PTX only: the cpu device's JIT registers none with a debugger.
  std::optional<DebugInfo> debug_info;
  if ((options.lineinfo || options.debug) && target == TargetKind::Nvptx) {
    m.debug_info = &debug_info.emplace(module, program.file,
                                       options.debug ? DebugLevel::Full : DebugLevel::Lines,
                                       /*optimized=*/options.opt_level > 0);
  }
  std::vector<const TypedFunction*> reachable;
  collect(*program.entry, reachable);
  const bool entry_is_kernel = !device_entry && target == TargetKind::Nvptx;
  bool grid_sync = false;
  // Marked cooperative (cuda.cg.this_grid(), a cooperative foreign function): a kernel
  // launched as one that syncs its grid, as Numba launches it; no grid sync of its own.
  bool marked_cooperative = false;
  for (const TypedFunction* f : reachable) {
    grid_sync |= calls_builtin(f->function->body, "cuda.cg.grid_sync");
    marked_cooperative |= calls_builtin(f->function->body, "launch.cooperative");
  }
  if (grid_sync && device_entry)
    throw CompileError(
        "cuda.cg.this_grid().sync() needs a kernel's cooperative launch; "
        "compile the kernel that calls it",
        program.entry->function->loc);
  // On the cpu device a grid without grid syncs runs as any other.
  const bool cooperative =
      grid_sync || (marked_cooperative && !device_entry && target == TargetKind::Nvptx);
  m.grid_workspace = cooperative && target == TargetKind::Nvptx;
  if (entry_is_kernel) reachable.erase(reachable.begin());  // lowered into the .entry
  for (const TypedFunction* f : reachable) m.declare(*f);
  for (const TypedFunction* f : reachable) m.may_raise |= contains_raise(f->function->body);
  if (target == TargetKind::Host)  // a recursion too deep stops its thread (stack_guard)
    for (const TypedFunction* f : reachable)
      if (recursive(*f)) m.stack_guarded.insert(f);
  m.may_raise |= !m.stack_guarded.empty();
  m.may_raise |= contains_raise(program.entry->function->body);
  // Host loops leave an abandoned launch as a raise does (abandon_point): callers return too.
  if (target == TargetKind::Host)
    for (const TypedFunction* f : reachable) m.may_raise |= contains_loop(f->function->body);
  if (target == TargetKind::Host) m.may_raise |= contains_loop(program.entry->function->body);
  if (target == TargetKind::Host) {
    std::vector<const TypedFunction*> all = reachable;
    if (std::find(all.begin(), all.end(), program.entry) == all.end())
      all.push_back(program.entry);
    find_block_barriers(m, all, *program.entry);
    find_grid_stride_loops(m, all, *program.entry);
    if (!device_entry) find_private_atomics(m, *program.entry);
    if (!device_entry) {
      m.lockstep = lockstep_statements(*program.entry);
      if (!m.lockstep.empty() && !cudajit::target::host_masks_bytes()) {
        m.lockstep.clear();
        m.no_lockstep_because = "this CPU has no masked vector stores of bytes (AVX-512BW)";
      }
    }
    if (!device_entry &&
        (!m.block_syncing.empty() || calls_warp_functions(all) || !m.lockstep.empty())) {
      m.not_split_because = split_refusal(m, all, *program.entry);
      m.split_barriers = m.not_split_because.empty();
    }
    m.rows_as_one_loop = rows_as_one_loop(all, options) && m.grid_stride_loops.empty();
  }
  for (const TypedFunction* f : reachable) {
    FunctionLowering lowering(m, *f);
    if (m.split_barriers && f == program.entry) lowering.split_threads();
    lowering.lower();
  }

  LoweredProgram out;
  std::string& entry_name = out.entry_name;
  if (entry_is_kernel) {
    entry_name = nvptx_kernel(m, *program.entry);
  } else if (device_entry) {
    // compile_ptx(device=True): the function itself is the visible .func.
    llvm::Function* body = m.functions.at(program.entry);
    body->setLinkage(llvm::Function::ExternalLinkage);
    body->addFnAttr("cudajit-export");  // emit_ptx keeps it visible
    entry_name = body->getName().str();
  } else if (m.synchronises) {
    dump_host_path(m, *program.entry);
    out.per_thread_entry = true;
    entry_name = host_thread_kernel(m, *program.entry, m.functions.at(program.entry));
  } else {
    dump_host_path(m, *program.entry);
    entry_name = host_kernel(m, *program.entry, m.functions.at(program.entry));
  }
  inline_always(m, reachable, program.entry);
  out.static_shared_bytes = m.static_shared_bytes;
  out.cooperative = cooperative;
  if (debug_info) debug_info->finalize();
  return out;
}

}  // namespace cudajit::lower
