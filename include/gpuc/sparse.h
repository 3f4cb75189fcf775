//===- gpuc/sparse.h - Compressed sparse row matrices ---------------------===//
//
// scipy.sparse's CSR matrix for sparse × dense products: built from host or device arrays
// (data, column indices, row pointers) or from COO triplets (sorted and with duplicates summed,
// as scipy's tocsr() does), and checked when built: row pointers start at 0, never decrease
// and end at nnz, every column index lies in [0, cols); a malformed matrix raises gpuc::Error
// there, never a fault in a later kernel. The structure (indices and pointers) is read to the
// host for that check once; the values stay lazy arrays, so a matrix's data can be the result
// of fused elementwise code.
//
// Products record one spmv library node (a CSR loop on the host): sparse × vector is
// cuSPARSE's SpMV on a GPU, sparse × matrix (k right-hand sides, row-major) its SpMM, one
// call for all k columns. Result dtypes are NumPy's promotion of the data and the dense
// operand.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_SPARSE_H_
#define GPUC_SPARSE_H_

#include <array>
#include <cstdint>
#include <vector>

#include "gpuc/array.h"

namespace gpuc::sparse {

class CsrMatrix {
 public:
  /// data[nnz] (any numeric dtype), indices[nnz] and indptr[rows + 1] (integer dtypes; stored as
  /// int32 when both are int32, else int64) of a rows × cols matrix. Throws gpuc::Error naming
  /// the first problem: ranks, lengths, dtypes, a pointer that decreases, an index out of range.
  CsrMatrix(const Array& data, const Array& indices, const Array& indptr,
            std::array<int64_t, 2> shape);

  /// COO triplets: entry k is data[k] at (row[k], col[k]); duplicates are summed.
  static CsrMatrix from_coo(const Array& row, const Array& col, const Array& data,
                            std::array<int64_t, 2> shape);

  std::array<int64_t, 2> shape() const { return shape_; }
  int64_t rows() const { return shape_[0]; }
  int64_t cols() const { return shape_[1]; }
  int64_t nnz() const { return nnz_; }
  DType dtype() const { return data_.dtype(); }
  const Array& data() const { return data_; }
  const Array& indices() const { return indices_; }
  const Array& indptr() const { return indptr_; }

  /// The transpose, in CSR (its structure built on the host from this one's; its data a lazy
  /// gather of this one's).
  CsrMatrix transpose() const;
  /// The dense rows × cols array (duplicates summed).
  Array to_dense() const;

 private:
  struct Checked {};  // structure already validated
  CsrMatrix(Checked, Array data, Array indices, Array indptr, std::array<int64_t, 2> shape,
            std::vector<int64_t> host_indices, std::vector<int64_t> host_indptr);

  Array data_, indices_, indptr_;
  std::array<int64_t, 2> shape_;
  int64_t nnz_ = 0;
  std::vector<int64_t> host_indices_, host_indptr_;  // the validated structure
};

/// a @ x for x of shape [cols] (a vector, result [rows]) or [cols, k] (result [rows, k]).
/// Throws gpuc::Error naming both shapes when they do not fit.
Array matmul(const CsrMatrix& a, const Array& x);

}  // namespace gpuc::sparse

#endif  // GPUC_SPARSE_H_
