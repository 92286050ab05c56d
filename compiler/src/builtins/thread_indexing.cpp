// Thread indexing: cuda.threadIdx.x ... cuda.gridDim.z, cuda.laneid and cuda.warpsize (the
// special registers, int32), and cuda.grid(N) / cuda.gridsize(N) (N a literal 1, 2 or 3: an
// int64, or a tuple of N).
#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

constexpr std::string_view kRegisters[] = {
    "cuda.threadIdx.x", "cuda.threadIdx.y", "cuda.threadIdx.z", "cuda.blockIdx.x",
    "cuda.blockIdx.y",  "cuda.blockIdx.z",  "cuda.blockDim.x",  "cuda.blockDim.y",
    "cuda.blockDim.z",  "cuda.gridDim.x",   "cuda.gridDim.y",   "cuda.gridDim.z",
    "cuda.laneid",      "cuda.warpsize"};

Type type_register(const Node&, const std::vector<Type>&, typing::TypedFunction&) {
  return Type::scalar(Scalar::Int32);
}

llvm::Value* lower_register(FunctionLowering& f, const Node& n) {
  return f.special_register(std::string(suffix(n, "cuda.")));
}

Type type_grid(const Node& call, const std::vector<Type>& args, typing::TypedFunction& out) {
  if (args.size() != 1 || call.child(0).kind != ir::NodeKind::Int || call.child(0).int_value < 1 ||
      call.child(0).int_value > 3)
    type_error(call, call.text + "() takes one literal argument, 1, 2 or 3");
  int64_t ndim = call.child(0).int_value;
  out.constants[&call] = ndim;
  if (ndim == 1) return Type::scalar(Scalar::Int64);
  return Type::tuple(std::vector<Type>(ndim, Type::scalar(Scalar::Int64)));
}

}  // namespace

void register_thread_indexing(Registry& r) {
  for (std::string_view name : kRegisters)
    r.add({name, takes(0), type_register, lower_register, name, kIndexRegister});
  r.add({"cuda.grid", kRuleChecksArity, type_grid,
         [](FunctionLowering& f, const Node& n) { return f.grid_position(n, false); }, "cuda.grid",
         kIndexRegister});
  r.add({"cuda.gridsize", kRuleChecksArity, type_grid,
         [](FunctionLowering& f, const Node& n) { return f.grid_position(n, true); },
         "cuda.gridsize", kIndexRegister});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

using ir::Node;

llvm::Value* FunctionLowering::special_register(const std::string& name) {
  // In a split block's thread loop the lane is the thread's linear index mod 32 (what the
  // host hook computes from threadIdx and blockDim), which LLVM sees as the loop's.
  if (fission_ && warp_lane_ != nullptr && name == "laneid")
    return b_.CreateTrunc(warp_lane_, b_.getInt32Ty());
  if (fission_ && thread_id_ != nullptr && name == "laneid")
    return b_.CreateTrunc(b_.CreateAnd(thread_id_, b_.getInt64(31)), b_.getInt32Ty());
  return m_.hooks.special_register(b_, name, thread_ctx_);
}

// cuda.grid(N): blockIdx * blockDim + threadIdx per axis; cuda.gridsize(N): blockDim * gridDim.
llvm::Value* FunctionLowering::grid_position(const Node& n, bool size) {
  int ndim = static_cast<int>(f_.constants.at(&n));
  std::vector<llvm::Value*> values;
  for (int d = 0; d < ndim; ++d) {
    std::string axis(1, static_cast<char>('x' + d));
    auto reg = [&](const std::string& r) {
      return b_.CreateZExt(special_register(r + "." + axis), b_.getInt64Ty());
    };
    // In 64 bits, so that large grids do not wrap.
    values.push_back(
        size ? b_.CreateMul(reg("blockDim"), reg("gridDim"))
             : b_.CreateAdd(b_.CreateMul(reg("blockIdx"), reg("blockDim")), reg("threadIdx")));
  }
  if (ndim == 1) return values[0];
  llvm::Value* t = llvm::UndefValue::get(m_.value_type(type_of(n)));
  for (unsigned i = 0; i < values.size(); ++i) t = b_.CreateInsertValue(t, values[i], {i});
  return t;
}

}  // namespace cudajit::lower
