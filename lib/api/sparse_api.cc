//===- sparse_api.cc - CSR matrices of gpuc/sparse.h ----------------------===//
#include "gpuc/sparse.h"

#include <algorithm>
#include <climits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc::sparse {
namespace {

std::string TypeText(const Array& a) { return detail::ImplOf(a, "sparse").node->type().ToString(); }

std::string ShapeText(std::array<int64_t, 2> shape) {
  return absl::StrCat(shape[0], "x", shape[1]);
}

bool IsIndexType(DType d) {
  return d == int8 || d == uint8 || d == int16 || d == uint16 || d == int32 || d == uint32 ||
         d == int64 || d == uint64;
}

void CheckVector(const char* op, const char* what, const Array& a) {
  if (a.ndim() != 1) {
    detail::ThrowInvalid(absl::StrCat(op, ": ", what, " must be 1-D, not ", TypeText(a)));
  }
}

void CheckShape(const char* op, std::array<int64_t, 2> shape) {
  if (shape[0] < 0 || shape[1] < 0) {
    detail::ThrowInvalid(absl::StrCat(op, ": negative shape ", ShapeText(shape)));
  }
}

void CheckIndexType(const char* op, const char* what, const Array& a) {
  if (!IsIndexType(a.dtype())) {
    detail::ThrowInvalid(
        absl::StrCat(op, ": ", what, " must have an integer dtype, not ", TypeText(a)));
  }
}

void CheckDataType(const char* op, const Array& data) {
  if (data.dtype() == bool_) {
    detail::ThrowInvalid(absl::StrCat(op, ": data must be numeric, not ", TypeText(data)));
  }
}

std::vector<int64_t> HostIndices(const Array& a) { return astype(a, int64).to_host<int64_t>(); }

/// The dtype the structure is stored in: int32 when both given arrays are and `largest` fits.
DType IndexTypeFor(const Array& indices, const Array& indptr, int64_t largest) {
  return indices.dtype() == int32 && indptr.dtype() == int32 && largest <= INT32_MAX ? int32
                                                                                     : int64;
}

/// Whether no row repeats a column (and each lists its columns in order).
bool ColumnsIncreaseInEveryRow(const std::vector<int64_t>& indptr,
                               const std::vector<int64_t>& indices) {
  for (size_t r = 0; r + 1 < indptr.size(); ++r) {
    for (int64_t p = indptr[r] + 1; p < indptr[r + 1]; ++p) {
      if (indices[p] <= indices[p - 1]) return false;
    }
  }
  return true;
}

Array RecordSpmv(const Array& data, const Array& indices, const Array& indptr, const Array& x) {
  ir::Attributes attrs;
  // The structure was checked when the matrix was built (or derived from a checked one), so
  // executors may run the product without checking indices again (cuSPARSE does not).
  attrs.Set("validated", true);
  return detail::Record(ir::OpCode::kSpmv, {data, indices, indptr, x}, std::move(attrs));
}

}  // namespace

