// cuda.ldca, ldcg, ldcs, ldlu, ldcv (array, index) and cuda.stcg, stcs, stwb, stwt (array,
// index, value): one element loaded or stored with a PTX cache operator (ld.global.ca ...,
// CUDA's __ldca ... __stwt), on an array (checked indices, as a subscript) or a CPointer. On
// the host they are plain loads and stores: the operators are hints, not semantics.
#include <llvm/IR/InlineAsm.h>

#include "../lower/lowering.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

using lower::FunctionLowering;

// Numba's rules and messages (numba.cuda.cache_hints): arrays or pointers of integers or
// floats; an integer index for a 1-D array or a pointer, else one integer per dimension.
Type type_cache_hint(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  const std::string op(suffix(call, "cuda."));
  const bool store = op.starts_with("st");
  const Type& a = args[0];
  if (!(a.is_array() || a.is_pointer()) || a.is_record_array())
    type_error(call, op + " operates on arrays or pointers of numbers. Got type " + a.str());
  const Scalar s = a.dtype();
  if (!is_integer(s) && !is_float(s))
    type_error(call, op + " requires array of integer or float type, got " + std::string(scalar_name(s)));
  if (store && a.is_array() && a.readonly())
    type_error(call, op + " cannot write to a read-only array (" + a.str() + ")");
  const Type& index = args[1];
  auto is_int = [](const Type& t) { return t.is_scalar() && is_integer(t.scalar()); };
  const int ndim = a.is_pointer() ? 1 : a.ndim();
  if (is_int(index)) {
    if (ndim != 1)
      type_error(call, "Expected " + std::to_string(ndim) + " indices, got a scalar");
  } else if (index.is_tuple() && !a.is_pointer() &&
             std::all_of(index.elements().begin(), index.elements().end(), is_int)) {
    const int given = static_cast<int>(index.elements().size());
    if (given != ndim)
      type_error(call, "Expected " + std::to_string(ndim) + " indices, got " +
                           std::to_string(given));
  } else {
    type_error(call, index.str() + " is not a valid index" +
                         (a.is_pointer() ? " (a pointer takes one integer offset)" : ""));
  }
  if (store && !is_real(args[2]))
    type_error(call, op + " stores a real number, got " + args[2].str());
  return store ? Type::none() : Type::scalar(s);
}

llvm::Value* lower_cache_hint(FunctionLowering& f, const Node& n) {
  return f.call_cache_hint(n, suffix(n, "cuda."));
}

}  // namespace

void register_cache_hints(Registry& r) {
  for (std::string_view name : {"cuda.ldca", "cuda.ldcg", "cuda.ldcs", "cuda.ldlu", "cuda.ldcv"})
    r.add({name, takes(2), type_cache_hint, lower_cache_hint, name});
  for (std::string_view name : {"cuda.stcg", "cuda.stcs", "cuda.stwb", "cuda.stwt"})
    r.add({name, takes(3), type_cache_hint, lower_cache_hint, name});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

llvm::Value* FunctionLowering::call_cache_hint(const ir::Node& n, std::string_view op) {
  const Type& at = type_of(n.child(0));
  const Scalar s = at.dtype();
  const bool store = op.starts_with("st");
  llvm::Value* ptr = element_pointer(expr(n.child(0)), at, indices(n.child(1)), n.loc);
  llvm::Value* value = store ? expr_as(n.child(2), Type::scalar(s)) : nullptr;
  if (m_.hooks.has_thread_ctx()) {  // the host: no cache operators
    if (!store) return load_element(ptr, s);
    store_element(ptr, value, s);
    return nullptr;
  }
  // PTX moves the element's bits through a register of its width (8-bit ones through a
  // 16-bit register, which ld/st .b8 take); the instruction reads and writes memory, so
  // it is not moved across other accesses.
  const unsigned bits = byte_size(s) * 8;
  const unsigned reg_bits = bits == 8 ? 16 : bits;
  llvm::Type* reg = b_.getIntNTy(reg_bits);
  const std::string constraint = reg_bits == 16 ? "h" : reg_bits == 32 ? "r" : "l";
  const std::string width = ".b" + std::to_string(bits);
  llvm::Value* address = b_.CreatePtrToInt(ptr, b_.getInt64Ty());
  llvm::Type* bits_type = b_.getIntNTy(bits);
  if (store) {
    llvm::Value* pattern = b_.CreateZExt(b_.CreateBitCast(value, bits_type), reg);
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt64Ty(), reg}, false);
    auto* code = llvm::InlineAsm::get(type, "st.global." + std::string(op.substr(2)) + width +
                                                " [$0], $1;",
                                      "l," + constraint + ",~{memory}", true);
    b_.CreateCall(type, code, {address, pattern});
    return nullptr;
  }
  auto* type = llvm::FunctionType::get(reg, {b_.getInt64Ty()}, false);
  auto* code = llvm::InlineAsm::get(
      type, "ld.global." + std::string(op.substr(2)) + width + " $0, [$1];",
      "=" + constraint + ",l,~{memory}", true);
  llvm::Value* loaded = b_.CreateTrunc(b_.CreateCall(type, code, {address}), bits_type);
  return b_.CreateBitCast(loaded, m_.scalar_type(s));
}

}  // namespace cudajit::lower
