//===- linalg_solvers_api.cc - numpy.linalg's solvers and decompositions --===//
//
// Each function checks and casts its operands as NumPy does and records one linalg node
// (ir/linalg_semantics.h); results with several parts (slogdet, eigh) are one packed node
// that the API slices apart, so both parts come from one factorization.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/linalg.h"
#include "gpuc/manipulation.h"
#include "gpuc/reductions.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc::linalg {
namespace {

bool IsComplexType(DType d) { return d == complex64 || d == complex128; }
bool IsInexactType(DType d) {
  return d == float16 || d == bfloat16 || d == float32 || d == float64 || IsComplexType(d);
}
DType RealDtypeOf(DType d) { return d == complex64 ? float32 : d == complex128 ? float64 : d; }

std::string TypeText(const Array& a) { return detail::ImplOf(a, "linalg").node->type().ToString(); }

// NumPy's linalg._commonType: complex if any operand is; single precision only when every
// operand is float32 or complex64; integers and bools count as float64; float16 is refused.
DType ComputeType(const char* op, std::initializer_list<const Array*> operands) {
  bool complex = false, single = true;
  for (const Array* a : operands) {
    const DType d = a->dtype();
    if (d == float16 || d == bfloat16) {
      detail::ThrowInvalid(absl::StrCat("linalg.", op, ": array type ", TypeText(*a),
                                        " is unsupported in linalg (as in NumPy)"));
    }
    complex = complex || d == complex64 || d == complex128;
    single = single && (d == float32 || d == complex64);
  }
  if (complex) return single ? complex64 : complex128;
  return single ? float32 : float64;
}

// a as a stack of square matrices in `dtype`.
Array SquareStack(const char* op, const Array& a, DType dtype) {
  const int rank = a.ndim();
  if (rank < 2 || a.shape()[rank - 1] != a.shape()[rank - 2]) {
    detail::ThrowInvalid(absl::StrCat("linalg.", op,
                                      ": expects a stack of square matrices "
                                      "[..., n, n]; got ",
                                      TypeText(a)));
  }
  return a.dtype() == dtype ? a : astype(a, dtype);
}

Array Record(const char* routine, std::vector<Array> operands) {
  ir::Attributes attrs;
  attrs.Set("routine", std::string(routine));
  return detail::Record(ir::OpCode::kLinalg, std::move(operands), std::move(attrs));
}

// a^H over the last two axes (the plain transpose for real dtypes).
Array ConjugateTranspose(const Array& a) {
  const Array t = swapaxes(a, -1, -2);
  return IsComplexType(a.dtype()) ? conj(t) : t;
}

// The machine epsilon of a float32 or float64 result (the singular values' dtype).
double Epsilon(DType real) {
  return real == float32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
}

// The Hermitian matrix eigh reads from its lower triangle: a itself for "L", the conjugate
// transpose for "U" (whose lower triangle is a's upper one, conjugated back by the routine).
Array HermitianLower(const char* op, const Array& a, const std::string& uplo) {
  if (uplo == "L") return a;
  if (uplo == "U") return ConjugateTranspose(a);
  detail::ThrowInvalid(
      absl::StrCat("linalg.", op, ": uplo must be \"L\" or \"U\", not \"", uplo, "\""));
}

// Element `column` of the last axis of a packed result.
Array LastColumn(const Array& packed, int64_t column) { return packed(ellipsis, column); }

}  // namespace

