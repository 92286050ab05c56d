// cuda.shared.array and cuda.local.array: arrays of constant shape (C order)
// in a block's shared memory or a thread's own stack, and the dynamic shared
// array (shape 0) that every such call aliases, sized by the launch; NumPy
// arrays frozen into the kernel (constant memory on the GPU); device arrays captured by
// their address.
#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

// The record type whose spelling `bytes` holds (cuda.*.array.record's last argument).
Type record_spelled(const Node& call, const Node& bytes, const std::string& what) {
  if (bytes.kind != ir::NodeKind::Bytes) type_error(call, what + ": expects a record type");
  Type element;
  try {
    element = parse_type(bytes.text);
  } catch (const std::invalid_argument& e) {
    type_error(call, what + ": " + e.what());
  }
  if (!element.is_record()) type_error(call, what + ": expects a record type");
  return element;
}

// The element type a call's name ends in (cuda.shared.array.float32, cuda.const.array.record
// ...): a number type, or `record`, whose spelling one of the call's arguments holds.
struct NamedElement {
  std::string_view name;
  bool record;
  Scalar dtype;  // UInt8 for a record (its bytes)
};

NamedElement named_element(const Node& call, std::string_view name, const std::string& what) {
  NamedElement e{name.substr(name.rfind('.') + 1), false, Scalar::UInt8};
  e.record = e.name == "record";
  if (!e.record) {
    auto dtype = scalar_from_name(e.name);
    if (!dtype) type_error(call, what + ": unknown dtype '" + std::string(e.name) + "'");
    e.dtype = *dtype;
  }
  return e;
}

// An array of `element` (a number or a record type).
Type array_of(const Type& element, int ndim, Layout layout, bool readonly) {
  if (element.is_record())
    return Type::record_array(element.record_layout(), ndim, layout, readonly);
  return Type::array(element.scalar(), ndim, layout, readonly);
}

// cuda.shared.array.<dtype> and cuda.local.array.<dtype>: one tuple of integer
// literals (the front end folded the shape to constants); .record: then the record
// type's spelling as bytes.
Type type_array_allocation(const Node& call, std::string_view name) {
  const bool shared = name.starts_with("shared.");
  std::string what = shared ? "cuda.shared.array()" : "cuda.local.array()";
  const NamedElement e = named_element(call, name, what);
  const size_t fixed = e.record ? 2u : 1u;  // then alignment=, when given
  if ((call.size() != fixed && call.size() != fixed + 1) ||
      call.child(0).kind != ir::NodeKind::Tuple || call.child(0).size() == 0)
    type_error(call, what + " takes a shape: an integer constant or a tuple of them");
  if (call.size() == fixed + 1) {
    const Node& alignment = call.child(fixed);
    const int64_t a = alignment.int_value;
    if (alignment.kind != ir::NodeKind::Int || a < 8 || a > 1024 || (a & (a - 1)) != 0)
      type_error(call, what + ": alignment must be a power of 2 from 8 to 1024");
  }
  const Node& shape = call.child(0);
  if (shape.size() > 3) type_error(call, what + " arrays have 1 to 3 dimensions");
  int64_t count = 1;
  for (const auto& extent : shape.children) {
    if (extent->kind != ir::NodeKind::Int || extent->int_value < 0)
      type_error(*extent, what + " shape entries must be non-negative integer constants");
    // Bounded well below overflow: 2**31 items (shared memory is at most 228 KiB).
    if (extent->int_value > (int64_t{1} << 31) / count)
      type_error(call, what + " of " + std::to_string(extent->int_value) +
                           " items along one axis is too large");
    count *= extent->int_value;
  }
  if (count == 0 && (!shared || shape.size() != 1))
    type_error(call, shared ? what +
                                  " of zero items: only a 1-D shape 0 makes dynamic shared "
                                  "memory (sized by the launch's sharedmem)"
                            : what + " needs at least one item");
  if (count == 0 && call.size() == fixed + 1)
    type_error(call, what +
                         ": alignment= is not supported for the dynamic shared array "
                         "(shape 0), which starts 16-byte aligned");
  const Type element = e.record ? record_spelled(call, call.child(1), what) : Type::scalar(e.dtype);
  return array_of(element, static_cast<int>(shape.size()), Layout::C, false);
}

