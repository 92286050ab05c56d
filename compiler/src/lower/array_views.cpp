// a.reshape(shape) and a.view(dtype) in kernels: new descriptions of an array's memory, as
// NumPy makes them for a contiguous array. What NumPy refuses (a shape of another size, a
// non-contiguous array, a last axis the new dtype does not divide) raises the ValueError the
// front end registered (its code ends the method's name), as a raise in the kernel does.
#include <llvm/IR/Intrinsics.h>

#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;

llvm::Value* FunctionLowering::array_method(const Node& n) {
  return n.text.starts_with("view.") ? array_view_as(n) : array_reshape(n);
}

// a.reshape(e0, e1, ...) or a.reshape((e0, e1, ...)): one extent may be -1 (the rest of the
// size); the result is C-contiguous, so the array must be (checked at run time unless its
// type says C).
llvm::Value* FunctionLowering::array_reshape(const Node& n) {
  const Type& t = type_of(n.child(0));
  const Type& result = type_of(n);
  llvm::Value* a = expr(n.child(0));
  auto* i64 = b_.getInt64Ty();
  const Type int64_type = Type::scalar(Scalar::Int64);
  std::vector<llvm::Value*> extents;
  for (size_t i = 1; i < n.size(); ++i) {
    const Type& et = type_of(n.child(i));
    llvm::Value* e = expr(n.child(i));
    if (et.is_tuple()) {
      for (size_t k = 0; k < et.elements().size(); ++k)
        extents.push_back(
            cast(extract(e, {static_cast<unsigned>(k)}), et.elements()[k], int64_type));
    } else {
      extents.push_back(cast(e, et, int64_type));
    }
  }
  // The array's size, and whether its strides are C order's (extents of 1 constrain nothing).
  llvm::Value* size = int64(1);
  llvm::Value* contiguous = b_.getTrue();
  llvm::Value* expected = int64(t.itemsize());
  for (int d = t.ndim() - 1; d >= 0; --d) {
    llvm::Value* extent = extract(a, {1, static_cast<unsigned>(d)});
    size = b_.CreateMul(size, extent);
    if (t.layout() != Layout::C) {
      llvm::Value* stride = extract(a, {2, static_cast<unsigned>(d)});
      contiguous = b_.CreateAnd(contiguous, b_.CreateOr(b_.CreateICmpEQ(extent, int64(1)),
                                                        b_.CreateICmpEQ(stride, expected)));
    }
    expected = b_.CreateMul(expected, extent);
  }
  // -1 stands for what the other extents leave of the size.
  llvm::Value* known = int64(1);
  llvm::Value* unknowns = int64(0);
  llvm::Value* negative = b_.getFalse();
  for (llvm::Value* e : extents) {
    llvm::Value* unknown = b_.CreateICmpEQ(e, int64(-1));
    unknowns = b_.CreateAdd(unknowns, b_.CreateZExt(unknown, i64));
    known = b_.CreateMul(known, b_.CreateSelect(unknown, int64(1), e));
    negative = b_.CreateOr(negative, b_.CreateICmpSLT(e, int64(-1)));
  }
  llvm::Value* known_zero = b_.CreateICmpEQ(known, int64(0));
  llvm::Value* inferred =
      b_.CreateSDiv(size, b_.CreateSelect(known_zero, int64(1), known));  // no division by 0
  llvm::Value* total = int64(1);
  llvm::Value* overflows = b_.getFalse();  // extents whose product wraps (to the size, even)
  for (llvm::Value*& e : extents) {
    e = b_.CreateSelect(b_.CreateICmpEQ(e, int64(-1)), inferred, e);
    llvm::Value* product = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, total, e);
    total = b_.CreateExtractValue(product, {0});
    overflows = b_.CreateOr(overflows, b_.CreateExtractValue(product, {1}));
  }
  llvm::Value* fails = b_.CreateOr(negative, b_.CreateICmpUGT(unknowns, int64(1)));
  fails = b_.CreateOr(fails, overflows);
  fails = b_.CreateOr(fails, b_.CreateICmpNE(total, size));
  fails = b_.CreateOr(fails, b_.CreateNot(contiguous));
  fails = b_.CreateOr(fails, b_.CreateAnd(b_.CreateICmpEQ(unknowns, int64(1)), known_zero));
  raise_if(fails, raise_code(n.text));
  llvm::Value* out = llvm::UndefValue::get(m_.array_struct(result.ndim()));
  out = b_.CreateInsertValue(out, extract(a, {0}), {0});
  llvm::Value* stride = int64(result.itemsize());
  for (int d = result.ndim() - 1; d >= 0; --d) {
    out = b_.CreateInsertValue(out, extents[static_cast<size_t>(d)], {1, static_cast<unsigned>(d)});
    out = b_.CreateInsertValue(out, stride, {2, static_cast<unsigned>(d)});
    stride = b_.CreateMul(stride, extents[static_cast<size_t>(d)]);
  }
  return out;
}

// a.view(dtype): the same bytes as items of another dtype; of another size, the last axis
// (contiguous) is re-cut: its extent in bytes must divide into the new items.
llvm::Value* FunctionLowering::array_view_as(const Node& n) {
  const Type& t = type_of(n.child(0));
  const Type& result = type_of(n);
  llvm::Value* a = expr(n.child(0));
  const int64_t old_size = t.itemsize(), new_size = result.itemsize();
  if (old_size == new_size) return a;  // the same description, read as the new dtype
  const auto last = static_cast<unsigned>(t.ndim() - 1);
  llvm::Value* extent = extract(a, {1, last});
  llvm::Value* bytes = b_.CreateMul(extent, int64(old_size));
  llvm::Value* fails = b_.CreateICmpNE(b_.CreateSRem(bytes, int64(new_size)), int64(0));
  if (t.layout() != Layout::C) {
    llvm::Value* stride = extract(a, {2, last});
    fails = b_.CreateOr(fails, b_.CreateAnd(b_.CreateICmpNE(stride, int64(old_size)),
                                            b_.CreateICmpNE(extent, int64(1))));
  }
  raise_if(fails, raise_code(n.text));
  llvm::Value* out = b_.CreateInsertValue(a, b_.CreateSDiv(bytes, int64(new_size)), {1, last});
  return b_.CreateInsertValue(out, int64(new_size), {2, last});
}

}  // namespace cudajit::lower