CsrMatrix::CsrMatrix(const Array& data, const Array& indices, const Array& indptr,
                     std::array<int64_t, 2> shape)
    : shape_(shape) {
  const char* op = "sparse::CsrMatrix";
  CheckShape(op, shape);
  CheckVector(op, "data", data);
  CheckVector(op, "indices", indices);
  CheckVector(op, "indptr", indptr);
  CheckDataType(op, data);
  CheckIndexType(op, "indices", indices);
  CheckIndexType(op, "indptr", indptr);
  if (indices.shape()[0] != data.shape()[0]) {
    detail::ThrowInvalid(absl::StrCat(op, ": indices ", TypeText(indices), " and data ",
                                      TypeText(data), " differ in length"));
  }
  if (indptr.shape()[0] != shape[0] + 1) {
    detail::ThrowInvalid(absl::StrCat(op, ": indptr ", TypeText(indptr),
                                      " must have rows + 1 = ", shape[0] + 1, " entries for a ",
                                      ShapeText(shape), " matrix"));
  }
  nnz_ = data.shape()[0];
  host_indptr_ = HostIndices(indptr);
  host_indices_ = HostIndices(indices);
  if (host_indptr_[0] != 0) {
    detail::ThrowInvalid(absl::StrCat(op, ": indptr[0] is ", host_indptr_[0], ", not 0"));
  }
  for (int64_t r = 0; r < shape[0]; ++r) {
    if (host_indptr_[r + 1] < host_indptr_[r]) {
      detail::ThrowInvalid(absl::StrCat(op, ": indptr decreases at row ", r, " (", host_indptr_[r],
                                        " then ", host_indptr_[r + 1], ")"));
    }
  }
  if (host_indptr_[shape[0]] != nnz_) {
    detail::ThrowInvalid(absl::StrCat(op, ": indptr ends at ", host_indptr_[shape[0]],
                                      " but there are ", nnz_, " entries"));
  }
  for (int64_t r = 0; r < shape[0]; ++r) {
    for (int64_t p = host_indptr_[r]; p < host_indptr_[r + 1]; ++p) {
      const int64_t c = host_indices_[p];
      if (c < 0 || c >= shape[1]) {
        detail::ThrowInvalid(absl::StrCat(op, ": indices[", p, "] = ", c, " (row ", r,
                                          ") is outside [0, ", shape[1], ") for a ",
                                          ShapeText(shape), " matrix"));
      }
    }
  }
  data_ = data;
  const DType index = IndexTypeFor(indices, indptr, std::max(nnz_, shape[1]));
  indices_ = astype(indices, index);
  indptr_ = astype(indptr, index);
}

CsrMatrix::CsrMatrix(Checked, Array data, Array indices, Array indptr, std::array<int64_t, 2> shape,
                     std::vector<int64_t> host_indices, std::vector<int64_t> host_indptr)
    : data_(std::move(data)),
      indices_(std::move(indices)),
      indptr_(std::move(indptr)),
      shape_(shape),
      nnz_(static_cast<int64_t>(host_indices.size())),
      host_indices_(std::move(host_indices)),
      host_indptr_(std::move(host_indptr)) {}

CsrMatrix CsrMatrix::from_coo(const Array& row, const Array& col, const Array& data,
                              std::array<int64_t, 2> shape) {
  const char* op = "sparse::CsrMatrix::from_coo";
  CheckShape(op, shape);
  CheckVector(op, "row", row);
  CheckVector(op, "col", col);
  CheckVector(op, "data", data);
  CheckDataType(op, data);
  CheckIndexType(op, "row", row);
  CheckIndexType(op, "col", col);
  if (row.shape()[0] != data.shape()[0] || col.shape()[0] != data.shape()[0]) {
    detail::ThrowInvalid(absl::StrCat(op, ": row ", TypeText(row), ", col ", TypeText(col),
                                      " and data ", TypeText(data), " differ in length"));
  }
  const std::vector<int64_t> rows = HostIndices(row), cols = HostIndices(col);
  const int64_t n = static_cast<int64_t>(rows.size());
  for (int64_t k = 0; k < n; ++k) {
    if (rows[k] < 0 || rows[k] >= shape[0] || cols[k] < 0 || cols[k] >= shape[1]) {
      detail::ThrowInvalid(absl::StrCat(op, ": entry ", k, " at (", rows[k], ", ", cols[k],
                                        ") is outside a ", ShapeText(shape), " matrix"));
    }
  }
  // Entries in (row, col) order; equal positions become one entry, their data summed.
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return rows[a] != rows[b] ? rows[a] < rows[b] : cols[a] < cols[b];
  });
  std::vector<int64_t> indices, indptr(static_cast<size_t>(shape[0] + 1), 0);
  std::vector<int64_t> group_start;  // into `order`, one per unique position
  for (int64_t j = 0; j < n; ++j) {
    const int64_t k = order[j];
    if (j > 0 && rows[k] == rows[order[j - 1]] && cols[k] == cols[order[j - 1]]) continue;
    group_start.push_back(j);
    indices.push_back(cols[k]);
    ++indptr[rows[k] + 1];
  }
  for (int64_t r = 0; r < shape[0]; ++r) indptr[r + 1] += indptr[r];
  const int64_t unique = static_cast<int64_t>(indices.size());
  Array summed;
  if (unique == n) {
    summed = take(data, array(order));
  } else {
    // Summing the duplicates is itself a sparse product: S[q, order[j]] = 1 for the entries j
    // of unique position q, times the data.
    std::vector<int64_t> s_indptr(group_start);
    s_indptr.push_back(n);
    const CsrMatrix selection(Checked{}, ones({n}, data.dtype()), array(order), array(s_indptr),
                              {unique, n}, order, s_indptr);
    summed = matmul(selection, data);
  }
  const DType index = unique <= INT32_MAX && shape[1] <= INT32_MAX ? int32 : int64;
  Array indices_array = astype(array(indices), index), indptr_array = astype(array(indptr), index);
  return CsrMatrix(Checked{}, summed, indices_array, indptr_array, shape, std::move(indices),
                   std::move(indptr));
}