// cuda.const.array.<dtype>: a NumPy array frozen into the kernel (a global, a
// closure variable or cuda.const.array_like): a shape tuple and its bytes.
// cuda.const.array.record: the same, then the record type's spelling as bytes.
Type type_const_array(const Node& call, std::string_view name) {
  const NamedElement e = named_element(call, name, "constant array");
  const bool record = e.record;
  if (call.size() != (record ? 3u : 2u) || call.child(0).kind != ir::NodeKind::Tuple ||
      call.child(1).kind != ir::NodeKind::Bytes || call.child(0).size() > kMaxArrayDims ||
      (record && call.child(2).kind != ir::NodeKind::Bytes))
    type_error(call, "constant array: expects a shape of 0 to " + std::to_string(kMaxArrayDims) +
                         " integers and its bytes");
  Type element =
      record ? record_spelled(call, call.child(2), "constant array") : Type::scalar(e.dtype);
  uint64_t count = 1;
  for (const auto& extent : call.child(0).children) {
    if (extent->kind != ir::NodeKind::Int || extent->int_value < 0)
      type_error(*extent, "constant array: the shape holds non-negative integers");
    count *= uint64_t(extent->int_value);
  }
  if (call.child(1).text.size() != count * element.itemsize())
    type_error(call, "constant array: " + std::to_string(call.child(1).text.size()) +
                         " bytes do not make its shape of " + std::string(e.name));
  return array_of(element, static_cast<int>(call.child(0).size()), Layout::C, true);
}

// cuda.captured.array.<dtype>: a global or closure device array, captured by its address (the
// front end keeps the array alive): its shape and strides (bytes) as tuples of integers, its
// address, and "cpu" or "cuda" (the memory's device), read-only when "readonly " starts it.
// .record: the same, then the record type's spelling as bytes.
Type type_captured_array(const Node& call, std::string_view name) {
  const NamedElement e = named_element(call, name, "captured array");
  const bool record = e.record;
  const auto ints = [](const Node& n) {
    if (n.kind != ir::NodeKind::Tuple) return false;
    for (const auto& item : n.children)
      if (item->kind != ir::NodeKind::Int) return false;
    return true;
  };
  if (call.size() != (record ? 5u : 4u) || !ints(call.child(0)) || !ints(call.child(1)) ||
      call.child(0).size() != call.child(1).size() || call.child(0).size() == 0 ||
      call.child(0).size() > kMaxArrayDims || call.child(2).kind != ir::NodeKind::Int ||
      call.child(3).kind != ir::NodeKind::Bytes)
    type_error(call, "captured array: expects a shape and strides of 1 to " +
                         std::to_string(kMaxArrayDims) +
                         " integers each, an address and the memory's device");
  Type element =
      record ? record_spelled(call, call.child(4), "captured array") : Type::scalar(e.dtype);
  const std::string& memory = call.child(3).text;
  const bool readonly = memory.starts_with("readonly ");
  std::string_view device = std::string_view(memory).substr(readonly ? 9 : 0);
  if (device != "cpu" && device != "cuda")
    type_error(call, "captured array: unknown device '" + std::string(device) + "'");
  std::vector<int64_t> shape, strides;
  for (const auto& extent : call.child(0).children) {
    if (extent->int_value < 0) type_error(call, "captured array: a negative extent");
    shape.push_back(extent->int_value);
  }
  for (const auto& stride : call.child(1).children) strides.push_back(stride->int_value);
  return array_of(element, static_cast<int>(shape.size()),
                  strided_layout(shape, strides, element.itemsize()), readonly);
}

Type type_allocation(const Node& call, const std::vector<Type>&, typing::TypedFunction&) {
  return type_array_allocation(call, suffix(call, "cuda."));
}

}  // namespace

void register_memory(Registry& r) {
  // The front end reads shape, dtype and alignment when compiling (frontend_static.py) and
  // names the dtype last: cuda.shared.array.float32, cuda.local.array.record.
  r.add({"cuda.shared.array.", kRuleChecksArity, type_allocation,
         [](FunctionLowering& f, const Node& n) { return f.shared_array(n); },
         "cuda.shared.array"});
  r.add({"cuda.local.array.", kRuleChecksArity, type_allocation,
         [](FunctionLowering& f, const Node& n) { return f.local_array(n); }, "cuda.local.array"});
  // cuda.const.array_like(ary), and NumPy arrays a kernel reads as globals or closures.
  r.add({"cuda.const.array.", kRuleChecksArity,
         [](const Node& call, const std::vector<Type>&, typing::TypedFunction&) {
           return type_const_array(call, suffix(call, "cuda."));
         },
         [](FunctionLowering& f, const Node& n) { return f.const_array(n); },
         "cuda.const.array_like"});
  r.add({"cuda.captured.array.", kRuleChecksArity,
         [](const Node& call, const std::vector<Type>&, typing::TypedFunction&) {
           return type_captured_array(call, suffix(call, "cuda."));
         },
         [](FunctionLowering& f, const Node& n) { return f.captured_array(n); }});
}

}  // namespace cudajit::builtins

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