Array solve(const Array& a, const Array& b, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const DType dtype = ComputeType("solve", {&a, &b});
  const Array sa = SquareStack("solve", a, dtype);
  const int64_t n = a.shape()[a.ndim() - 1];
  const bool vector = b.ndim() == 1;
  Array sb = b.dtype() == dtype ? b : astype(b, dtype);
  if (vector) sb = expand_dims(sb, -1);
  if (sb.ndim() < 2 || sb.shape()[sb.ndim() - 2] != n) {
    detail::ThrowInvalid(absl::StrCat("linalg.solve: b ", TypeText(b), " does not match a ",
                                      TypeText(a), " (b must be [", n, "] or [..., ", n, ", k])"));
  }
  // The leading axes broadcast; each operand keeps its own last two.
  std::vector<int64_t> batch_a(sa.shape().begin(), sa.shape().end() - 2);
  std::vector<int64_t> batch_b(sb.shape().begin(), sb.shape().end() - 2);
  const size_t rank = std::max(batch_a.size(), batch_b.size());
  std::vector<int64_t> batch(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i + batch_a.size() >= rank ? batch_a[i + batch_a.size() - rank] : 1;
    const int64_t y = i + batch_b.size() >= rank ? batch_b[i + batch_b.size() - rank] : 1;
    if (x != y && x != 1 && y != 1) {
      detail::ThrowInvalid(absl::StrCat("linalg.solve: the batch axes of a ", TypeText(a),
                                        " and b ", TypeText(b), " cannot be broadcast together"));
    }
    batch[i] = x == 1 ? y : x;
  }
  auto with = [&](std::vector<int64_t> dims, int64_t rows, int64_t cols) {
    dims.push_back(rows);
    dims.push_back(cols);
    return Shape(dims);
  };
  const Array ba = broadcast_to(sa, with(batch, n, n));
  const Array bb = broadcast_to(sb, with(batch, n, sb.shape()[sb.ndim() - 1]));
  const Array x = Record("solve", {ba, bb});
  return vector ? squeeze(x, {-1}) : x;
}

Array inv(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return Record("inv", {SquareStack("inv", a, ComputeType("inv", {&a}))});
}

Array det(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return Record("det", {SquareStack("det", a, ComputeType("det", {&a}))});
}

SlogdetResult slogdet(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array packed = Record("slogdet", {SquareStack("slogdet", a, ComputeType("slogdet", {&a}))});
  const Array logabs = LastColumn(packed, 1);
  return {LastColumn(packed, 0), IsComplexType(logabs.dtype()) ? real(logabs) : logabs};
}

Array cholesky(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return Record("cholesky", {SquareStack("cholesky", a, ComputeType("cholesky", {&a}))});
}

EighResult eigh(const Array& a, const std::string& uplo, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array square = SquareStack("eigh", a, ComputeType("eigh", {&a}));
  const Array packed = Record("eigh", {HermitianLower("eigh", square, uplo)});
  const int64_t n = square.shape()[square.ndim() - 1];
  const Array values = LastColumn(packed, n);
  return {IsComplexType(values.dtype()) ? real(values) : values, packed(ellipsis, Slice(0, n))};
}

EigResult eig(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array square = SquareStack("eig", a, ComputeType("eig", {&a}));
  const Array packed = Record("eig", {square});
  const int64_t n = square.shape()[square.ndim() - 1];
  return {LastColumn(packed, n), packed(ellipsis, Slice(0, n))};
}

Array eigvals(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return Record("eigvals", {SquareStack("eigvals", a, ComputeType("eigvals", {&a}))});
}

namespace {

// a as a stack of matrices [..., m, n] in `dtype` (the singular value routines).
Array MatrixStack(const char* op, const Array& a, DType dtype) {
  if (a.ndim() < 2) {
    detail::ThrowInvalid(absl::StrCat(
        "linalg.", op, ": expects a stack of matrices [..., m, n]; got ", TypeText(a)));
  }
  return a.dtype() == dtype ? a : astype(a, dtype);
}

// The leading axes of `a` with `last` after them.
Shape WithLastAxes(const Array& a, std::initializer_list<int64_t> last) {
  Shape dims(a.shape().begin(), a.shape().end() - 2);
  dims.insert(dims.end(), last);
  return dims;
}

}  // namespace

