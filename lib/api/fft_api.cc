//===- fft_api.cc - Discrete Fourier transforms of gpuc/fft.h -------------===//
#include "gpuc/fft.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "ir/fft_semantics.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc::fft {
namespace {

std::string TypeText(const Array& a) { return detail::ImplOf(a, "fft").node->type().ToString(); }

bool IsComplex(DType d) { return d == complex64 || d == complex128; }

/// NumPy 2's transform type: single precision stays single, everything else is double.
DType ComplexTypeOf(DType d) {
  return d == float32 || d == float16 || d == bfloat16 || d == complex64 ? complex64 : complex128;
}

/// The real type a real transform computes in, by the same rule.
DType RealTypeOf(DType d) { return ComplexTypeOf(d) == complex64 ? float32 : float64; }

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

/// The axes and sizes of an n-dimensional transform, NumPy's way: in the user's order, which
/// matters to the real transforms (the last axis is the halved one) and pairs each size in
/// `s` with its axis.
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
  detail::NormalizeAxesOrThrow(op, chosen, a.ndim());  // rejects repeats
  Plan plan;
  for (int64_t axis : chosen) plan.axes.push_back(detail::NormalizeAxisOrThrow(op, axis, a.ndim()));
  if (plan.axes.empty()) detail::ThrowInvalid(absl::StrCat(op, ": no axes to transform"));
  if (!s.empty() && s.size() != plan.axes.size()) {
    detail::ThrowInvalid(absl::StrCat(op, ": ", s.size(), " sizes for ", plan.axes.size(),
                                      " axes of ", TypeText(a)));
  }
  for (size_t i = 0; i < plan.axes.size(); ++i) {
    plan.sizes.push_back(s.empty() ? a.shape()[plan.axes[i]] : s[i]);
  }
  return plan;
}

Plan OneAxis(const char* op, const Array& a, std::optional<int64_t> n, int64_t axis) {
  if (a.ndim() == 0) detail::ThrowInvalid(absl::StrCat(op, ": ", TypeText(a), " has no axis"));
  Plan plan;
  plan.axes = {detail::NormalizeAxisOrThrow(op, axis, a.ndim())};
  plan.sizes = {n.value_or(a.shape()[plan.axes[0]])};
  return plan;
}

/// One fft node over `axes` (any order), unnormalized: that is what FFT libraries compute,
/// and the norm's scale is a multiply recorded after it, an elementwise node that fuses into
/// the code reading the transform (real(), a pointwise product, the next producer) instead
/// of a pass of its own.
Array RecordFft(const Array& x, std::vector<int64_t> axes, bool inverse, const char* kind,
                int64_t n = 0) {
  std::sort(axes.begin(), axes.end());
  ir::Attributes attrs;
  attrs.Set("axes", axes);
  attrs.Set("inverse", inverse);
  attrs.Set("norm", std::string(inverse ? "forward" : "backward"));
  if (std::string(kind) != "c2c") attrs.Set("kind", std::string(kind));
  if (std::string(kind) == "c2r") attrs.Set("n", n);
  return detail::Record(ir::OpCode::kFft, {x}, std::move(attrs));
}

/// `y` scaled as `norm` asks of a transform over `sizes` in direction `inverse`.
Array Normalized(const Array& y, const std::vector<int64_t>& sizes, bool inverse,
                 const std::string& norm) {
  double length = 1;
  for (int64_t size : sizes) length *= static_cast<double>(size);
  const double scale = ir::FftNormScale(norm, inverse, length);
  return scale == 1 ? y : y * scale;
}

/// The complex transform over `plan`: the input as complex, each axis resized, one fft node.
Array Transform(const char* op, const Array& a, const Plan& plan, bool inverse,
                const std::string& norm) {
  CheckNorm(op, norm);
  Array x = astype(a, ComplexTypeOf(a.dtype()));
  for (size_t i = 0; i < plan.axes.size(); ++i) {
    x = Resized(op, x, plan.axes[i], plan.sizes[i], a);
  }
  return Normalized(RecordFft(x, plan.axes, inverse, "c2c"), plan.sizes, inverse, norm);
}

