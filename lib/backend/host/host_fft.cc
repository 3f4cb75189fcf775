//===- host_fft.cc - fft nodes on the host in O(n log n) ------------------===//
#include "lib/backend/host/host_fft.h"

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "ir/fft_semantics.h"

namespace gpuc::detail {
namespace {

using Complex = std::complex<double>;

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/// exp(sign * 2 pi i * k / n), from the angle itself.
Complex Twiddle(int64_t k, int64_t n, double sign) {
  const double angle =
      sign * 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

/// In-place unnormalized DFT of a power-of-two length: bit reversal, then butterflies whose
/// twiddles come from one table of the full length.
void Radix2(std::vector<Complex>& a, double sign) {
  const int64_t n = static_cast<int64_t>(a.size());
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  std::vector<Complex> table(static_cast<size_t>(n / 2));
  for (int64_t k = 0; k < n / 2; ++k) table[k] = Twiddle(k, n, sign);
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t step = n / len;
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t k = 0; k < len / 2; ++k) {
        const Complex w = table[k * step];
        const Complex u = a[start + k], v = a[start + k + len / 2] * w;
        a[start + k] = u + v;
        a[start + k + len / 2] = u - v;
      }
    }
  }
}

/// Unnormalized DFT of any length: Bluestein's identity jk = (j^2 + k^2 - (k-j)^2) / 2 turns
/// it into a circular convolution of power-of-two length.
void Bluestein(std::vector<Complex>& x, double sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  // chirp[t] = exp(sign * pi i * t^2 / n), with t^2 reduced mod 2n to keep the angle small.
  std::vector<Complex> chirp(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    const int64_t r = (t * t) % (2 * n);
    const double angle = sign * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n);
    chirp[t] = {std::cos(angle), std::sin(angle)};
  }
  std::vector<Complex> a(static_cast<size_t>(m)), b(static_cast<size_t>(m));
  for (int64_t j = 0; j < n; ++j) a[j] = x[j] * chirp[j];
  b[0] = std::conj(chirp[0]);
  for (int64_t t = 1; t < n; ++t) b[t] = b[m - t] = std::conj(chirp[t]);
  Radix2(a, -1.0);
  Radix2(b, -1.0);
  for (int64_t i = 0; i < m; ++i) a[i] *= b[i];
  Radix2(a, 1.0);
  const double inv_m = 1.0 / static_cast<double>(m);
  for (int64_t k = 0; k < n; ++k) x[k] = chirp[k] * a[k] * inv_m;
}

void Transform(std::vector<Complex>& line, bool inverse) {
  const double sign = inverse ? 1.0 : -1.0;
  if (line.size() <= 1) return;
  if (IsPowerOfTwo(static_cast<int64_t>(line.size()))) {
    Radix2(line, sign);
  } else {
    Bluestein(line, sign);
  }
}

}  // namespace

absl::StatusOr<ir::HostTensor> HostFft(const ir::Node& node, const ir::HostTensor& input) {
  return ir::EvaluateFft(node, input, Transform);
}

}  // namespace gpuc::detail
