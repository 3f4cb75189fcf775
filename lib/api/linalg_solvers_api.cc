//===- linalg_solvers_api.cc - numpy.linalg's solvers and decompositions --===//
//
// Each function checks and casts its operands as NumPy does and records one linalg node
// (ir/linalg_semantics.h); results with several parts (slogdet, eigh) are one packed node
// that the API slices apart, so both parts come from one factorization.
//
//===----------------------------------------------------------------------===//
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpuc/elementwise.h"
#include "gpuc/linalg.h"
#include "gpuc/manipulation.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc::linalg {
namespace {

bool IsComplexType(DType d) { return d == complex64 || d == complex128; }

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

// The Hermitian matrix eigh reads from its lower triangle: a itself for "L", the conjugate
// transpose for "U" (whose lower triangle is a's upper one, conjugated back by the routine).
Array HermitianLower(const char* op, const Array& a, const std::string& uplo) {
  if (uplo == "L") return a;
  if (uplo == "U") {
    const Array t = swapaxes(a, -1, -2);
    return IsComplexType(a.dtype()) ? conj(t) : t;
  }
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

Array eigvalsh(const Array& a, const std::string& uplo, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array square = SquareStack("eigvalsh", a, ComputeType("eigvalsh", {&a}));
  return Record("eigvalsh", {HermitianLower("eigvalsh", square, uplo)});
}

}  // namespace gpuc::linalg
