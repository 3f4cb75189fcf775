//===- fft_semantics.cc - What an fft node computes -----------------------===//
#include "ir/fft_semantics.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/wide_value.h"

namespace gpuc::ir {
namespace {

using Complex = std::complex<double>;

bool IsComplexDType(DType d) { return d == DType::kComplex64 || d == DType::kComplex128; }

/// Transforms every line along `axis` of `data` (laid out contiguously as `dims`) in place,
/// each multiplied by `scale`.
void TransformAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, int64_t axis,
                   bool inverse, double scale, FftLineTransform transform) {
  const int64_t n = dims[axis];
  if (n == 0) return;
  int64_t stride = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) stride *= dims[d];
  const int64_t lines = static_cast<int64_t>(data.size()) / n;
  std::vector<Complex> line(static_cast<size_t>(n));
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t base = (l / stride) * n * stride + l % stride;
    for (int64_t j = 0; j < n; ++j) line[j] = data[base + j * stride];
    transform(line, inverse);
    for (int64_t j = 0; j < n; ++j) data[base + j * stride] = line[j] * scale;
  }
}

/// The c2r step of the last axis: each line of m = n / 2 + 1 frequencies becomes n real
/// samples (kept as complex with the real part meaningful).
std::vector<Complex> HermitianInverse(const std::vector<Complex>& half,
                                      const std::vector<int64_t>& dims, int64_t axis, int64_t n,
                                      double scale, FftLineTransform transform) {
  const int64_t m = dims[axis];
  int64_t stride = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) stride *= dims[d];
  const int64_t lines = m == 0 ? 0 : static_cast<int64_t>(half.size()) / m;
  std::vector<Complex> out(static_cast<size_t>(lines * n)), line(static_cast<size_t>(n));
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t outer = l / stride, inner = l % stride;
    const int64_t in_base = outer * m * stride + inner, out_base = outer * n * stride + inner;
    for (int64_t k = 0; k < n; ++k) {
      line[k] = k < m ? half[in_base + k * stride] : std::conj(half[in_base + (n - k) * stride]);
    }
    // A real signal's zero (and even-length Nyquist) frequency is real: what else is there
    // would only add an imaginary part to the output, which the real result drops anyway.
    line[0] = line[0].real();
    if (n % 2 == 0) line[n / 2] = line[n / 2].real();
    transform(line, true);
    for (int64_t k = 0; k < n; ++k) out[out_base + k * stride] = line[k].real() * scale;
  }
  return out;
}

}  // namespace

absl::StatusOr<FftAttributes> ReadFftAttributes(const Attributes& attrs, int rank) {
  FftAttributes fft;
  absl::StatusOr<std::vector<int64_t>> axes = attrs.GetInts("axes");
  if (!axes.ok()) return axes.status();
  for (size_t i = 0; i < axes->size(); ++i) {
    const int64_t a = (*axes)[i];
    if (a < 0 || a >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", a, " is out of range for rank ", rank));
    }
    if (i > 0 && a <= (*axes)[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrCat("axes [", absl::StrJoin(*axes, ","), "] must be sorted and unique"));
    }
  }
  if (axes->empty()) return absl::InvalidArgumentError("needs at least one axis");
  fft.axes = *std::move(axes);
  absl::StatusOr<bool> inverse = attrs.GetBool("inverse", false);
  if (!inverse.ok()) return inverse.status();
  fft.inverse = *inverse;
  if (attrs.Has("norm")) {
    absl::StatusOr<std::string> norm = attrs.GetString("norm");
    if (!norm.ok()) return norm.status();
    if (*norm != "backward" && *norm != "ortho" && *norm != "forward") {
      return absl::InvalidArgumentError(
          absl::StrCat("norm must be backward, ortho or forward, not '", *norm, "'"));
    }
    fft.norm = *norm;
  }
  if (attrs.Has("kind")) {
    absl::StatusOr<std::string> kind = attrs.GetString("kind");
    if (!kind.ok()) return kind.status();
    if (*kind == "r2c") {
      fft.kind = FftKind::kR2C;
    } else if (*kind == "c2r") {
      fft.kind = FftKind::kC2R;
    } else if (*kind != "c2c") {
      return absl::InvalidArgumentError(
          absl::StrCat("kind must be c2c, r2c or c2r, not '", *kind, "'"));
    }
  }
  if (fft.kind == FftKind::kR2C && fft.inverse) {
    return absl::InvalidArgumentError("an r2c transform is forward (inverse = false)");
  }
  if (fft.kind == FftKind::kC2R && !fft.inverse) {
    return absl::InvalidArgumentError("a c2r transform is inverse (inverse = true)");
  }
  if (fft.kind == FftKind::kC2R) {
    absl::StatusOr<int64_t> n = attrs.GetInt("n");
    if (!n.ok()) return absl::InvalidArgumentError("a c2r transform needs n, its output length");
    if (*n < 1) return absl::InvalidArgumentError(absl::StrCat("n must be positive, not ", *n));
    fft.n = *n;
  } else if (attrs.Has("n")) {
    return absl::InvalidArgumentError("only a c2r transform takes n");
  }
  return fft;
}

