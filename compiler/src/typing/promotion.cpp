// Numba's type-merging rules: NumPy promotion for variables that merge, and
// the widened integer arithmetic of Numba (results at least 64 bits wide).
#include <algorithm>

#include "cudajit/compiler/typed.hpp"

namespace cudajit::typing {

namespace {

// Smallest float that holds every value of an integer of `bits` (NumPy rule).
int float_bits_for_int(int bits) { return bits <= 8 ? 16 : bits <= 16 ? 32 : 64; }

int float_bits(Scalar s) {
  if (is_float(s)) return bit_width(s);
  if (is_complex(s)) return bit_width(s) / 2;
  if (s == Scalar::Bool) return 32;
  return float_bits_for_int(bit_width(s));
}

}  // namespace

Scalar promote(Scalar a, Scalar b) {
  if (a == b) return a;
  if (a == Scalar::Bool) return b;
  if (b == Scalar::Bool) return a;
  if (is_npdatetime(a) && is_npdatetime(b) && is_datetime(a) == is_datetime(b)) {
    // Two datetimes (or timedeltas) meet in the finer unit when the units convert.
    auto unit = common_datetime_unit(datetime_unit(a), datetime_unit(b));
    if (unit) return is_datetime(a) ? make_datetime(*unit) : make_timedelta(*unit);
  }
  // An fp8 value meets any other number as its value in float32 (fp8 has no arithmetic).
  if (is_fp8(a)) return promote(Scalar::Float32, b);
  if (is_fp8(b)) return promote(a, Scalar::Float32);
  if (is_complex(a) || is_complex(b)) {
    int bits = std::max(float_bits(a), float_bits(b));
    return bits <= 32 ? Scalar::Complex64 : Scalar::Complex128;
  }
  if (a == Scalar::BFloat16 || b == Scalar::BFloat16) {
    // As JAX's (ml_dtypes') promotion: bfloat16 holds what float16 holds but for float16
    // itself, which meets it in float32.
    Scalar other = a == Scalar::BFloat16 ? b : a;
    if (other == Scalar::Float16) return Scalar::Float32;
    Scalar as_half = promote(Scalar::Float16, other);
    return as_half == Scalar::Float16 ? Scalar::BFloat16 : as_half;
  }
  if (is_float(a) || is_float(b)) return make_float(std::max(float_bits(a), float_bits(b)));
  // Both integers.
  bool sa = is_signed(a), sb = is_signed(b);
  int ba = bit_width(a), bb = bit_width(b);
  if (sa == sb) return make_int(std::max(ba, bb), sa);
  int signed_bits = sa ? ba : bb;
  int unsigned_bits = sa ? bb : ba;
  if (signed_bits > unsigned_bits) return make_int(signed_bits, true);
  if (unsigned_bits < 64) return make_int(2 * unsigned_bits, true);
  return Scalar::Float64;  // int64 with uint64, as NumPy
}

Scalar arithmetic_result(Scalar a, Scalar b) {
  if (is_fp8(a) || is_fp8(b))  // computed in float32, as CUDA's fp8 types convert for it
    return arithmetic_result(is_fp8(a) ? Scalar::Float32 : a, is_fp8(b) ? Scalar::Float32 : b);
  if ((is_integer(a) || a == Scalar::Bool) && (is_integer(b) || b == Scalar::Bool)) {
    // Numba computes integers in 64 bits, signed when either operand is.
    bool any_signed = is_signed(a) || is_signed(b) || a == Scalar::Bool || b == Scalar::Bool;
    bool both_unsigned = !any_signed;
    return both_unsigned ? Scalar::UInt64 : Scalar::Int64;
  }
  // An integer meets a float as int64 does: float32 + int32 -> float64.
  auto widen = [](Scalar s) { return is_integer(s) ? Scalar::Int64 : s; };
  return promote(widen(a), widen(b));
}

std::optional<Type> unify(const Type& a, const Type& b) {
  if (a == b) return a;
  if (a.is_none() || b.is_none() || a.is_optional() || b.is_optional()) {
    // None meets a number (returns of None and of numbers): an optional number, Numba's
    // OptionalType; optionals meet as their numbers do.
    auto value = [](const Type& t) { return t.is_optional() ? t.optional_value() : t; };
    if (a.is_none() || b.is_none()) {
      const Type& other = a.is_none() ? b : a;
      if (other.is_scalar()) return Type::optional(other);
      if (other.is_optional()) return other;
      return std::nullopt;
    }
    auto u = unify(value(a), value(b));
    if (u && u->is_scalar()) return Type::optional(*u);
    return std::nullopt;
  }
  if (a.is_scalar() && b.is_scalar()) return Type::scalar(promote(a.scalar(), b.scalar()));
  if (a.is_array() && b.is_array()) {
    // Same elements (dtype or record fields) and dimensions; the layouts may differ.
    if (a.with_dims(a.ndim(), Layout::A).with_readonly(false).with_aligned(true) !=
        b.with_dims(b.ndim(), Layout::A).with_readonly(false).with_aligned(true))
      return std::nullopt;
    Layout layout = a.layout() == b.layout() ? a.layout() : Layout::A;
    return a.with_dims(a.ndim(), layout)
        .with_readonly(a.readonly() || b.readonly())
        .with_aligned(a.aligned() && b.aligned());
  }
  if (a.is_record() && b.is_record()) {
    if (a.with_readonly(false) != b.with_readonly(false)) return std::nullopt;
    return a.with_readonly(a.readonly() || b.readonly());
  }
  if (a.is_tuple() && b.is_tuple() && a.elements().size() == b.elements().size()) {
    std::vector<Type> elements;
    for (size_t i = 0; i < a.elements().size(); ++i) {
      auto e = unify(a.elements()[i], b.elements()[i]);
      if (!e) return std::nullopt;
      elements.push_back(*e);
    }
    return Type::tuple(std::move(elements));
  }
  return std::nullopt;
}

}  // namespace cudajit::typing
