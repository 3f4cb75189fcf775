//===- tensor_summary.cc - A short printable description of a tensor ------===//
#include "tools/gpuc/tensor_summary.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/wide_value.h"

namespace gpuc::tool {
namespace {

std::string FormatValue(const ir::WideValue& v) {
  switch (v.domain) {
    case ir::DTypeKind::kBool:
      return v.b ? "true" : "false";
    case ir::DTypeKind::kSigned:
      return absl::StrCat(v.i);
    case ir::DTypeKind::kUnsigned:
      return absl::StrCat(v.u);
    case ir::DTypeKind::kFloat:
      return absl::StrFormat("%.6g", v.f);
    case ir::DTypeKind::kComplex:
      return absl::StrFormat("%.6g%+.6gj", v.c.real(), v.c.imag());
  }
  return "?";
}

/// The value a statistic is taken over: the magnitude for complex, 0/1 for bool.
double StatValue(const ir::WideValue& v) {
  return v.domain == ir::DTypeKind::kComplex ? std::abs(v.c) : ir::ToDouble(v);
}

}  // namespace

std::string SummarizeTensor(const std::string& name, const ir::HostTensor& tensor,
                            int show_values) {
  std::string out = absl::StrCat(name, ": ", tensor.type().ToString());
  const int64_t n = tensor.num_elements();
  if (n == 0) return out + "  (empty)\n";
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  int64_t nans = 0, infs = 0, finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = StatValue(ir::LoadElement(tensor.dtype(), tensor.element(i)));
    if (std::isnan(x)) {
      ++nans;
    } else if (std::isinf(x)) {
      ++infs;
    } else {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
      ++finite;
    }
  }
  if (finite > 0) {
    std::string what = ir::IsComplex(tensor.dtype()) ? "|z| " : "";
    absl::StrAppend(&out, absl::StrFormat("  %smin=%.6g max=%.6g mean=%.6g", what, lo, hi,
                                          sum / static_cast<double>(finite)));
  }
  absl::StrAppend(&out, "  nan=", nans, " inf=", infs, "\n  [");
  int64_t shown = std::min<int64_t>(n, show_values);
  for (int64_t i = 0; i < shown; ++i) {
    absl::StrAppend(&out, i ? ", " : "",
                    FormatValue(ir::LoadElement(tensor.dtype(), tensor.element(i))));
  }
  absl::StrAppend(&out, shown < n ? ", ...]\n" : "]\n");
  return out;
}

}  // namespace gpuc::tool
