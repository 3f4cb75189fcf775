//===- sort_order.h - NumPy's sort order, one definition ------------------===//
//
// np.sort's order: integers and bools as numbers; floats ascending with NaNs last (-0.0 and
// 0.0 are equal, so a stable sort keeps their order); complex numbers lexicographically by
// real then imaginary part, with NaNs ordered as NumPy documents: [R + Rj, R + nanj,
// nan + Rj, nan + nanj], each class by its non-NaN part. The interpreter (the reference) and
// the host back end's typed sort share it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_SORT_ORDER_H_
#define GPUC_IR_SORT_ORDER_H_

#include <cmath>
#include <complex>
#include <type_traits>

namespace gpuc::ir {

/// Whether `a` sorts strictly before `b`.
template <typename T>
bool SortsBefore(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    return a < b;
  } else {
    return a < b;
  }
}

template <typename F>
bool SortsBefore(const std::complex<F>& a, const std::complex<F>& b) {
  const int ca = (std::isnan(a.real()) ? 2 : 0) + (std::isnan(a.imag()) ? 1 : 0);
  const int cb = (std::isnan(b.real()) ? 2 : 0) + (std::isnan(b.imag()) ? 1 : 0);
  if (ca != cb) return ca < cb;
  switch (ca) {
    case 0:
      return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
    case 1:
      return a.real() < b.real();
    case 2:
      return a.imag() < b.imag();
    default:
      return false;
  }
}

}  // namespace gpuc::ir

#endif  // GPUC_IR_SORT_ORDER_H_