SvdResult svd(const Array& a, bool full_matrices, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array stack = MatrixStack("svd", a, ComputeType("svd", {&a}));
  const int64_t m = a.shape()[a.ndim() - 2], n = a.shape()[a.ndim() - 1], k = std::min(m, n);
  const Array packed = Record(full_matrices ? "svd_full" : "svd", {stack});
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  const Array u = reshape(packed(ellipsis, Slice(0, m * ucols)), WithLastAxes(a, {m, ucols}));
  const Array s = packed(ellipsis, Slice(m * ucols, m * ucols + k));
  const Array vh = reshape(packed(ellipsis, Slice(m * ucols + k, m * ucols + k + vrows * n)),
                           WithLastAxes(a, {vrows, n}));
  return {u, IsComplexType(s.dtype()) ? real(s) : s, vh};
}

QrResult qr(const Array& a, const std::string& mode, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (mode != "reduced" && mode != "complete" && mode != "r") {
    detail::ThrowInvalid(
        absl::StrCat("linalg.qr: mode must be \"reduced\", \"complete\" or "
                     "\"r\", not \"",
                     mode, "\""));
  }
  const Array stack = MatrixStack("qr", a, ComputeType("qr", {&a}));
  const int64_t m = a.shape()[a.ndim() - 2], n = a.shape()[a.ndim() - 1];
  const bool complete = mode == "complete";
  const int64_t q_cols = complete ? m : std::min(m, n);
  const Array packed = Record(complete ? "qr_complete" : "qr", {stack});
  const Array r = reshape(packed(ellipsis, Slice(m * q_cols, m * q_cols + q_cols * n)),
                          WithLastAxes(a, {q_cols, n}));
  if (mode == "r") return {Array(), r};
  return {reshape(packed(ellipsis, Slice(0, m * q_cols)), WithLastAxes(a, {m, q_cols})), r};
}

LstsqResult lstsq(const Array& a, const Array& b, double rcond, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (a.ndim() != 2 || (b.ndim() != 1 && b.ndim() != 2) || b.shape()[0] != a.shape()[0]) {
    detail::ThrowInvalid(absl::StrCat("linalg.lstsq: expects a [m, n] and b [m] or [m, k]; got ",
                                      TypeText(a), " and ", TypeText(b)));
  }
  const DType dtype = ComputeType("lstsq", {&a, &b});
  const int64_t m = a.shape()[0], n = a.shape()[1];
  const Array sa = a.dtype() == dtype ? a : astype(a, dtype);
  const Array bb = b.dtype() == dtype ? b : astype(b, dtype);
  const SvdResult r = svd(sa, /*full_matrices=*/false, site);
  const double eps = Epsilon(r.S.dtype());
  const double cut = rcond < 0 ? eps * static_cast<double>(std::max(m, n)) : rcond;
  Array s = r.S;
  s.eval();
  const std::vector<double> values = astype(s, float64).to_host<double>();
  const double largest = values.empty() ? 0.0 : values[0];
  int64_t rank = 0;
  for (double v : values) rank += v > cut * largest ? 1 : 0;
  const Array inverse = where(s > cut * largest, 1.0 / s, 0.0);
  const Array v = ConjugateTranspose(r.Vh), uh = ConjugateTranspose(r.U);
  const Array column = bb.ndim() == 1 ? expand_dims(bb, -1) : bb;
  // x = V diag(1/s) U^H b, with U^H b first (the small side).
  Array x = matmul(v, expand_dims(astype(inverse, dtype), -1) * matmul(uh, column));
  Array residuals = zeros({0}, RealDtypeOf(dtype));
  if (rank == n && m > n) {
    const Array error = abs(matmul(sa, x) - column);
    residuals = sum(error * error, {0});
  }
  if (bb.ndim() == 1) x = squeeze(x, {-1});
  return {x, residuals, rank, s};
}

