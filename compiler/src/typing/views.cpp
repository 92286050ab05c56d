// The types of views in kernels: array elements and the dimensions an index leaves (a[i, j],
// p[i] of a CPointer), record fields (r.f, a.f of a record array) and the array methods that
// re-describe memory (a.reshape(...), a.view(dtype)).
#include "typer.hpp"

namespace cudajit::typing {

using ir::Node;

std::string field_list(const Type& v) {
  std::string s = "; its fields:";
  for (const RecordField& f : v.record_layout()->fields) s += " ." + f.name;
  return s;
}

Type field_type(const Node& n, const Type& v) {
  const RecordField* f = v.record_layout()->find(n.text);
  if (!f) type_error(n, v.str() + " has no field '" + n.text + "'" + field_list(v));
  return field_type(n, v, f);
}

Type field_type(const Node& n, const Type& v, const RecordField* f) {
  if (!f->opaque.empty())
    type_error(n, "the field '" + f->name + "' of " + v.str() + " holds " + f->opaque +
                      ", which kernels cannot read or write (fields of numbers, arrays or "
                      "records of them can be; copies of the whole record carry it)");
  const int outer = v.is_record() ? 0 : v.ndim();
  if (f->record)  // a record inside the record: a reference to it, or a view of them all
    return outer == 0 ? Type::record(f->record, v.readonly())
                      : Type::record_array(f->record, outer, Layout::A, v.readonly());
  const int ndim = outer + static_cast<int>(f->shape.size());
  if (ndim == 0) return Type::scalar(f->dtype);
  if (ndim > kMaxArrayDims)
    type_error(n, "the field '" + f->name + "' of " + v.str() + " would be a view of " +
                      std::to_string(ndim) + " dimensions; kernels take at most " +
                      std::to_string(kMaxArrayDims));
  const bool aligned = v.record_layout()->field_aligned(*f) && (v.is_record() || v.aligned());
  return Type::array(f->dtype, ndim, outer == 0 ? Layout::C : Layout::A, v.readonly())
      .with_aligned(aligned);
}

namespace {

bool is_integer_0d_array(const Type& t) {
  return t.is_array() && t.ndim() == 0 && is_integer(t.dtype());
}

}  // namespace

Type element_type(const Node& n, const Type& v, const Type& index, bool store) {
  if (v.is_pointer()) {  // a CPointer: one integer index, read and written unchecked
    if (!is_int_like(index) || index.scalar() == Scalar::Bool)
      type_error(n.child(1), v.str() + " is indexed by one integer, got " + index.str());
    return Type::scalar(v.dtype());
  }
  if (!v.is_array()) type_error(n, v.str() + " cannot be indexed");
  std::vector<Type> indices = index.is_tuple() ? index.elements() : std::vector<Type>{index};
  for (const Type& i : indices)
    if (!is_int_like(i) || i.scalar() == Scalar::Bool)
      if (!is_integer_0d_array(i))  // NumPy's rule: a 0-d integer array indexes as an integer
        type_error(n.child(1), "array index must be an integer, got " + i.str() +
                                   " (slices and other indices are not supported in kernels)");
  int count = static_cast<int>(indices.size());
  if (count > v.ndim())
    type_error(n, "too many indices for " + v.str() + ": " + std::to_string(count));
  if (store) {
    if (v.readonly()) {
      std::string message = "cannot write to read-only array ";
      if (n.child(0).kind == ir::NodeKind::Name) {
        message += '\'';
        message += ir::source_name(n.child(0).text);
        message += '\'';
      } else {
        message += "array";
      }
      type_error(n, message + " (" + v.str() + ")");
    }
    if (count < v.ndim())
      type_error(n, "cannot assign to a " + std::to_string(v.ndim() - count) + "-d view of " +
                        v.str() + "; index every dimension");
  }
  if (count == v.ndim()) {
    if (v.is_record_array()) return Type::record(v.record_layout(), v.readonly());
    return Type::scalar(v.dtype());
  }
  // Fewer indices than dimensions: a view of the remaining dimensions.
  return v.with_dims(v.ndim() - count, v.layout() == Layout::C ? Layout::C : Layout::A);
}

Type array_method_type(const Node& n, const Type& v, const std::vector<Type>& args) {
  const std::string method = n.text.substr(0, n.text.find('.'));
  if (!v.is_array()) type_error(n, v.str() + " has no method '" + method + "' in a kernel");
  if (method == "view") {
    std::string_view rest = std::string_view(n.text).substr(5);
    auto dtype = scalar_from_name(rest.substr(0, rest.find('.')));
    if (!dtype) type_error(n, ".view(): unknown dtype '" + std::string(rest) + "'");
    if (v.record_layout()) type_error(n, ".view() of an array of records is not supported");
    if (v.ndim() == 0 && byte_size(*dtype) != v.itemsize())
      type_error(n, ".view(): changing the dtype of a 0-d array is only supported if the "
                    "itemsize is unchanged (NumPy's rule)");
    // Wider items than the array's may start anywhere its own did: read them unaligned.
    const bool aligned = v.aligned() && alignment(*dtype) <= alignment(v.dtype());
    return Type::array(*dtype, v.ndim(), v.layout(), v.readonly()).with_aligned(aligned);
  }
  std::vector<Type> extents = args;
  if (args.size() == 1 && args[0].is_tuple()) extents = args[0].elements();
  for (const Type& e : extents)
    if (!e.is_scalar() || !(is_integer(e.scalar()) || e.scalar() == Scalar::Bool))
      type_error(n, ".reshape() takes integers (or one tuple of them); got " + e.str());
  if (extents.empty() || extents.size() > kMaxArrayDims)
    type_error(n, ".reshape() makes arrays of 1 to " + std::to_string(kMaxArrayDims) +
                      " dimensions; got " + std::to_string(extents.size()));
  return v.with_dims(static_cast<int>(extents.size()), Layout::C);
}

}  // namespace cudajit::typing
