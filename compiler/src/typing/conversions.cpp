#include "cudajit/compiler/conversions.hpp"

#include <algorithm>

namespace cudajit {

namespace {

// Numba's base rules, closed over chains (Floyd-Warshall over (min, max)).
class ConversionTable {
 public:
  ConversionTable() {
    for (auto& row : kind_) row.fill(Conversion::None);
    for (int s = 0; s < kScalars; ++s) kind_[s][s] = Conversion::Exact;
    const auto P = Conversion::Promote, S = Conversion::Safe, U = Conversion::Unsafe;
    // Each rule and its way back, as rules.py writes them (promote_unsafe, safe_unsafe...).
    rule(Scalar::Bool, Scalar::Int8, S, U);
    rule(Scalar::Bool, Scalar::UInt8, S, U);
    rule(Scalar::Int8, Scalar::Int16, P, U);
    rule(Scalar::UInt8, Scalar::UInt16, P, U);
    rule(Scalar::Int16, Scalar::Int32, P, U);
    rule(Scalar::UInt16, Scalar::UInt32, P, U);
    rule(Scalar::Int32, Scalar::Int64, P, U);
    rule(Scalar::UInt32, Scalar::UInt64, P, U);
    rule(Scalar::UInt8, Scalar::Int16, S, U);
    rule(Scalar::UInt16, Scalar::Int32, S, U);
    rule(Scalar::UInt32, Scalar::Int64, S, U);
    rule(Scalar::Int8, Scalar::Float16, S, U);
    rule(Scalar::Int16, Scalar::Float32, S, U);
    rule(Scalar::Int32, Scalar::Float64, S, U);
    rule(Scalar::Int16, Scalar::Float16, U, U);
    rule(Scalar::Int32, Scalar::Float32, U, U);
    // Inexact, but Numba prefers float64 over int64 for `float64 + int64`.
    rule(Scalar::Int64, Scalar::Float64, S, U);
    rule(Scalar::UInt64, Scalar::Float64, S, U);
    rule(Scalar::Float16, Scalar::Float32, P, U);
    rule(Scalar::Float32, Scalar::Float64, P, U);
    rule(Scalar::Float32, Scalar::Complex64, S, Conversion::None);
    rule(Scalar::Float64, Scalar::Complex128, S, Conversion::None);
    rule(Scalar::Complex64, Scalar::Complex128, P, U);
    // Ours (Numba has no bfloat16 rules): as float16's, bfloat16 being float32's top half;
    // float16 and bfloat16 hold values the other lacks.
    rule(Scalar::Int8, Scalar::BFloat16, S, U);
    rule(Scalar::BFloat16, Scalar::Float32, P, U);
    rule(Scalar::Float16, Scalar::BFloat16, U, U);
    for (int via = 0; via < kScalars; ++via)
      for (int a = 0; a < kScalars; ++a)
        for (int b = 0; b < kScalars; ++b)
          kind_[a][b] = std::min(kind_[a][b], std::max(kind_[a][via], kind_[via][b]));
  }
  Conversion operator()(Scalar from, Scalar to) const { return kind_[int(from)][int(to)]; }

 private:
  // The fp8 types have no implicit conversions: only casts (fp8_e4m3(x), float32(v)).
  static constexpr int kScalars = int(Scalar::Fp8E8M0) + 1;
  void rule(Scalar a, Scalar b, Conversion forward, Conversion backward) {
    kind_[int(a)][int(b)] = forward;
    kind_[int(b)][int(a)] = backward;
  }
  std::array<std::array<Conversion, kScalars>, kScalars> kind_{};
};

}  // namespace

Conversion conversion(Scalar from, Scalar to) {
  if (is_npdatetime(from) || is_npdatetime(to)) {
    // datetime64/timedelta64 convert only to their own kind in a finer unit (Numba's
    // NPDatetime/NPTimedelta.can_convert_to: safe when the units cast safely).
    if (from == to) return Conversion::Exact;
    if (is_datetime(from) != is_datetime(to) || is_timedelta(from) != is_timedelta(to))
      return Conversion::None;
    return datetime_unit_factor(datetime_unit(from), datetime_unit(to)) ? Conversion::Safe
                                                                        : Conversion::None;
  }
  static const ConversionTable table;
  return table(from, to);
}

}  // namespace cudajit
