// Arrays and tuples: element addresses from byte strides (the contiguous
// dimension of a C or F array uses the item size, so LLVM sees unit strides),
// negative indices wrapping, views, attributes.
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

std::vector<ArrayIndex> FunctionLowering::indices(const Node& index_node) {
  Type i64 = Type::scalar(Scalar::Int64);
  // A 0-d integer array indexes as its value, as in NumPy (a[np.array(2)]).
  auto zero_d = [&](const Node& c) -> std::optional<ArrayIndex> {
    const Type& t = type_of(c);
    if (!t.is_array() || t.ndim() != 0) return std::nullopt;
    llvm::Value* value = load_element(element_pointer(expr(c), t, {}, c.loc), t.dtype());
    return ArrayIndex{cast(value, Type::scalar(t.dtype()), i64), !is_signed(t.dtype())};
  };
  std::vector<ArrayIndex> out;
  if (index_node.kind == NodeKind::Tuple) {
    for (const auto& c : index_node.children) {
      if (auto loaded = zero_d(*c))
        out.push_back(*loaded);
      else
        out.push_back({expr_as(*c, i64), facts_.nonnegative(*c)});
    }
    return out;
  }
  if (auto loaded = zero_d(index_node)) return {*loaded};
  const Type& t = type_of(index_node);
  llvm::Value* v = expr(index_node);
  if (!t.is_tuple()) return {{cast(v, t, i64), facts_.nonnegative(index_node)}};
  for (unsigned i = 0; i < t.elements().size(); ++i) {
    const Type& element = t.elements()[i];
    const bool is_unsigned = element.is_scalar() && !is_signed(element.scalar());
    out.push_back({cast(extract(v, {i}), element, i64), is_unsigned});
  }
  return out;
}

// The byte offset of indices idx[0..n) into `array`; `unit_dim` (or -1) is
// the contiguous dimension, whose stride is the item size. With `check`, also
// whether every index is in bounds, and the first one that is not.
llvm::Value* FunctionLowering::byte_offset(llvm::Value* array, const std::vector<ArrayIndex>& idx,
                                           int unit_dim, int itemsize, IndexCheck* check) {
  llvm::Value* offset = nullptr;
  if (check) *check = {b_.getTrue(), b_.getInt32(0), int64(0), int64(0)};
  for (unsigned d = 0; d < idx.size(); ++d) {
    llvm::Value* extent = extract(array, {1, d});
    llvm::Value* i = idx[d].v;
    if (!idx[d].nonnegative)
      i = b_.CreateSelect(b_.CreateICmpSLT(i, int64(0)), b_.CreateAdd(i, extent), i);
    if (check) {
      // Unsigned: a still-negative index compares as huge.
      llvm::Value* in_bounds = b_.CreateICmpULT(i, extent);
      llvm::Value* first_bad = b_.CreateAnd(check->ok, b_.CreateNot(in_bounds));
      check->axis = b_.CreateSelect(first_bad, b_.getInt32(d), check->axis);
      check->index = b_.CreateSelect(first_bad, idx[d].v, check->index);  // as written, NumPy's
      check->extent = b_.CreateSelect(first_bad, extent, check->extent);
      check->ok = b_.CreateAnd(check->ok, in_bounds);
    }
    llvm::Value* stride =
        static_cast<int>(d) == unit_dim ? int64(itemsize) : extract(array, {2, d});
    llvm::Value* term = b_.CreateMul(i, stride);
    offset = offset ? b_.CreateAdd(offset, term) : term;
  }
  return offset ? offset : int64(0);
}

bool FunctionLowering::checks_bounds() const {
  return thread_ctx_ != nullptr && m_.options.boundscheck;
}

