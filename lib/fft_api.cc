//===- fft_api.cc - Discrete Fourier transforms of gpuc/fft.h -------------===//
#include "gpuc/fft.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "lib/array_impl.h"
#include "lib/gpu_fft.h"
#include "lib/recorder.h"

namespace gpuc::fft {
namespace {

std::string TypeText(const Array& a) { return detail::ImplOf(a, "fft").node->type().ToString(); }

bool IsComplex(DType d) { return d == complex64 || d == complex128; }

/// NumPy 2's transform type: single precision stays single, everything else is double.
DType ComplexTypeOf(DType d) {
  return d == float32 || d == float16 || d == bfloat16 || d == complex64 ? complex64 : complex128;
}

void CheckNorm(const char* op, const std::string& norm) {
  if (norm != "backward" && norm != "ortho" && norm != "forward") {
    detail::ThrowInvalid(absl::StrCat(
        op, ": norm must be \"backward\", \"ortho\" or \"forward\", not \"", norm, "\""));
  }
}

/// `a` with axis `axis` cut to its first n elements or zero-padded to n (errors name the
/// user's array, `input`).
Array Resized(const char* op, const Array& a, int64_t axis, int64_t n, const Array& input) {
  if (n < 1) {
    detail::ThrowInvalid(absl::StrCat(op, ": invalid number of data points (", n, ") along axis ",
                                      axis, " of ", TypeText(input)));
  }
  const int64_t length = a.shape()[axis];
  if (n == length) return a;
  if (n < length) return take(a, arange(n), axis);
  std::vector<std::pair<int64_t, int64_t>> widths(static_cast<size_t>(a.ndim()), {0, 0});
  widths[axis] = {0, n - length};
  return pad(a, widths);
}

/// The axes and sizes of an n-dimensional transform, NumPy's way.
struct Plan {
  std::vector<int64_t> axes, sizes;
};
Plan PlanAxes(const char* op, const Array& a, const std::vector<int64_t>& s,
              const std::vector<int64_t>& axes) {
  std::vector<int64_t> chosen = axes;
  if (chosen.empty()) {
    const int64_t count = s.empty() ? a.ndim() : static_cast<int64_t>(s.size());
    if (count > a.ndim()) {
      detail::ThrowInvalid(absl::StrCat(op, ": ", count, " sizes for ", TypeText(a)));
    }
    for (int64_t i = a.ndim() - count; i < a.ndim(); ++i) chosen.push_back(i);
  }
  Plan plan;
  plan.axes = detail::NormalizeAxesOrThrow(op, chosen, a.ndim());
  if (!s.empty() && s.size() != plan.axes.size()) {
    detail::ThrowInvalid(absl::StrCat(op, ": ", s.size(), " sizes for ", plan.axes.size(),
                                      " axes of ", TypeText(a)));
  }
  for (size_t i = 0; i < plan.axes.size(); ++i) {
    plan.sizes.push_back(s.empty() ? a.shape()[plan.axes[i]] : s[i]);
  }
  return plan;
}

/// The transform over `plan`: the input as complex, each axis resized, one fft node.
Array Transform(const char* op, const Array& a, const Plan& plan, bool inverse,
                const std::string& norm) {
  CheckNorm(op, norm);
  if (plan.axes.empty()) detail::ThrowInvalid(absl::StrCat(op, ": no axes to transform"));
  Array x = astype(a, ComplexTypeOf(a.dtype()));
  for (size_t i = 0; i < plan.axes.size(); ++i) {
    x = Resized(op, x, plan.axes[i], plan.sizes[i], a);
  }
  ir::Attributes attrs;
  attrs.Set("axes", plan.axes);
  attrs.Set("inverse", inverse);
  // The node transforms unnormalized (what FFT libraries compute) and the norm's scale is a
  // multiply recorded after it, an elementwise node that fuses into the code reading the
  // transform (real(), a pointwise product, the next producer) instead of a pass of its own.
  attrs.Set("norm", std::string(inverse ? "forward" : "backward"));
  Array y = detail::Record(ir::OpCode::kFft, {x}, std::move(attrs));
  double length = 1;
  for (int64_t size : plan.sizes) length *= static_cast<double>(size);
  if (norm == "ortho") return y * (1 / std::sqrt(length));
  if ((norm == "forward") != inverse) return y * (1 / length);
  return y;
}

Plan OneAxis(const char* op, const Array& a, std::optional<int64_t> n, int64_t axis) {
  if (a.ndim() == 0) detail::ThrowInvalid(absl::StrCat(op, ": ", TypeText(a), " has no axis"));
  Plan plan;
  plan.axes = detail::NormalizeAxesOrThrow(op, {axis}, a.ndim());
  plan.sizes = {n.value_or(a.shape()[plan.axes[0]])};
  return plan;
}

/// Keeps the n / 2 + 1 non-negative frequencies of `axis` (n: its transformed length).
Array HalfSpectrum(const Array& x, int64_t axis, int64_t n) {
  return take(x, arange(n / 2 + 1), axis);
}

void CheckReal(const char* op, const Array& a) {
  if (IsComplex(a.dtype())) {
    detail::ThrowInvalid(absl::StrCat(op, ": ", TypeText(a), " is complex; rfft takes real input"));
  }
}

/// x shifted along each of `axes` so that index i holds x[(i + shift(n)) mod n].
Array Rolled(const Array& x, const std::vector<int64_t>& axes, bool inverse) {
  std::vector<int64_t> chosen = axes;
  if (chosen.empty()) {
    for (int64_t i = 0; i < x.ndim(); ++i) chosen.push_back(i);
  }
  Array out = x;
  for (int64_t axis :
       detail::NormalizeAxesOrThrow(inverse ? "ifftshift" : "fftshift", chosen, x.ndim())) {
    const int64_t n = x.shape()[axis];
    if (n == 0) continue;
    // fftshift moves element n - n/2 to the front; ifftshift moves element n/2 there.
    const int64_t first = inverse ? n / 2 : n - n / 2;
    std::vector<int64_t> index(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) index[i] = (i + first) % n;
    out = take(out, array(index), axis);
  }
  return out;
}

}  // namespace

Array fft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("fft", a, OneAxis("fft", a, n, axis), false, norm);
}

