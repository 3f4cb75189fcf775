//===- linalg_api.cc - Products of gpuc/linalg.h --------------------------===//
#include "gpuc/linalg.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "gpuc/reductions.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc {
namespace {

/// "f32[2,3]", as the IR's errors write a type.
std::string ShapeText(const Array& a) {
  return detail::ImplOf(a, "linalg").node->type().ToString();
}

bool IsComplex(DType d) { return d == complex64 || d == complex128; }
bool IsInexact(DType d) {
  return d == float16 || d == bfloat16 || d == float32 || d == float64 || IsComplex(d);
}

int64_t Product(const Array& a, const std::vector<int64_t>& axes) {
  int64_t n = 1;
  for (int64_t axis : axes) n *= a.shape()[axis];
  return n;
}

}  // namespace

Array matmul(const Array& a, const Array& b, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return detail::Record(ir::OpCode::kMatmul, {a, b});
}

Array tensordot(const Array& a, const Array& b, const std::vector<int64_t>& axes_a,
                const std::vector<int64_t>& axes_b, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (axes_a.size() != axes_b.size()) {
    detail::ThrowInvalid(absl::StrCat("tensordot: ", axes_a.size(), " axes of ", ShapeText(a),
                                      " against ", axes_b.size(), " of ", ShapeText(b)));
  }
  const std::vector<int64_t> sum_a = detail::NormalizeAxesOrThrow("tensordot", axes_a, a.ndim());
  const std::vector<int64_t> sum_b = detail::NormalizeAxesOrThrow("tensordot", axes_b, b.ndim());
  for (size_t i = 0; i < sum_a.size(); ++i) {
    if (a.shape()[sum_a[i]] != b.shape()[sum_b[i]]) {
      detail::ThrowInvalid(absl::StrCat("tensordot: axis ", sum_a[i], " of ", ShapeText(a), " has ",
                                        a.shape()[sum_a[i]], " elements, axis ", sum_b[i], " of ",
                                        ShapeText(b), " has ", b.shape()[sum_b[i]]));
    }
  }
  auto others = [](int rank, const std::vector<int64_t>& summed) {
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < rank; ++d) {
      if (std::find(summed.begin(), summed.end(), d) == summed.end()) kept.push_back(d);
    }
    return kept;
  };
  const std::vector<int64_t> free_a = others(a.ndim(), sum_a), free_b = others(b.ndim(), sum_b);
  // a's free axes then its summed ones, b's summed ones then its free ones: one GEMM of
  // (M x K) by (K x N), whose transposes and reshapes fuse into the kernels around it.
  std::vector<int64_t> perm_a = free_a, perm_b = sum_b;
  perm_a.insert(perm_a.end(), sum_a.begin(), sum_a.end());
  perm_b.insert(perm_b.end(), free_b.begin(), free_b.end());
  const int64_t m = Product(a, free_a), k = Product(a, sum_a), n = Product(b, free_b);
  Array product =
      matmul(reshape(transpose(a, perm_a), {m, k}), reshape(transpose(b, perm_b), {k, n}));
  Shape shape;
  for (int64_t d : free_a) shape.push_back(a.shape()[d]);
  for (int64_t d : free_b) shape.push_back(b.shape()[d]);
  return reshape(product, shape);
}

Array tensordot(const Array& a, const Array& b, int64_t axes, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (axes < 0 || axes > a.ndim() || axes > b.ndim()) {
    detail::ThrowInvalid(absl::StrCat("tensordot: cannot sum over ", axes, " axes of ",
                                      ShapeText(a), " and ", ShapeText(b)));
  }
  std::vector<int64_t> axes_a, axes_b;
  for (int64_t i = 0; i < axes; ++i) {
    axes_a.push_back(a.ndim() - axes + i);
    axes_b.push_back(i);
  }
  return tensordot(a, b, axes_a, axes_b);
}

Array dot(const Array& a, const Array& b, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (a.ndim() == 0 || b.ndim() == 0) return a * b;
  if (b.ndim() == 1 || (a.ndim() <= 2 && b.ndim() == 2)) return matmul(a, b);
  return tensordot(a, b, {a.ndim() - 1}, {b.ndim() - 2});
}

Array vdot(const Array& a, const Array& b, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (a.size() != b.size()) {
    detail::ThrowInvalid(
        absl::StrCat("vdot: ", ShapeText(a), " and ", ShapeText(b), " have different sizes"));
  }
  // The first operand conjugated, as NumPy's vdot does (a no-op for real dtypes).
  return matmul(ravel(IsComplex(a.dtype()) ? conj(a) : a), ravel(b));
}

Array inner(const Array& a, const Array& b, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (a.ndim() == 0 || b.ndim() == 0) return a * b;
  return tensordot(a, b, {a.ndim() - 1}, {b.ndim() - 1});
}

Array outer(const Array& a, const Array& b, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return reshape(a, {a.size(), 1}) * reshape(b, {1, b.size()});
}

Array trace(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (a.ndim() < 2) {
    detail::ThrowInvalid(absl::StrCat("trace: ", ShapeText(a), " has fewer than 2 axes"));
  }
  // The diagonal picked by a product with the identity (of a's dtype, so the product keeps
  // it), summed over the first two axes.
  Shape shape = {a.shape()[0], a.shape()[1]};
  shape.resize(static_cast<size_t>(a.ndim()), 1);
  Array identity = reshape(eye(a.shape()[0], a.shape()[1], 0, a.dtype()), shape);
  return sum(a * identity, {0, 1});
}

namespace linalg {
namespace {

/// |x|^2 elementwise in NumPy's norm dtype (float64 for integers and bools).
Array SquaredMagnitude(const Array& x) {
  const Array v = IsInexact(x.dtype()) ? x : astype(x, float64);
  return square(IsComplex(v.dtype()) ? abs(v) : v);
}

}  // namespace

Array norm(const Array& x, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return sqrt(sum(SquaredMagnitude(x)));
}

Array norm(const Array& x, int64_t axis, bool keepdims, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return sqrt(sum(SquaredMagnitude(x), axis, keepdims));
}

}  // namespace linalg
}  // namespace gpuc