// Where an access may go: `ptr` when the indices are in bounds; otherwise the
// launch's scratch bytes, after recording the first failure of the launch.
llvm::Value* FunctionLowering::guard(llvm::Value* ptr, const IndexCheck& check, SourceLoc loc) {
  llvm::StructType* record_type = m_.error_record_type();
  llvm::Value* record =
      b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(m_.thread_ctx_type(), thread_ctx_, 1));
  llvm::Value* scratch = b_.CreateStructGEP(record_type, record, 6);
  llvm::BasicBlock* in_bounds = b_.GetInsertBlock();
  auto* fail = llvm::BasicBlock::Create(m_.context, "index.out_of_bounds", fn_);
  auto* report = llvm::BasicBlock::Create(m_.context, "index.report", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "index.checked", fn_);
  b_.CreateCondBr(check.ok, done, fail);

  b_.SetInsertPoint(fail);  // only the launch's first failure is recorded
  llvm::Value* won = b_.CreateExtractValue(
      b_.CreateAtomicCmpXchg(b_.CreateStructGEP(record_type, record, 0), b_.getInt32(0),
                             b_.getInt32(1), llvm::MaybeAlign(4),
                             llvm::AtomicOrdering::SequentiallyConsistent,
                             llvm::AtomicOrdering::SequentiallyConsistent),
      1);
  b_.CreateCondBr(won, report, done);

  b_.SetInsertPoint(report);
  b_.CreateStore(check.axis, b_.CreateStructGEP(record_type, record, 1));
  b_.CreateStore(b_.getInt32(loc.line), b_.CreateStructGEP(record_type, record, 2));
  b_.CreateStore(b_.getInt32(loc.col), b_.CreateStructGEP(record_type, record, 3));
  b_.CreateStore(check.index, b_.CreateStructGEP(record_type, record, 4));
  b_.CreateStore(check.extent, b_.CreateStructGEP(record_type, record, 5));
  b_.CreateBr(done);

  b_.SetInsertPoint(done);
  llvm::PHINode* safe = b_.CreatePHI(b_.getPtrTy(), 3);
  safe->addIncoming(ptr, in_bounds);
  safe->addIncoming(scratch, fail);
  safe->addIncoming(scratch, report);
  return safe;
}

llvm::Value* FunctionLowering::element_pointer(llvm::Value* array, const Type& t,
                                               const std::vector<ArrayIndex>& idx, SourceLoc loc) {
  if (t.is_pointer())  // a CPointer: p[i] is i elements on, unchecked (pointer arithmetic)
    return b_.CreateGEP(b_.getInt8Ty(), array, b_.CreateMul(idx.at(0).v, int64(t.itemsize())));
  int unit_dim = -1;
  if (t.layout() == Layout::C) unit_dim = t.ndim() - 1;
  if (t.layout() == Layout::F) unit_dim = 0;
  IndexCheck check;
  llvm::Value* offset = byte_offset(array, idx, unit_dim, static_cast<int>(t.itemsize()),
                                    checks_bounds() ? &check : nullptr);
  llvm::Value* data = extract(array, {0});
  llvm::Value* ptr = b_.CreateInBoundsGEP(b_.getInt8Ty(), data, offset);
  return checks_bounds() ? guard(ptr, check, loc) : ptr;
}

llvm::Value* FunctionLowering::view(llvm::Value* array, const Type& t,
                                    const std::vector<ArrayIndex>& idx, const Type& result,
                                    SourceLoc loc) {
  int unit_dim = t.layout() == Layout::F ? 0 : -1;
  IndexCheck check;
  llvm::Value* offset = byte_offset(array, idx, unit_dim, static_cast<int>(t.itemsize()),
                                    checks_bounds() ? &check : nullptr);
  llvm::Value* data = b_.CreateInBoundsGEP(b_.getInt8Ty(), extract(array, {0}), offset);
  if (checks_bounds()) data = guard(data, check, loc);
  llvm::Value* out = llvm::UndefValue::get(m_.array_struct(result.ndim()));
  out = b_.CreateInsertValue(out, data, {0});
  for (unsigned d = 0; d < static_cast<unsigned>(result.ndim()); ++d) {
    unsigned from = d + static_cast<unsigned>(idx.size());
    llvm::Value* extent = extract(array, {1, from});
    // A view of a bad index is empty, so every access through it fails its own check.
    if (checks_bounds()) extent = b_.CreateSelect(check.ok, extent, int64(0));
    out = b_.CreateInsertValue(out, extent, {1, d});
    out = b_.CreateInsertValue(out, extract(array, {2, from}), {2, d});
  }
  return out;
}

