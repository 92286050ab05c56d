// Records (NumPy structured dtypes), as Numba has them: a record is the
// address of its bytes (an element of a record array, a record argument, or a
// record inside a record), so its fields are read and written in place; a nested array field is a
// C-contiguous view of those bytes, and a field of a record array is a strided
// view of that field in every record.
#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

namespace {

int64_t lowest_bit(int64_t v) { return v & -v; }

}  // namespace

llvm::Value* FunctionLowering::field_pointer(llvm::Value* record, const RecordField& field) {
  return b_.CreateInBoundsGEP(b_.getInt8Ty(), record, int64(field.offset));
}

// r.f: the field's value, or a view of a nested array field; a.f of a record
// array: the field of every record, a view with the array's dimensions (its
// strides) followed by the nested array's.
llvm::Value* FunctionLowering::record_field(const Node& n) {
  const Type& t = type_of(n.child(0));
  const Type& result = type_of(n);
  llvm::Value* v = expr(n.child(0));
  const RecordLayout& layout = *t.record_layout();
  auto position = f_.constants.find(&n);  // r[k]: the k-th field
  const RecordField& f = n.kind == ir::NodeKind::Subscript
                             ? layout.fields.at(static_cast<size_t>(position->second))
                             : *layout.find(n.text);
  if (t.is_record() && f.record) return field_pointer(v, f);  // a record is its address
  if (t.is_record() && f.shape.empty())
    return load_element(field_pointer(v, f), f.dtype, field_align(layout, f));
  llvm::Value* data = t.is_record() ? field_pointer(v, f) : field_pointer(extract(v, {0}), f);
  llvm::Value* out = llvm::UndefValue::get(m_.array_struct(result.ndim()));
  out = b_.CreateInsertValue(out, data, {0});
  unsigned d = 0;
  if (t.is_array()) {
    for (; d < static_cast<unsigned>(t.ndim()); ++d) {
      out = b_.CreateInsertValue(out, extract(v, {1, d}), {1, d});
      out = b_.CreateInsertValue(out, extract(v, {2, d}), {2, d});
    }
  }
  int64_t stride = f.record ? f.record->size : byte_size(f.dtype);
  for (size_t k = f.shape.size(); k-- > 0;) {  // C order: the last dimension is contiguous
    out = b_.CreateInsertValue(out, int64(f.shape[k]), {1, d + static_cast<unsigned>(k)});
    out = b_.CreateInsertValue(out, int64(stride), {2, d + static_cast<unsigned>(k)});
    stride *= f.shape[k];
  }
  return out;
}

// r.f = v: a number into a scalar field; into a nested array field, a number
// fills it and an array of its shape is copied into it, element by element.
void FunctionLowering::store_field(const Node& target, llvm::Value* value, const Type& value_type) {
  const Type& t = type_of(target.child(0));
  const RecordLayout& layout = *t.record_layout();
  const RecordField& f = *layout.find(target.text);
  if (f.record) {  // typing checked that `value` is a record of this layout
    copy_record(field_pointer(expr(target.child(0)), f), value, type_of(target));
    return;
  }
  Type element = Type::scalar(f.dtype);
  if (f.shape.empty()) {
    llvm::Value* ptr = field_pointer(expr(target.child(0)), f);
    store_element(ptr, cast(value, value_type, element), f.dtype, field_align(layout, f));
    return;
  }
  const Type& field_type = type_of(target);
  llvm::Value* view = record_field(target);
  if (value_type.is_scalar()) {
    fill_view(view, field_type, cast(value, value_type, element));
    return;
  }
  // One flat loop over the field's elements, each read from the same position of `value`
  // (bounds-checked there when checks are on: a smaller array is an IndexError).
  int64_t total = 1;
  for (int64_t extent : f.shape) total *= extent;
  llvm::BasicBlock* before = b_.GetInsertBlock();
  auto* body = llvm::BasicBlock::Create(m_.context, "field.copy", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "field.copied", fn_);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "field.i");
  i->addIncoming(int64(0), before);
  std::vector<ArrayIndex> at = unravel(view, field_type, i);
  llvm::Value* item = load_element(element_pointer(value, value_type, at, target.loc),
                                   value_type.dtype(), element_align(value_type));
  Type item_type = Type::scalar(value_type.dtype());
  store_element(element_pointer(view, field_type, at, target.loc), cast(item, item_type, element),
                f.dtype, element_align(field_type));
  llvm::Value* next = b_.CreateAdd(i, int64(1));
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, int64(total)), body, done);
  b_.SetInsertPoint(done);
}

// r.f = "abc": the text's bytes (UTF-32 for a 'U' field) into the field, as NumPy stores
// them: truncated to the field's width, or zero-padded to it.
void FunctionLowering::store_characters(const Node& target, const Node& value) {
  const Type& t = type_of(target.child(0));
  const RecordLayout& layout = *t.record_layout();
  const RecordField& f =
      target.kind == NodeKind::Subscript ? layout.fields[0] : *layout.find(target.text);
  const auto width = static_cast<size_t>(f.shape.at(0));
  std::string data = value.child(0).text.substr(0, width);
  data.resize(width, '\0');
  llvm::Value* ptr =
      target.kind == NodeKind::Subscript  // a[i] of a 'U' or 'S' array: the element's bytes
          ? element_pointer(expr(target.child(0)), t, indices(target.child(1)), target.loc)
          : field_pointer(expr(target.child(0)), f);
  b_.CreateAlignedStore(llvm::ConstantDataArray::getString(m_.context, data, /*AddNull=*/false),
                        ptr, llvm::MaybeAlign(1));
}

// a[i] = r: the record's bytes (the same record, or another: never a partial overlap).
void FunctionLowering::copy_record(llvm::Value* to, llvm::Value* from, const Type& t) {
  const RecordLayout& layout = *t.record_layout();
  llvm::MaybeAlign align(static_cast<uint64_t>(
      std::min<int64_t>(layout.alignment(), layout.size > 0 ? lowest_bit(layout.size) : 1)));
  b_.CreateMemCpy(to, align, from, align, int64(layout.size));
}

}  // namespace cudajit::lower
