// Signatures of the builtins a kernel may call: Python's, math's, casts and
// the CUDA intrinsics (thread indexing, shared and local arrays, barriers,
// fences, atomics).
#include <algorithm>
#include <set>

#include "typer.hpp"

namespace cudajit::typing {

namespace {

using ir::Node;

const std::set<std::string, std::less<>> kUnaryMath = {
    "sqrt",  "exp",  "expm1", "log",  "log2",  "log10",  "log1p", "sin",     "cos",
    "tan",   "asin", "acos",  "atan", "sinh",  "cosh",   "tanh",  "asinh",   "acosh",
    "atanh", "fabs", "erf",   "erfc", "gamma", "lgamma", "exp2",  "degrees", "radians"};
const std::set<std::string, std::less<>> kBinaryMath = {"pow",   "atan2",     "copysign", "fmod",
                                                        "hypot", "nextafter", "remainder"};
// numba-cuda types these as floats (the argument's float type), not Python's int.
const std::set<std::string, std::less<>> kRoundingMath = {"floor", "ceil", "trunc"};
const std::set<std::string, std::less<>> kPredicateMath = {"isnan", "isinf", "isfinite"};

bool is_real(const Type& t) { return t.is_scalar() && !is_complex(t.scalar()); }

void expect_args(const Node& call, const std::vector<Type>& args, size_t lo, size_t hi) {
  if (args.size() >= lo && args.size() <= hi) return;
  std::string want =
      lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  type_error(call, call.text + "() takes " + want + " argument" + (hi == 1 ? "" : "s") + ", got " +
                       std::to_string(args.size()));
}

void expect_real(const Node& call, const Type& t) {
  if (!is_real(t))
    type_error(call, call.text + "() needs a real number (int, float or bool), got " + t.str());
}

// The float type a math function computes in: float32 (or float16) only when
// every argument is, as Numba picks the f32 libdevice variants.
Scalar math_float(const std::vector<Type>& args) {
  for (Scalar s : {Scalar::Float16, Scalar::Float32}) {
    if (std::all_of(args.begin(), args.end(), [s](const Type& t) { return t.is_scalar(s); }))
      return s;
  }
  return Scalar::Float64;
}

Type type_math(const Node& call, std::string_view name, const std::vector<Type>& args) {
  std::string n(name);
  if (n == "frexp" || n == "modf") {
    // As Numba types them: (mantissa, exponent as a C int) and (fraction, integral part).
    expect_args(call, args, 1, 1);
    expect_real(call, args[0]);
    Type f = Type::scalar(math_float(args));
    return Type::tuple({f, n == "frexp" ? Type::scalar(Scalar::Int32) : f});
  }
  if (n == "ldexp") {
    expect_args(call, args, 2, 2);
    expect_real(call, args[0]);
    if (!args[1].is_scalar() || !(is_integer(args[1].scalar()) || args[1].is_scalar(Scalar::Bool)))
      type_error(call, "math.ldexp() needs an integer exponent, got " + args[1].str());
    return Type::scalar(math_float({args[0]}));
  }
  if (kUnaryMath.count(n) || kRoundingMath.count(n) || kPredicateMath.count(n)) {
    expect_args(call, args, 1, 1);
  } else if (kBinaryMath.count(n)) {
    expect_args(call, args, 2, 2);
  } else {
    type_error(call, "math." + n + "() is not supported in kernels");
  }
  for (const Type& t : args) expect_real(call, t);
  if (kPredicateMath.count(n)) return Type::scalar(Scalar::Bool);
  return Type::scalar(math_float(args));
}

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

void expect_integer_or_bool(const Node& call, std::string_view what, const Type& t) {
  if (t.is_scalar() && (is_integer(t.scalar()) || t.scalar() == Scalar::Bool)) return;
  type_error(call, std::string(what) + " needs an integer or bool, got " + t.str());
}

Type type_sync(const Node& call, std::string_view name, const std::vector<Type>& args) {
  std::string what = "cuda." + std::string(name) + "()";
  if (name == "syncthreads" || name.starts_with("threadfence")) {
    expect_args(call, args, 0, 0);
    return Type::none();
  }
  if (name == "syncwarp") {
    expect_args(call, args, 0, 1);
    if (!args.empty()) expect_integer_or_bool(call, what + "'s mask", args[0]);
    return Type::none();
  }
  if (name == "syncthreads_count" || name == "syncthreads_and" || name == "syncthreads_or") {
    expect_args(call, args, 1, 1);
    expect_integer_or_bool(call, what, args[0]);
    return Type::scalar(Scalar::Int32);
  }
  type_error(call, "cuda." + std::string(name) + " is not supported in kernels");
}

// cuda.atomic.<op>(ary, idx, val), cas(ary, idx, old, val) and
// compare_and_swap(ary, old, val): the old value, of the array's dtype.
Type type_atomic(const Node& call, std::string_view op, const std::vector<Type>& args) {
  static const std::set<std::string, std::less<>> kArithmetic = {"add", "sub",    "max",
                                                                 "min", "nanmax", "nanmin"};
  static const std::set<std::string, std::less<>> kBitwise = {"and_", "or_", "xor", "exch"};
  const std::string what = "cuda.atomic." + std::string(op) + "()";
  const bool cas = op == "cas";
  const bool cas0 = op == "compare_and_swap";
  if (!kArithmetic.count(op) && !kBitwise.count(op) && op != "inc" && op != "dec" && !cas && !cas0)
    type_error(call, "cuda.atomic." + std::string(op) + " is not supported in kernels");
  size_t arity = cas ? 4 : 3;
  if (args.size() != arity)
    type_error(call, what + " takes " + std::to_string(arity) + " arguments, got " +
                         std::to_string(args.size()));
  const Type& array = args[0];
  if (!array.is_array())
    type_error(call, what + " needs an array as its first argument, got " + array.str());
  if (array.readonly())
    type_error(call, what + " cannot modify a read-only array (" + array.str() + ")");
  if (!array.aligned())
    type_error(call, what + " needs aligned elements; " + array.str() +
                         " is a view of a packed record's field (make the dtype with align=True)");
  Scalar s = array.dtype();
  bool ok;
  std::string wanted;
  if (op == "inc" || op == "dec") {
    ok = s == Scalar::UInt32 || s == Scalar::UInt64;
    wanted = "uint32 or uint64";
  } else if (kBitwise.count(op) || cas || cas0) {
    ok = is_integer(s) && bit_width(s) >= 32;
    wanted = "int32, uint32, int64 or uint64";
  } else {
    ok = (is_integer(s) && bit_width(s) >= 32) || s == Scalar::Float32 || s == Scalar::Float64 ||
         (s == Scalar::Float16 && op == "add");
    wanted = op == "add" ? "int32, uint32, int64, uint64, float16, float32 or float64"
                         : "int32, uint32, int64, uint64, float32 or float64";
  }
  if (!ok) type_error(call, what + " works on arrays of " + wanted + ", got " + array.str());
  if (cas0) {
    if (array.ndim() != 1)
      type_error(call, what + " needs a 1-D array (it works on element 0), got " + array.str());
  } else {
    const Type& index = args[1];
    bool scalar_index = index.is_scalar() && is_integer(index.scalar());
    bool tuple_index =
        index.is_tuple() &&
        std::all_of(index.elements().begin(), index.elements().end(),
                    [](const Type& t) { return t.is_scalar() && is_integer(t.scalar()); });
    int given = scalar_index ? 1 : tuple_index ? static_cast<int>(index.elements().size()) : -1;
    if (given < 0)
      type_error(call, what + " needs an integer index or a tuple of them, got " + index.str());
    if (given != array.ndim())
      type_error(call, what + " needs " + std::to_string(array.ndim()) + " indices for " +
                           array.str() + ", got " + std::to_string(given));
  }
  for (size_t i = cas0 ? 1 : 2; i < args.size(); ++i) {
    if (!is_real(args[i]))
      type_error(call, what + " needs a real number to combine, got " + args[i].str());
  }
  return Type::scalar(s);
}

// Warp-level functions: (mask, value/predicate[, lane]) as Numba spells them.
std::optional<Type> type_warp(const Node& call, std::string_view name,
                              const std::vector<Type>& args) {
  static const std::set<std::string, std::less<>> kShuffles = {"shfl_sync", "shfl_up_sync",
                                                               "shfl_down_sync", "shfl_xor_sync"};
  static const std::set<std::string, std::less<>> kVotes = {"all_sync", "any_sync", "eq_sync",
                                                            "ballot_sync"};
  const std::string what = "cuda." + std::string(name) + "()";
  auto integer_arg = [&](size_t i, const char* role) {
    const Type& t = args[i];
    if (!t.is_scalar() || !(is_integer(t.scalar()) || t.scalar() == Scalar::Bool))
      type_error(call, what + " needs an integer " + role + ", got " + t.str());
  };
  auto transported = [&](size_t i) {
    const Type& t = args[i];
    if (!t.is_scalar() || is_complex(t.scalar()) || t.scalar() == Scalar::Bool)
      type_error(call, what + " exchanges integers and floats, got " + t.str());
  };
  if (name == "activemask" || name == "lanemask_lt") {
    expect_args(call, args, 0, 0);
    return Type::scalar(Scalar::UInt32);
  }
  if (kShuffles.count(name)) {
    expect_args(call, args, 3, 3);
    integer_arg(0, "mask");
    transported(1);
    integer_arg(2, name == "shfl_sync"       ? "source lane"
                   : name == "shfl_xor_sync" ? "lane mask"
                                             : "delta");
    return args[1];
  }
  if (kVotes.count(name)) {
    expect_args(call, args, 2, 2);
    integer_arg(0, "mask");
    if (!args[1].is_scalar() || is_complex(args[1].scalar()))
      type_error(call, what + " needs a predicate (a number or bool), got " + args[1].str());
    return Type::scalar(name == "ballot_sync" ? Scalar::Int32 : Scalar::Bool);
  }
  if (name == "match_any_sync" || name == "match_all_sync") {
    expect_args(call, args, 2, 2);
    integer_arg(0, "mask");
    transported(1);
    if (name == "match_any_sync") return Type::scalar(Scalar::Int32);
    return Type::tuple({Type::scalar(Scalar::Int32), Type::scalar(Scalar::Bool)});
  }
  return std::nullopt;
}

// popc, brev, clz, ffs, fma, cbrt, selp: Numba's bit and math intrinsics.
std::optional<Type> type_bit_math(const Node& call, std::string_view name,
                                  const std::vector<Type>& args) {
  const std::string what = "cuda." + std::string(name) + "()";
  auto integer = [&](const Type& t) { return t.is_scalar() && is_integer(t.scalar()); };
  if (name == "popc" || name == "clz" || name == "ffs") {
    expect_args(call, args, 1, 1);
    if (!integer(args[0])) type_error(call, what + " needs an integer, got " + args[0].str());
    return name == "ffs" ? Type::scalar(Scalar::UInt32) : args[0];
  }
  if (name == "brev") {
    expect_args(call, args, 1, 1);
    if (!args[0].is_scalar(Scalar::UInt32) && !args[0].is_scalar(Scalar::UInt64))
      type_error(call, what + " takes uint32 or uint64, got " + args[0].str() +
                           " (convert it with cuda.uint32() or cuda.uint64())");
    return args[0];
  }
  if (name == "fma" || name == "cbrt") {
    expect_args(call, args, name == "fma" ? 3 : 1, name == "fma" ? 3 : 1);
    for (const Type& t : args) expect_real(call, t);
    return Type::scalar(math_float(args));
  }
  if (name == "selp") {
    expect_args(call, args, 3, 3);
    if (!args[0].is_scalar() || is_complex(args[0].scalar()))
      type_error(call, what + " needs a predicate (a number or bool), got " + args[0].str());
    std::optional<Type> common = unify(args[1], args[2]);
    if (!common || !common->is_scalar())
      type_error(call, what + " chooses between two numbers of compatible types, got " +
                           args[1].str() + " and " + args[2].str());
    return *common;
  }
  return std::nullopt;
}

// cuda.reinterpret.<type>(x): x's bits as <type> (libdevice's float_as_int ...),
// and cuda.libm.<j0 ...>: the Bessel functions libdevice and libm have.
std::optional<Type> type_libdevice_support(const Node& call, std::string_view name,
                                           const std::vector<Type>& args) {
  const std::string what = "cuda." + std::string(name) + "()";
  if (name.starts_with("reinterpret.")) {
    auto target = scalar_from_name(name.substr(12));
    expect_args(call, args, 1, 1);
    if (!target || !args[0].is_scalar() || args[0].is_scalar(Scalar::Bool) ||
        is_complex(args[0].scalar()) || args[0].scalar() == Scalar::BFloat16 ||
        bit_width(args[0].scalar()) != bit_width(*target))
      type_error(call, what + " needs a number of the same width, got " + args[0].str());
    return Type::scalar(*target);
  }
  if (name == "like.real" || name == "like.complex") {
    // For cudajit's cmath: a float, or a complex, of the precision of the first argument
    // (float32 or complex64 give float32 / complex64; anything else 64 bits).
    size_t count = name == "like.real" ? 2 : 3;
    expect_args(call, args, count, count);
    for (const Type& t : args)
      if (!t.is_scalar()) type_error(call, what + " needs numbers, got " + t.str());
    bool single = args[0].is_scalar(Scalar::Float32) || args[0].is_scalar(Scalar::Complex64);
    if (name == "like.real") return Type::scalar(single ? Scalar::Float32 : Scalar::Float64);
    return Type::scalar(single ? Scalar::Complex64 : Scalar::Complex128);
  }
  if (name == "libm.j0" || name == "libm.j1" || name == "libm.y0" || name == "libm.y1") {
    expect_args(call, args, 1, 1);
    expect_real(call, args[0]);
    return Type::scalar(math_float(args) == Scalar::Float32 ? Scalar::Float32 : Scalar::Float64);
  }
  if (name == "libm.jn" || name == "libm.yn") {
    expect_args(call, args, 2, 2);
    if (!args[0].is_scalar() || !is_integer(args[0].scalar()))
      type_error(call, what + " needs an integer order, got " + args[0].str());
    expect_real(call, args[1]);
    return Type::scalar(args[1].is_scalar(Scalar::Float32) ? Scalar::Float32 : Scalar::Float64);
  }
  return std::nullopt;
}

// cuda.const.array.<dtype>: a NumPy array frozen into the kernel (a global, a
// closure variable or cuda.const.array_like): a shape tuple and its bytes.
// cuda.const.array.record: the same, then the record type's spelling as bytes.
Type type_const_array(const Node& call, std::string_view name) {
  const NamedElement e = named_element(call, name, "constant array");
  const bool record = e.record;
  if (call.size() != (record ? 3u : 2u) || call.child(0).kind != ir::NodeKind::Tuple ||
      call.child(1).kind != ir::NodeKind::Bytes || call.child(0).size() == 0 ||
      call.child(0).size() > kMaxArrayDims || (record && call.child(2).kind != ir::NodeKind::Bytes))
    type_error(call, "constant array: expects a shape of 1 to " + std::to_string(kMaxArrayDims) +
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

// A NumPy ufunc called with an output array in a kernel (np.sin(x, out)): the front end
// loops over out's ufunc.size(out) elements; ufunc.item(x, out, i) is x's element at out's i-th
// position (NumPy's broadcasting: x's axes align with out's last ones, extents of 1 repeat), or x
// itself for a number; ufunc.store(out, i, v) writes out's i-th element (C order).
std::optional<Type> type_ufunc_loop(const Node& call, std::string_view name,
                                    const std::vector<Type>& args) {
  if (name != "ufunc.item" && name != "ufunc.store" && name != "ufunc.size") return std::nullopt;
  expect_args(call, args, name == "ufunc.size" ? 1 : 3, name == "ufunc.size" ? 1 : 3);
  const Type& out = name == "ufunc.item" ? args[1] : args[0];
  if (!out.is_array())
    type_error(call, "a NumPy ufunc's output in a kernel must be an array, got " + out.str());
  if (name == "ufunc.size") return Type::scalar(Scalar::Int64);
  const Type& index = name == "ufunc.item" ? args[2] : args[1];
  if (!index.is_scalar() || !is_integer(index.scalar()))
    type_error(call, "internal: ufunc position must be an integer, got " + index.str());
  if (name == "ufunc.store") {
    if (out.readonly()) type_error(call, "a NumPy ufunc cannot write its output into " + out.str());
    if (!args[2].is_scalar())
      type_error(call, "a NumPy ufunc computed " + args[2].str() + ", not a number");
    // NumPy's same_kind casting: never from complex to real, nor from a float to an integer.
    auto kind = [](Scalar s) {
      return s == Scalar::Bool ? 0 : is_integer(s) ? 1 : is_complex(s) ? 3 : 2;
    };
    if (kind(args[2].scalar()) > kind(out.dtype()))
      type_error(call, "a NumPy ufunc cannot store " + args[2].str() + " results in an array of " +
                           std::string(scalar_name(out.dtype())) + " (NumPy's same_kind casting)");
    return Type::none();
  }
  const Type& x = args[0];
  if (x.is_array()) {
    if (x.ndim() > out.ndim())
      type_error(call, "a NumPy ufunc's input " + x.str() +
                           " has more dimensions than its output " + out.str());
    return Type::scalar(x.dtype());
  }
  if (!x.is_scalar())
    type_error(call, "a NumPy ufunc in a kernel takes numbers and arrays, got " + x.str());
  return x;
}

// cuda.vector.<base>x<n>(...): CUDA's vector type, from numbers and smaller vectors of the same
// base type, n components in all; a named tuple with fields x, y, z, w (as Numba's).
Type type_vector(const Node& call, std::string_view name, const std::vector<Type>& args) {
  const size_t x = name.rfind('x');
  auto base = scalar_from_name(name.substr(0, x));
  const size_t count =
      x == std::string_view::npos ? 0 : std::stoul(std::string(name.substr(x + 1)));
  if (!base || count < 1 || count > 4)
    type_error(call, "unknown vector type '" + std::string(name) + "'");
  size_t given = 0;
  for (const Type& a : args) {
    if (a.is_scalar() && !is_complex(a.scalar())) {
      ++given;
    } else if (a.is_tuple() && a.tuple_name().starts_with(std::string(name.substr(0, x)) + "x") &&
               a.fields().size() == a.elements().size()) {
      given += a.elements().size();  // a smaller vector of the same type
    } else {
      type_error(call, "cuda." + std::string(name) + "() takes numbers and vectors of " +
                           std::string(scalar_name(*base)) + "; got " + a.str());
    }
  }
  if (given != count)
    type_error(call, "cuda." + std::string(name) + "() needs " + std::to_string(count) +
                         " components; got " + std::to_string(given));
  static const char* const kFields[] = {"x", "y", "z", "w"};
  return Type::named_tuple(std::string(name), std::vector<Type>(count, Type::scalar(*base)),
                           std::vector<std::string>(kFields, kFields + count));
}

Type type_cuda(const Node& call, std::string_view name, const std::vector<Type>& args,
               TypedFunction& out) {
  if (name.starts_with("vector.")) return type_vector(call, name.substr(7), args);
  if (auto ufunc = type_ufunc_loop(call, name, args)) return *ufunc;
  if (name.starts_with("const.array.")) return type_const_array(call, name);
  if (name.starts_with("captured.array.")) return type_captured_array(call, name);
  if (auto bits = type_bit_math(call, name, args)) return *bits;
  if (auto support = type_libdevice_support(call, name, args)) return *support;
  if (auto warp = type_warp(call, name, args)) return *warp;
  if (name.starts_with("shared.array.") || name.starts_with("local.array."))
    return type_array_allocation(call, name);
  if (name.starts_with("atomic.")) return type_atomic(call, name.substr(7), args);
  if (name.starts_with("sync") || name.starts_with("threadfence"))
    return type_sync(call, name, args);
  if (name == "cg.grid_sync") {  // cuda.cg.this_grid().sync(), spelled so by the front end
    expect_args(call, args, 0, 0);
    return Type::none();
  }
  if (name == "cg.this_grid")
    type_error(call, "cuda.cg.this_grid() can only be assigned to a name or called .sync() on");
  static const std::set<std::string, std::less<>> kIndexRegisters = {
      "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y",
      "blockIdx.z",  "blockDim.x",  "blockDim.y",  "blockDim.z", "gridDim.x",
      "gridDim.y",   "gridDim.z",   "laneid",      "warpsize"};
  if (kIndexRegisters.count(name)) {
    expect_args(call, args, 0, 0);
    return Type::scalar(Scalar::Int32);
  }
  if (name == "grid" || name == "gridsize") {
    if (args.size() != 1 || call.child(0).kind != ir::NodeKind::Int ||
        call.child(0).int_value < 1 || call.child(0).int_value > 3)
      type_error(call, "cuda." + std::string(name) + "() takes one literal argument, 1, 2 or 3");
    int64_t ndim = call.child(0).int_value;
    out.constants[&call] = ndim;
    if (ndim == 1) return Type::scalar(Scalar::Int64);
    return Type::tuple(std::vector<Type>(ndim, Type::scalar(Scalar::Int64)));
  }
  type_error(call, "cuda." + std::string(name) + " is not supported in kernels");
}

Type type_python_builtin(const Node& call, const std::string& name, const std::vector<Type>& args) {
  if (name == "array.address") {  // a.ctypes.data: the address of the array's first element
    expect_args(call, args, 1, 1);
    if (args[0].is_array()) return Type::scalar(Scalar::UInt64);
    type_error(call, ".ctypes.data needs an array, got " + args[0].str());
  }
  if (name == "len") {
    expect_args(call, args, 1, 1);
    if (args[0].is_array() || args[0].is_tuple()) return Type::scalar(Scalar::Int64);
    type_error(call, "len() needs an array or a tuple, got " + args[0].str());
  }
  if (name == "min" || name == "max") {
    bool from_tuple = args.size() == 1 && args[0].is_tuple();
    std::vector<Type> values = from_tuple ? args[0].elements() : args;
    if (values.empty() || (!from_tuple && values.size() < 2))
      type_error(call, name + "() needs at least two numbers, or one tuple");
    Type result = values[0];
    for (const Type& t : values) {
      expect_real(call, t);
      result = Type::scalar(promote(result.scalar(), t.scalar()));
    }
    return result;
  }
  if (name == "abs") {
    expect_args(call, args, 1, 1);
    if (!args[0].is_scalar()) type_error(call, "abs() needs a number, got " + args[0].str());
    Scalar s = args[0].scalar();
    if (is_complex(s)) return Type::scalar(complex_part(s));
    if (s == Scalar::Bool) return Type::scalar(Scalar::Int64);
    return args[0];
  }
  if (name == "int" || name == "float" || name == "bool") {
    expect_args(call, args, 1, 1);
    if (name == "bool") {
      if (!args[0].is_scalar()) type_error(call, "bool() needs a number, got " + args[0].str());
      return Type::scalar(Scalar::Bool);
    }
    expect_real(call, args[0]);
    return Type::scalar(name == "int" ? Scalar::Int64 : Scalar::Float64);
  }
  if (name == "complex") {
    expect_args(call, args, 1, 2);
    for (const Type& t : args) expect_real(call, t);
    bool all_f32 = std::all_of(args.begin(), args.end(),
                               [](const Type& t) { return t.is_scalar(Scalar::Float32); });
    return Type::scalar(all_f32 ? Scalar::Complex64 : Scalar::Complex128);  // as Numba
  }
  if (name == "round") {
    expect_args(call, args, 1, 2);
    expect_real(call, args[0]);
    if (args.size() == 1) return Type::scalar(Scalar::Int64);
    if (!args[1].is_scalar() || !is_integer(args[1].scalar()))
      type_error(call, "round() ndigits must be an integer, got " + args[1].str());
    return is_float(args[0].scalar()) ? args[0] : Type::scalar(Scalar::Int64);
  }
  if (name == "range") type_error(call, "range() can only be used as the iterable of a for loop");
  if (name == "print") {
    // Numbers, bools and tuples of them (nested too), and string literals.
    auto printable = [](const Type& t, auto& self) -> bool {
      if (t.is_tuple())
        return std::all_of(t.elements().begin(), t.elements().end(),
                           [&](const Type& e) { return self(e, self); });
      return t.is_scalar() && !is_complex(t.scalar());
    };
    for (size_t i = 0; i < args.size(); ++i) {
      if (call.child(i).kind == ir::NodeKind::Bytes) continue;  // a string literal
      if (!printable(args[i], printable))
        type_error(call.child(i),
                   "print() in kernels takes numbers, bools, tuples of them and string "
                   "literals, got " +
                       args[i].str());
    }
    return Type::none();
  }
  type_error(call, name + "() is not supported in kernels");
}

}  // namespace

Type type_builtin_call(const Node& call, const std::vector<Type>& args, TypedFunction& out) {
  std::string_view name = call.text;
  // debug=True's checks around an expression (lower/exceptions.cpp): its own type.
  if (name.starts_with("debug.")) {
    expect_args(call, args, 1, 1);
    return args[0];
  }
  if (name.starts_with("math.")) return type_math(call, name.substr(5), args);
  if (name.starts_with("extern.")) return type_foreign_call(call, args);
  if (name.starts_with("cuda.")) return type_cuda(call, name.substr(5), args, out);
  if (name.starts_with("cast.")) {
    auto target = scalar_from_name(name.substr(5));
    if (!target) type_error(call, "unknown cast '" + std::string(name) + "'");
    if (*target == Scalar::BFloat16)
      type_error(call,
                 "bfloat16 is a storage type in kernels: elements read as float32 and "
                 "stores round to bfloat16; compute in float32 instead");
    expect_args(call, args, 1, 1);
    if (!args[0].is_scalar())
      type_error(call, std::string(name.substr(5)) + "() needs a number, got " + args[0].str());
    if (is_complex(args[0].scalar()) && !is_complex(*target))
      type_error(call, "cannot convert " + args[0].str() + " to " + std::string(name.substr(5)) +
                           " (take .real first)");
    return Type::scalar(*target);
  }
  return type_python_builtin(call, call.text, args);
}

TypedProgram type_program(const ir::Module& module, const std::vector<Type>& arg_types,
                          bool is_kernel, std::optional<Type> declared_return) {
  const ir::Function& entry = module.functions.at(0);
  if (entry.params.size() != arg_types.size())
    throw CompileError("'" + entry.name + "' takes " + std::to_string(entry.params.size()) +
                           " arguments, but the signature has " + std::to_string(arg_types.size()),
                       entry.loc, module.file);
  for (size_t i = 0; i < arg_types.size(); ++i)
    if (arg_types[i].is_none())
      throw CompileError(
          "argument '" + entry.params[i] + "' cannot be of type " + arg_types[i].str(), entry.loc,
          module.file);
  ProgramTyper typer(module);
  try {
    const TypedFunction& typed = typer.specialize(entry, arg_types, nullptr, is_kernel);
    if (declared_return && *declared_return != typed.return_type) {
      const Type& inferred = typed.return_type;
      bool convertible = inferred.is_scalar() && declared_return->is_scalar() &&
                         (!is_complex(inferred.scalar()) || is_complex(declared_return->scalar()));
      if (!convertible)
        throw CompileError("'" + entry.name + "' returns " + inferred.str() +
                               ", which cannot be converted to the declared return type " +
                               declared_return->str(),
                           entry.loc);
    }
    TypedProgram program = typer.take(&typed);
    if (declared_return) {
      // The entry is ours alone (no caller shares the specialisation): lowering
      // converts each returned value to the declared type.
      const_cast<TypedFunction*>(program.entry)->return_type = *declared_return;
    }
    return program;
  } catch (CompileError& e) {
    if (e.file().empty()) e.set_file(module.file);
    throw;
  }
}

std::string print_typed(const TypedProgram& program) {
  std::string out;
  for (const TypedFunction& f : program.functions) {
    out += f.symbol + "(";
    for (size_t i = 0; i < f.arg_types.size(); ++i)
      out += (i ? ", " : "") + f.function->params[i] + ": " + f.arg_types[i].str();
    out += ") -> " + f.return_type.str() + "\n";
    for (const auto& [name, type] : f.locals) out += "  " + name + ": " + type.str() + "\n";
  }
  return out;
}

}  // namespace cudajit::typing