llvm::Value* FunctionLowering::load_element(llvm::Value* ptr, Scalar dtype, uint64_t align) {
  if (align == 0) align = alignment(dtype);
  auto* load = b_.CreateAlignedLoad(m_.memory_type(dtype), ptr, llvm::Align(align));
  if (dtype == Scalar::Bool) return b_.CreateICmpNE(load, b_.getInt8(0));
  return load;
}

void FunctionLowering::store_element(llvm::Value* ptr, llvm::Value* v, Scalar dtype,
                                     uint64_t align) {
  if (align == 0) align = alignment(dtype);
  if (dtype == Scalar::Bool) v = b_.CreateZExt(v, b_.getInt8Ty());
  b_.CreateAlignedStore(v, ptr, llvm::Align(align));
}

llvm::Value* FunctionLowering::subscript(const Node& n) {
  const Type& t = type_of(n.child(0));
  if (t.is_record()) return record_field(n);  // r[k]: a field by position
  llvm::Value* v = expr(n.child(0));
  if (t.is_tuple()) {
    auto constant = f_.constants.find(&n);
    if (constant != f_.constants.end())
      return extract(v, {static_cast<unsigned>(constant->second)});
    return tuple_item(v, t, n, expr_as(n.child(1), Type::scalar(Scalar::Int64)));
  }
  if (ir::has_slice(n.child(1))) return slice_view(v, t, n);
  std::vector<ArrayIndex> idx = indices(n.child(1));
  const Type& result = type_of(n);
  if (result.is_array()) return view(v, t, idx, result, n.loc);
  if (result.is_record()) return element_pointer(v, t, idx, n.loc);  // a record is its address
  return load_element(element_pointer(v, t, idx, n.loc), t.dtype(), element_align(t));
}

// a[i, start:stop:step, ...]: integers fix a dimension (from the end when negative), slices
// keep one, clamped as Python clamps them (PySlice_AdjustIndices); a step of 0, which Python
// refuses, gives an empty dimension. With bounds checks, an integer out of range empties the
// view, so every access through it fails its own check.
llvm::Value* FunctionLowering::slice_view(llvm::Value* array, const Type& t, const Node& n) {
  Type i64 = Type::scalar(Scalar::Int64);
  const Type& result = type_of(n);
  std::vector<const ir::Node*> parts = ir::index_parts(n.child(1));
  llvm::Value* offset = int64(0);
  llvm::Value* ok = b_.getTrue();
  std::vector<std::pair<llvm::Value*, llvm::Value*>> kept;  // extent, stride
  for (unsigned d = 0; d < static_cast<unsigned>(t.ndim()); ++d) {
    llvm::Value* extent = extract(array, {1, d});
    llvm::Value* stride = extract(array, {2, d});
    if (d >= parts.size()) {
      kept.emplace_back(extent, stride);
      continue;
    }
    const ir::Node& part = *parts[d];
    if (!ir::is_slice(part)) {
      llvm::Value* i = expr_as(part, i64);
      i = b_.CreateSelect(b_.CreateICmpSLT(i, int64(0)), b_.CreateAdd(i, extent), i);
      ok = b_.CreateAnd(ok, b_.CreateICmpULT(i, extent));
      offset = b_.CreateAdd(offset, b_.CreateMul(i, stride));
      continue;
    }
    std::string_view present = ir::slice_parts(part);
    unsigned next = 0;
    auto bound = [&](int k) -> llvm::Value* {
      return present[k] == '1' ? expr_as(part.child(next++), i64) : nullptr;
    };
    llvm::Value* start = bound(0);
    llvm::Value* stop = bound(1);
    llvm::Value* step = bound(2);
    if (step == nullptr) step = int64(1);
    llvm::Value* backwards = b_.CreateICmpSLT(step, int64(0));
    llvm::Value* lowest = b_.CreateSelect(backwards, int64(-1), int64(0));
    llvm::Value* highest = b_.CreateSelect(backwards, b_.CreateSub(extent, int64(1)), extent);
    auto adjust = [&](llvm::Value* v, llvm::Value* fallback) {
      if (v == nullptr) return fallback;
      v = b_.CreateSelect(b_.CreateICmpSLT(v, int64(0)), b_.CreateAdd(v, extent), v);
      v = b_.CreateSelect(b_.CreateICmpSLT(v, lowest), lowest, v);
      return b_.CreateSelect(b_.CreateICmpSGT(v, highest), highest, v);
    };
    start = adjust(start, b_.CreateSelect(backwards, highest, int64(0)));
    stop = adjust(stop, b_.CreateSelect(backwards, int64(-1), extent));
    llvm::Value* zero_step = b_.CreateICmpEQ(step, int64(0));
    llvm::Value* magnitude =
        b_.CreateSelect(zero_step, int64(1), b_.CreateSelect(backwards, b_.CreateNeg(step), step));
    llvm::Value* span = b_.CreateSelect(backwards, b_.CreateSub(start, stop),
                                        b_.CreateSub(stop, start));  // > 0 when not empty
    llvm::Value* length = b_.CreateSelect(
        b_.CreateOr(zero_step, b_.CreateICmpSLE(span, int64(0))), int64(0),
        b_.CreateAdd(b_.CreateSDiv(b_.CreateSub(span, int64(1)), magnitude), int64(1)));
    offset = b_.CreateAdd(offset, b_.CreateMul(start, stride));
    kept.emplace_back(length, b_.CreateMul(stride, step));
  }
  // Not inbounds: an empty view may start one element before or after the array.
  llvm::Value* data = b_.CreateGEP(b_.getInt8Ty(), extract(array, {0}), offset);
  llvm::Value* out = llvm::UndefValue::get(m_.array_struct(result.ndim()));
  out = b_.CreateInsertValue(out, data, {0});
  for (unsigned d = 0; d < kept.size(); ++d) {
    llvm::Value* extent = kept[d].first;
    if (checks_bounds()) extent = b_.CreateSelect(ok, extent, int64(0));
    out = b_.CreateInsertValue(out, extent, {1, d});
    out = b_.CreateInsertValue(out, kept[d].second, {2, d});
  }
  return out;
}