CsrMatrix CsrMatrix::transpose() const {
  const int64_t rows = shape_[0], cols = shape_[1];
  std::vector<int64_t> indptr(static_cast<size_t>(cols + 1), 0);
  for (int64_t c : host_indices_) ++indptr[c + 1];
  for (int64_t c = 0; c < cols; ++c) indptr[c + 1] += indptr[c];
  std::vector<int64_t> next(indptr.begin(), indptr.end() - 1);
  std::vector<int64_t> indices(static_cast<size_t>(nnz_)), source(static_cast<size_t>(nnz_));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = host_indptr_[r]; p < host_indptr_[r + 1]; ++p) {
      const int64_t q = next[host_indices_[p]]++;
      indices[q] = r;
      source[q] = p;
    }
  }
  const DType index = indices_.dtype() == int32 && rows <= INT32_MAX ? int32 : int64;
  Array data = take(data_, array(source));
  Array indices_array = astype(array(indices), index), indptr_array = astype(array(indptr), index);
  return CsrMatrix(Checked{}, std::move(data), std::move(indices_array), std::move(indptr_array),
                   {cols, rows}, std::move(indices), std::move(indptr));
}

Array CsrMatrix::to_dense() const {
  const int64_t rows = shape_[0], cols = shape_[1];
  if (!ColumnsIncreaseInEveryRow(host_indptr_, host_indices_)) {
    // Duplicates sum: the product with the identity does exactly that.
    return matmul(*this, eye(cols, std::nullopt, 0, data_.dtype()));
  }
  // A gather: each dense element reads its entry, or the zero appended after the entries.
  std::vector<int64_t> source(static_cast<size_t>(rows * cols), nnz_);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = host_indptr_[r]; p < host_indptr_[r + 1]; ++p) {
      source[r * cols + host_indices_[p]] = p;
    }
  }
  const Array padded = concatenate({data_, zeros({1}, data_.dtype())});
  return reshape(take(padded, array(source)), {rows, cols});
}

Array matmul(const CsrMatrix& a, const Array& x) {
  const int64_t cols = a.cols();
  if ((x.ndim() != 1 && x.ndim() != 2) || x.shape()[0] != cols) {
    detail::ThrowInvalid(absl::StrCat("sparse::matmul: a ", ShapeText(a.shape()), " ",
                                      TypeText(a.data()), " matrix times ", TypeText(x),
                                      " (expects [", cols, "] or [", cols, ", k])"));
  }
  // A matrix x is k right-hand sides: one spmv node (cuSPARSE's SpMM on a GPU).
  return RecordSpmv(a.data(), a.indices(), a.indptr(), x);
}

}  // namespace gpuc::sparse