/// Whether `last` comes after every other axis of `axes`: then one real-transform node
/// covers them all (its halved axis is its highest).
bool LastIsHighest(const std::vector<int64_t>& axes) {
  return *std::max_element(axes.begin(), axes.end()) == axes.back();
}

/// The real-input transform over `plan` (numpy.fft.rfftn): an r2c node halving the last axis
/// of the plan, which covers the other axes too when the last is the highest.
Array RealTransform(const char* op, const Array& a, const Plan& plan, const std::string& norm) {
  CheckNorm(op, norm);
  if (IsComplex(a.dtype())) {
    detail::ThrowInvalid(absl::StrCat(op, ": ", TypeText(a), " is complex; rfft takes real input"));
  }
  Array x = astype(a, RealTypeOf(a.dtype()));
  for (size_t i = 0; i < plan.axes.size(); ++i) {
    x = Resized(op, x, plan.axes[i], plan.sizes[i], a);
  }
  Array y;
  if (LastIsHighest(plan.axes)) {
    y = RecordFft(x, plan.axes, false, "r2c");
  } else {
    y = RecordFft(x, {plan.axes.back()}, false, "r2c");
    y = RecordFft(y, std::vector<int64_t>(plan.axes.begin(), plan.axes.end() - 1), false, "c2c");
  }
  return Normalized(y, plan.sizes, false, norm);
}

/// The inverse real transform over `plan`, whose last size is the real output length
/// (numpy.fft.irfftn): complex inverses of the other axes and a c2r node of the last, one
/// node when the last axis is the highest.
Array InverseRealTransform(const char* op, const Array& a, const Plan& plan,
                           const std::string& norm) {
  CheckNorm(op, norm);
  const int64_t last = plan.axes.back(), n = plan.sizes.back();
  if (n < 1) {
    detail::ThrowInvalid(absl::StrCat(op, ": invalid number of data points (", n, ") along axis ",
                                      last, " of ", TypeText(a)));
  }
  Array x = astype(a, ComplexTypeOf(a.dtype()));
  for (size_t i = 0; i + 1 < plan.axes.size(); ++i) {
    x = Resized(op, x, plan.axes[i], plan.sizes[i], a);
  }
  x = Resized(op, x, last, n / 2 + 1, a);
  Array y;
  if (LastIsHighest(plan.axes)) {
    y = RecordFft(x, plan.axes, true, "c2r", n);
  } else {
    x = RecordFft(x, std::vector<int64_t>(plan.axes.begin(), plan.axes.end() - 1), true, "c2c");
    y = RecordFft(x, {last}, true, "c2r", n);
  }
  return Normalized(y, plan.sizes, true, norm);
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
  return RealTransform("rfft", a, OneAxis("rfft", a, n, axis), norm);
}

Array rfftn(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
            const std::string& norm) {
  return RealTransform("rfftn", a, PlanAxes("rfftn", a, s, axes), norm);
}

Array irfft(const Array& a, std::optional<int64_t> n, int64_t axis, const std::string& norm) {
  Plan plan = OneAxis("irfft", a, std::nullopt, axis);
  plan.sizes[0] = n.value_or(2 * (plan.sizes[0] - 1));
  return InverseRealTransform("irfft", a, plan, norm);
}

Array irfftn(const Array& a, const std::vector<int64_t>& s, const std::vector<int64_t>& axes,
             const std::string& norm) {
  Plan plan = PlanAxes("irfftn", a, s, axes);
  // NumPy's default output length of the last axis: 2 (m - 1) for its m frequencies.
  if (s.empty()) plan.sizes.back() = 2 * (plan.sizes.back() - 1);
  return InverseRealTransform("irfftn", a, plan, norm);
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

}  // namespace gpuc::fft