// a[...slices...] = x: x in every element of the view, in one flat loop (the position in
// each dimension by division: slice stores are rare, and this keeps one loop for every rank).
void FunctionLowering::fill_view(llvm::Value* view, const Type& t, llvm::Value* value) {
  unsigned ndim = static_cast<unsigned>(t.ndim());
  llvm::Value* total = int64(1);
  for (unsigned d = 0; d < ndim; ++d) total = b_.CreateMul(total, extract(view, {1, d}));
  llvm::BasicBlock* before = b_.GetInsertBlock();
  auto* body = llvm::BasicBlock::Create(m_.context, "fill.body", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "fill.end", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(total, int64(0)), body, done);
  b_.SetInsertPoint(body);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "fill.i");
  i->addIncoming(int64(0), before);
  llvm::Value* rest = i;
  llvm::Value* offset = int64(0);
  for (unsigned d = ndim; d-- > 0;) {
    llvm::Value* extent = extract(view, {1, d});
    offset = b_.CreateAdd(offset, b_.CreateMul(b_.CreateURem(rest, extent), extract(view, {2, d})));
    rest = b_.CreateUDiv(rest, extent);
  }
  store_element(b_.CreateGEP(b_.getInt8Ty(), extract(view, {0}), offset), value, t.dtype(),
                element_align(t));
  llvm::Value* next = b_.CreateAdd(i, int64(1));
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, total), body, done);
  b_.SetInsertPoint(done);
}

// The loop of a NumPy ufunc with an output array (builtins/front_end_forms.cpp,
// type_ufunc_loop): the position of out's `flat` element on each of its axes, C order.
std::vector<ArrayIndex> FunctionLowering::unravel(llvm::Value* out, const Type& t,
                                                  llvm::Value* flat) {
  unsigned ndim = static_cast<unsigned>(t.ndim());
  std::vector<ArrayIndex> idx(ndim);
  llvm::Value* rest = flat;
  for (unsigned d = ndim; d-- > 0;) {
    llvm::Value* extent = extract(out, {1, d});
    idx[d] = {b_.CreateURem(rest, extent), true};
    rest = b_.CreateUDiv(rest, extent);
  }
  return idx;
}