Array norm_ord(const Array& x, double ord, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array v = IsInexactType(x.dtype()) ? x : astype(x, float64);
  const Array magnitude = abs(v);
  if (x.ndim() == 1) {
    if (std::isinf(ord)) return ord > 0 ? max(magnitude) : min(magnitude);
    if (ord == 0) return sum(astype(magnitude != 0, magnitude.dtype()));
    if (ord == 1) return sum(magnitude);
    if (ord == 2) return sqrt(sum(magnitude * magnitude));
    return power(sum(power(magnitude, ord)), 1.0 / ord);
  }
  if (x.ndim() != 2) {
    detail::ThrowInvalid(
        absl::StrCat("linalg.norm: an order needs a vector or a matrix; got ", TypeText(x)));
  }
  if (ord == 1 || ord == -1) {
    const Array columns = sum(magnitude, {0});
    return ord > 0 ? max(columns) : min(columns);
  }
  if (std::isinf(ord)) {
    const Array rows = sum(magnitude, {1});
    return ord > 0 ? max(rows) : min(rows);
  }
  if (ord == 2 || ord == -2) {
    const Array s = svdvals(v, site);
    return ord > 0 ? max(s) : min(s);
  }
  detail::ThrowInvalid(absl::StrCat("linalg.norm: invalid order ", ord, " for a matrix ",
                                    TypeText(x), " (1, -1, 2, -2, inf, -inf; norm_fro, norm_nuc)"));
}

Array norm_fro(const Array& x, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (x.ndim() < 2) {
    detail::ThrowInvalid(absl::StrCat("linalg.norm: 'fro' needs a matrix; got ", TypeText(x)));
  }
  const Array magnitude = abs(IsInexactType(x.dtype()) ? x : astype(x, float64));
  return sqrt(sum(magnitude * magnitude, {-2, -1}));
}

Array norm_nuc(const Array& x, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return sum(svdvals(IsInexactType(x.dtype()) ? x : astype(x, float64), site), {-1});
}

Array svdvals(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return Record("svdvals", {MatrixStack("svdvals", a, ComputeType("svdvals", {&a}))});
}

Array pinv(const Array& a, double rcond, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const SvdResult r = svd(a, /*full_matrices=*/false, site);
  const Array cutoff = rcond * max(r.S, {-1}, /*keepdims=*/true);
  const Array inverse = where(r.S > cutoff, 1.0 / r.S, 0.0);
  const Array v = ConjugateTranspose(r.Vh), uh = ConjugateTranspose(r.U);
  return matmul(v * expand_dims(inverse, -2).astype(r.U.dtype()), uh);
}

Array matrix_rank(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (a.ndim() < 2) return astype(any(a != 0), int64);
  const Array s = svdvals(a, site);
  const double eps = Epsilon(s.dtype());
  const double scale =
      static_cast<double>(std::max(a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]));
  const Array tol = max(s, {-1}, /*keepdims=*/true) * (scale * eps);
  return sum(astype(s > tol, int64), {-1});
}

Array cond(const Array& a, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array s = svdvals(a, site);
  return s(ellipsis, 0) / s(ellipsis, -1);
}

Array matrix_power(const Array& a, int64_t n, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const int rank = a.ndim();
  if (rank < 2 || a.shape()[rank - 1] != a.shape()[rank - 2]) {
    detail::ThrowInvalid(absl::StrCat(
        "linalg.matrix_power: expects a stack of square matrices [..., n, n]; got ", TypeText(a)));
  }
  const int64_t size = a.shape()[rank - 1];
  if (n == 0) return broadcast_to(astype(eye(size), a.dtype()), a.shape());
  Array base = n < 0 ? inv(a, site) : a;
  uint64_t power = n < 0 ? uint64_t(0) - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  // As NumPy multiplies (the same roundings): a^3 = (a a) a, else squaring from the low bit,
  // the result gathering the squares of the set bits from the left.
  if (power == 3) return matmul(matmul(base, base), base);
  std::optional<Array> result;
  while (power > 0) {
    if (power & 1) result = result ? matmul(*result, base) : base;
    power >>= 1;
    if (power > 0) base = matmul(base, base);
  }
  return *result;
}

Array eigvalsh(const Array& a, const std::string& uplo, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array square = SquareStack("eigvalsh", a, ComputeType("eigvalsh", {&a}));
  return Record("eigvalsh", {HermitianLower("eigvalsh", square, uplo)});
}

}  // namespace gpuc::linalg