Array ifft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  return Transform("ifft", a, OneAxis("ifft", a, n, axis), true, norm);
}

Array fftn(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
           const std::string& norm) {
  return Transform("fftn", a, PlanAxes("fftn", a, s, axes), false, norm);
}

Array ifftn(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
            const std::string& norm) {
  return Transform("ifftn", a, PlanAxes("ifftn", a, s, axes), true, norm);
}

Array fft2(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
           const std::string& norm) {
  return Transform("fft2", a, PlanAxes("fft2", a, s, axes), false, norm);
}

Array ifft2(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
            const std::string& norm) {
  return Transform("ifft2", a, PlanAxes("ifft2", a, s, axes), true, norm);
}

Array rfft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  CheckReal("rfft", a);
  const Plan plan = OneAxis("rfft", a, n, axis);
  return HalfSpectrum(Transform("rfft", a, plan, false, norm), plan.axes[0], plan.sizes[0]);
}

Array rfftn(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
            const std::string& norm) {
  CheckReal("rfftn", a);
  const Plan plan = PlanAxes("rfftn", a, s, axes);
  // The full transform then half of its last axis: the same numbers as NumPy's real
  // transform of that axis followed by complex transforms of the others.
  return HalfSpectrum(Transform("rfftn", a, plan, false, norm), plan.axes.back(),
                      plan.sizes.back());
}

Array irfft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  CheckNorm("irfft", norm);
  const Plan plan = OneAxis("irfft", a, std::nullopt, axis);
  const int64_t d = plan.axes[0], m = a.shape()[d];
  const int64_t length = n.value_or(2 * (m - 1));
  if (length < 1) {
    detail::ThrowInvalid(absl::StrCat("irfft: invalid number of data points (", length,
                                      ") along axis ", d, " of ", TypeText(a)));
  }
  // The n / 2 + 1 frequencies the output needs, then the negative ones: full[k] =
  // conj(half[n - k]) for k past them. The real part of the inverse drops what the zero and
  // Nyquist frequencies' imaginary parts would add (purely imaginary terms), as C2R does.
  const Array half = Resized("irfft", astype(a, ComplexTypeOf(a.dtype())), d, length / 2 + 1, a);
  std::vector<int64_t> mirrored;
  for (int64_t k = length / 2 + 1; k < length; ++k) mirrored.push_back(length - k);
  Array full = half;
  if (!mirrored.empty()) full = concatenate({half, take(conj(half), array(mirrored), d)}, d);
  return real(ifft(full, std::nullopt, d, norm));
}

Array irfftn(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
             const std::string& norm) {
  const Plan plan = PlanAxes("irfftn", a, s, axes);
  Array x = a;
  if (plan.axes.size() > 1) {
    const std::vector<int64_t> outer(plan.axes.begin(), plan.axes.end() - 1);
    const std::vector<int64_t> sizes(plan.sizes.begin(), plan.sizes.end() - 1);
    x = ifftn(x, s.empty() ? std::vector<int64_t>{} : sizes, outer, norm);
  }
  std::optional<int64_t> last;
  if (!s.empty()) last = s.back();
  return irfft(x, last, plan.axes.back(), norm);
}

Array fftfreq(int64_t n, double d) {
  if (n < 1) detail::ThrowInvalid(absl::StrCat("fftfreq: n must be positive, not ", n));
  std::vector<double> f(static_cast<size_t>(n));
  const int64_t positive = (n - 1) / 2 + 1;
  for (int64_t i = 0; i < n; ++i) {
    f[i] = static_cast<double>(i < positive ? i : i - n) * (1.0 / (static_cast<double>(n) * d));
  }
  return array(f);
}

Array rfftfreq(int64_t n, double d) {
  if (n < 1) detail::ThrowInvalid(absl::StrCat("rfftfreq: n must be positive, not ", n));
  std::vector<double> f(static_cast<size_t>(n / 2 + 1));
  // NumPy's rounding: k * (1 / (n * d)).
  for (int64_t i = 0; i <= n / 2; ++i) {
    f[i] = static_cast<double>(i) * (1.0 / (static_cast<double>(n) * d));
  }
  return array(f);
}

Array fftshift(const Array& x, const std::vector<int64_t>& axes) { return Rolled(x, axes, false); }

Array ifftshift(const Array& x, const std::vector<int64_t>& axes) { return Rolled(x, axes, true); }

void set_plan_cache_size(size_t plans) { detail::SetFftPlanCacheCapacity(plans); }
size_t plan_cache_size() { return detail::FftPlanCacheCapacity(); }

}  // namespace gpuc::fft