llvm::Value* FunctionLowering::ufunc_item(const Node& n) {
  const Type& x = type_of(n.child(0));
  llvm::Value* value = expr(n.child(0));
  if (!x.is_array()) return value;
  const Type& out = type_of(n.child(1));
  llvm::Value* flat = expr_as(n.child(2), Type::scalar(Scalar::Int64));
  std::vector<ArrayIndex> at = unravel(expr(n.child(1)), out, flat);
  // NumPy's broadcasting: x's axes are out's last ones; an extent of 1 repeats.
  unsigned skip = static_cast<unsigned>(out.ndim() - x.ndim());
  std::vector<ArrayIndex> idx;
  for (unsigned d = 0; d < static_cast<unsigned>(x.ndim()); ++d) {
    llvm::Value* single = b_.CreateICmpEQ(extract(value, {1, d}), int64(1));
    idx.push_back({b_.CreateSelect(single, int64(0), at[d + skip].v), true});
  }
  return load_element(element_pointer(value, x, idx, n.loc), x.dtype(), element_align(x));
}

void FunctionLowering::ufunc_store(const Node& n) {
  const Type& out = type_of(n.child(0));
  llvm::Value* array = expr(n.child(0));
  llvm::Value* flat = expr_as(n.child(1), Type::scalar(Scalar::Int64));
  llvm::Value* v = expr_as(n.child(2), Type::scalar(out.dtype()));
  store_element(element_pointer(array, out, unravel(array, out, flat), n.loc), v, out.dtype(),
                element_align(out));
}

// A uniform tuple indexed at run time: spill it to an array and load.
llvm::Value* FunctionLowering::tuple_item(llvm::Value* tuple, const Type& t, const Node&,
                                          llvm::Value* index) {
  llvm::Type* element = m_.value_type(t.elements()[0]);
  auto size = static_cast<int64_t>(t.elements().size());
  llvm::Type* array_type = llvm::ArrayType::get(element, size);
  llvm::AllocaInst* slot;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    slot = b_.CreateAlloca(array_type);
  }
  for (unsigned i = 0; i < size; ++i)
    b_.CreateStore(extract(tuple, {i}), b_.CreateConstGEP2_32(array_type, slot, 0, i));
  index =
      b_.CreateSelect(b_.CreateICmpSLT(index, int64(0)), b_.CreateAdd(index, int64(size)), index);
  return b_.CreateLoad(element, b_.CreateGEP(array_type, slot, {int64(0), index}));
}

llvm::Value* FunctionLowering::attribute(const Node& n) {
  const Type& t = type_of(n.child(0));
  const std::string& name = n.text;
  if (t.is_record() || (t.is_record_array() && t.record_layout()->find(name)))
    return record_field(n);  // evaluates the record itself
  llvm::Value* v = expr(n.child(0));
  if (t.is_tuple()) return extract(v, {static_cast<unsigned>(f_.constants.at(&n))});  // p.x
  if (t.is_array()) {
    unsigned ndim = static_cast<unsigned>(t.ndim());
    if (name == "ndim") return int64(ndim);
    if (name == "real" || name == "imag") {
      if (!is_complex(t.dtype())) return v;  // a real array's .real is itself
      // The same extents and strides; the imaginary parts start one part further.
      llvm::Value* data = extract(v, {0});
      if (name == "imag")
        data =
            b_.CreateInBoundsGEP(b_.getInt8Ty(), data, int64(byte_size(complex_part(t.dtype()))));
      return b_.CreateInsertValue(v, data, {0});
    }
    if (name == "size") {
      llvm::Value* size = int64(1);
      for (unsigned d = 0; d < ndim; ++d) size = b_.CreateMul(size, extract(v, {1, d}));
      return size;
    }
    unsigned field = name == "shape" ? 1 : 2;
    llvm::Value* out = llvm::UndefValue::get(m_.value_type(type_of(n)));
    for (unsigned d = 0; d < ndim; ++d)
      out = b_.CreateInsertValue(out, extract(v, {field, d}), {d});
    return out;
  }
  // .real / .imag of a scalar
  if (is_complex(t.scalar())) return name == "real" ? re(v) : im(v);
  return name == "real" ? v : zero_value(t);
}

}  // namespace cudajit::lower