absl::StatusOr<TensorType> FftResultType(const FftAttributes& attrs, const TensorType& operand) {
  std::vector<int64_t> dims = operand.shape.ToVector();
  const int64_t last = attrs.axes.back();
  switch (attrs.kind) {
    case FftKind::kC2C:
      if (!IsComplexDType(operand.dtype)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "operand must be complex64 or complex128, not ", DTypeName(operand.dtype)));
      }
      return operand;
    case FftKind::kR2C:
      if (operand.dtype != DType::kFloat32 && operand.dtype != DType::kFloat64) {
        return absl::InvalidArgumentError(absl::StrCat(
            "an r2c operand must be float32 or float64, not ", DTypeName(operand.dtype)));
      }
      if (dims[last] == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("an r2c transform needs at least one element along axis ", last, " of ",
                         operand.ToString()));
      }
      dims[last] = dims[last] / 2 + 1;
      return TensorType{operand.dtype == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128,
                        Shape(std::move(dims))};
    case FftKind::kC2R:
      if (!IsComplexDType(operand.dtype)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a c2r operand must be complex64 or complex128, not ", DTypeName(operand.dtype)));
      }
      if (dims[last] != attrs.n / 2 + 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a c2r transform to n = ", attrs.n, " reads n / 2 + 1 = ", attrs.n / 2 + 1,
            " frequencies along axis ", last, ", but ", operand.ToString(), " has ", dims[last]));
      }
      dims[last] = attrs.n;
      return TensorType{operand.dtype == DType::kComplex64 ? DType::kFloat32 : DType::kFloat64,
                        Shape(std::move(dims))};
  }
  return absl::InternalError("unknown fft kind");
}

double FftNormScale(const std::string& norm, bool inverse, double lengths) {
  if (norm == "ortho") return 1 / std::sqrt(lengths);
  // NumPy scales the direction its norm names by 1/n: backward the inverse, forward the
  // forward transform.
  return (norm == "forward") != inverse ? 1 / lengths : 1.0;
}

absl::StatusOr<HostTensor> EvaluateFft(const Node& node, const HostTensor& input,
                                       FftLineTransform transform) {
  absl::StatusOr<FftAttributes> attrs = ReadFftAttributes(node.attrs(), input.shape().rank());
  if (!attrs.ok()) return attrs.status();
  std::vector<int64_t> dims = input.shape().ToVector();
  std::vector<Complex> data(static_cast<size_t>(input.num_elements()));
  for (int64_t i = 0; i < input.num_elements(); ++i) {
    data[i] = ConvertTo(DType::kComplex128, LoadElement(input.dtype(), input.element(i))).c;
  }
  const int64_t last = attrs->axes.back();
  for (int64_t axis : attrs->axes) {
    if (attrs->kind == FftKind::kC2R && axis == last) break;
    const double scale = FftNormScale(attrs->norm, attrs->inverse, static_cast<double>(dims[axis]));
    TransformAxis(data, dims, axis, attrs->inverse, scale, transform);
  }
  if (attrs->kind == FftKind::kC2R) {
    data =
        HermitianInverse(data, dims, last, attrs->n,
                         FftNormScale(attrs->norm, true, static_cast<double>(attrs->n)), transform);
    dims[last] = attrs->n;
  }
  HostTensor out(node.type());
  // r2c keeps the first n / 2 + 1 frequencies of the last axis of the full transform.
  const std::vector<int64_t> out_dims = node.shape().ToVector();
  const int64_t kept = out_dims.empty() ? 0 : out_dims[last];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(last) + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    int64_t source = i;
    if (attrs->kind == FftKind::kR2C) {
      const int64_t outer = i / (kept * inner), k = (i / inner) % kept, j = i % inner;
      source = (outer * dims[last] + k) * inner + j;
    }
    StoreElement(node.dtype(), out.element(i), WideValue::Complex(data[source]));
  }
  return out;
}

}  // namespace gpuc::ir
