// cuda.shared.array and cuda.local.array: arrays of constant shape (C order)
// in a block's shared memory or a thread's own stack, and the dynamic shared
// array (shape 0) that every such call aliases, sized by the launch; NumPy
// arrays frozen into the kernel (constant memory on the GPU); device arrays captured by
// their address.
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

namespace {

// The shape the front end wrote as a tuple of integer literals (typing checked them).
std::vector<int64_t> literal_shape(const Node& call) {
  std::vector<int64_t> shape;
  for (const auto& extent : call.child(0).children) shape.push_back(extent->int_value);
  return shape;
}

// The alignment= a shared or local array was given (typing checked it), at least 16.
uint64_t allocation_alignment(const Node& call, const Type& t) {
  const size_t fixed = t.record_layout() ? 2u : 1u;
  return std::max<uint64_t>(16, call.size() > fixed ? uint64_t(call.child(fixed).int_value) : 0);
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;  // typing bounded the product
  return count;
}

// Storage for `count` items of array type t: its numbers, or its records' bytes.
llvm::ArrayType* item_storage(ModuleLowering& m, const Type& t, int64_t count) {
  if (t.record_layout())
    return llvm::ArrayType::get(llvm::Type::getInt8Ty(m.context), uint64_t(count * t.itemsize()));
  return llvm::ArrayType::get(m.memory_type(t.dtype()), uint64_t(count));
}

}  // namespace

llvm::Value* FunctionLowering::constant_shape_array(llvm::Value* data, const Type& t,
                                                    const std::vector<int64_t>& shape) {
  llvm::Value* a = llvm::UndefValue::get(m_.array_struct(t.ndim()));
  a = b_.CreateInsertValue(a, data, {0});
  int64_t stride = t.itemsize();
  for (int d = t.ndim() - 1; d >= 0; --d) {
    a = b_.CreateInsertValue(a, int64(shape[d]), {1, unsigned(d)});
    a = b_.CreateInsertValue(a, int64(stride), {2, unsigned(d)});
    stride *= shape[d];
  }
  return a;
}

llvm::Value* FunctionLowering::shared_array(const Node& n) {
  const Type& t = type_of(n);
  std::vector<int64_t> shape = literal_shape(n);
  int64_t count = element_count(shape);
  if (count == 0) {
    // Dynamic: every shape-0 array starts at the same byte; its length is
    // what the launch gave, in whole items.
    llvm::Value* data = m_.hooks.dynamic_shared(m_, b_, thread_ctx_);
    llvm::Value* bytes = m_.hooks.dynamic_shared_bytes(m_, b_, thread_ctx_);
    llvm::Value* a = constant_shape_array(data, t, {0});
    return b_.CreateInsertValue(a, b_.CreateUDiv(bytes, int64(t.itemsize())), {1, 0});
  }
  llvm::Value* data =
      m_.hooks.static_shared(m_, b_, item_storage(m_, t, count), uint64_t(count * t.itemsize()),
                             allocation_alignment(n, t), thread_ctx_);
  return constant_shape_array(data, t, shape);
}

llvm::Value* FunctionLowering::const_array(const Node& n) {
  std::vector<int64_t> shape = literal_shape(n);
  llvm::Value* data = m_.hooks.constant_data(m_, b_, n.child(1).text);
  return constant_shape_array(data, type_of(n), shape);
}

llvm::Value* FunctionLowering::captured_array(const Node& n) {
  // A host address dereferenced on the GPU, or a GPU address on the host (a crash there):
  // a kernel that captures a device array runs on that array's kind of device only.
  const std::string& memory = n.child(3).text;
  const bool host_memory = memory.ends_with("cpu");
  if (host_memory != m_.hooks.has_thread_ctx())
    throw CompileError(std::string("this device array is in the memory of the ") +
                           (host_memory ? "cpu device" : "GPU") +
                           ", and a kernel that captures it runs there only; it is compiled "
                           "here for the " +
                           (host_memory ? "GPU" : "cpu device"),
                       n.loc);
  const Type& t = type_of(n);
  llvm::Value* data = b_.CreateIntToPtr(int64(n.child(2).int_value), b_.getPtrTy());
  llvm::Value* a = llvm::UndefValue::get(m_.array_struct(t.ndim()));
  a = b_.CreateInsertValue(a, data, {0});
  for (int d = 0; d < t.ndim(); ++d) {
    a = b_.CreateInsertValue(a, int64(n.child(0).child(d).int_value), {1, unsigned(d)});
    a = b_.CreateInsertValue(a, int64(n.child(1).child(d).int_value), {2, unsigned(d)});
  }
  return a;
}

llvm::Value* FunctionLowering::local_array(const Node& n) {
  const Type& t = type_of(n);
  std::vector<int64_t> shape = literal_shape(n);
  llvm::Type* storage = item_storage(m_, t, element_count(shape));
  llvm::AllocaInst* data;
  {
    // In the entry block: one allocation per call, however often it runs.
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    data = b_.CreateAlloca(storage, nullptr, "local.array");
    data->setAlignment(llvm::Align(allocation_alignment(n, t)));
  }
  return constant_shape_array(data, t, shape);
}

}  // namespace cudajit::lower
