//===- complex_arithmetic.h - NumPy's complex product and magnitude ------===//
//
// The complex product and |z| as NumPy computes them, in the parts' own precision, for the
// interpreter and the host's typed loops (codegen emits the same operations). Not
// std::complex's: its product recovers infinities (C99 Annex G, libgcc's __muldc3) and its
// magnitude is libm's hypot, so both differ from NumPy — c64 products in ~half the elements,
// because NumPy rounds each part's products to float.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_COMPLEX_ARITHMETIC_H_
#define GPUC_IR_COMPLEX_ARITHMETIC_H_

#include <cmath>
#include <complex>
#include <limits>

namespace gpuc::ir {

/// NumPy's multiply loop: (ac - bd) + (ad + bc)i with every product rounded to T (no fma:
/// gpuc is built for baseline x86-64 and the JIT emits no contraction), no recovery of
/// infinities: (inf+inf j)(1+0j) is nan+nan j as in NumPy.
template <typename T>
std::complex<T> NumpyMultiply(std::complex<T> a, std::complex<T> b) {
  const T ac = a.real() * b.real(), bd = a.imag() * b.imag();
  const T ad = a.real() * b.imag(), bc = a.imag() * b.real();
  return {ac - bd, ad + bc};
}

/// NumPy's complex absolute value on x86-64 with AVX-512F (NumPy 1.24 to 2.x; other builds
/// call hypot, within an ulp of this): the larger part times sqrt(1 + r^2) for the ratio r of
/// the parts, 1 + r^2 in one fma. An infinite part makes the result inf, else a NaN part
/// makes it NaN. Branch-free in codegen (codegen/elementwise_lowering.cc), so it vectorizes.
template <typename T>
T NumpyAbs(std::complex<T> z) {
  constexpr T kInf = std::numeric_limits<T>::infinity();
  T re = std::fabs(z.real()), im = std::fabs(z.imag());
  if (re == kInf) im = kInf;
  if (im == kInf) re = kInf;
  if (std::isnan(re)) im = re;
  if (std::isnan(im)) re = im;
  const T larger = re > im ? re : im;
  const T smaller = im < re ? im : re;
  // 0/0 and inf/inf would be NaN: the ratio is 0 there (the result is 0 or inf).
  const T ratio = (larger == 0 || smaller == kInf) ? T(0) : smaller / larger;
  return std::sqrt(std::fma(ratio, ratio, T(1))) * larger;
}

}  // namespace gpuc::ir

#endif  // GPUC_IR_COMPLEX_ARITHMETIC_H_
