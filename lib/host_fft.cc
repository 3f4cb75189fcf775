//===- host_fft.cc - fft nodes on the host in O(n log n) ------------------===//
#include "lib/host_fft.h"

#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "ir/wide_value.h"

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
  const ir::Attributes& attrs = node.attrs();
  absl::StatusOr<bool> inverse = attrs.GetBool("inverse", false);
  if (!inverse.ok()) return inverse.status();
  const std::string norm = attrs.Has("norm") ? *attrs.Get<std::string>("norm") : "backward";
  absl::StatusOr<std::vector<int64_t>> axes = attrs.GetInts("axes");
  if (!axes.ok()) return axes.status();
  const ir::Shape& shape = input.shape();
  std::vector<Complex> data(static_cast<size_t>(input.num_elements()));
  for (int64_t i = 0; i < input.num_elements(); ++i) {
    data[i] = ir::LoadElement(input.dtype(), input.element(i)).c;
  }
  for (int64_t axis : *axes) {
    const int64_t n = shape[static_cast<int>(axis)];
    if (n == 0) continue;
    double scale = 1.0;
    if (norm == "ortho") {
      scale = 1.0 / std::sqrt(static_cast<double>(n));
    } else if ((norm == "backward") == *inverse) {
      scale = 1.0 / static_cast<double>(n);
    }
    int64_t stride = 1;
    for (int d = static_cast<int>(axis) + 1; d < shape.rank(); ++d) stride *= shape[d];
    const int64_t lines = input.num_elements() / n;
    std::vector<Complex> line(static_cast<size_t>(n));
    for (int64_t l = 0; l < lines; ++l) {
      const int64_t base = (l / stride) * n * stride + l % stride;
      for (int64_t j = 0; j < n; ++j) line[j] = data[base + j * stride];
      Transform(line, *inverse);
      for (int64_t j = 0; j < n; ++j) data[base + j * stride] = line[j] * scale;
    }
  }
  ir::HostTensor out(node.type());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    ir::StoreElement(node.dtype(), out.element(i), ir::WideValue::Complex(data[i]));
  }
  return out;
}

}  // namespace gpuc::detail
