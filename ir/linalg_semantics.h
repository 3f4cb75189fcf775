//===- linalg_semantics.h - What a linalg node computes -------------------===//
//
// `linalg(a[, b]) {routine}` is the library node of numpy.linalg's solvers and
// decompositions (gpuc/linalg.h). Operands are stacks of square matrices [..., n, n] of one
// inexact dtype (f32, f64, c64, c128), the API having cast and broadcast them; each matrix of
// the batch is solved on its own. Routines and their result types:
//   solve(a, b)  b [..., n, k] -> [..., n, k], the x with a x = b
//   inv(a)       [..., n, n], the inverse
//   det(a)       [...], the determinant (from the LU factorization, as LAPACK's getrf)
//   slogdet(a)   [..., 2]: the sign (a unit complex for complex a, 0 when singular) and
//                log|det| (-inf when singular), both in a's dtype
//   cholesky(a)  [..., n, n], the lower factor L with a = L L^H (a's lower triangle is read)
//   eigh(a)      [..., n, n + 1]: the eigenvectors as columns 0..n-1 and the eigenvalues,
//                ascending, in column n, in a's dtype (a's lower triangle is read); the API
//                slices the two apart and takes the eigenvalues' real part
//   eigvalsh(a)  [..., n] of a's real dtype, ascending
//   svd(a)       a [..., m, n], k = min(m, n) -> [..., m k + k + k n]: u [m, k], then s [k]
//                (descending, in a's dtype), then vh [k, n], each row-major, a = u diag(s) vh
//   svd_full(a)  -> [..., m m + k + n n]: u [m, m], s [k], vh [n, n]
//   svdvals(a)   -> [..., k] of a's real dtype, descending
//   qr(a)        -> [..., m k + k n]: q [m, k] with orthonormal columns, then r [k, n] upper
//                triangular, a = q r (Householder reflections, as LAPACK's geqrf)
//   qr_complete(a) -> [..., m m + m n]: q [m, m] unitary, r [m, n]
//   eig(a)       [..., n, n + 1] of a's complex dtype: the right eigenvectors as columns
//                0..n-1 (each of unit norm, its largest component real, as LAPACK's geev
//                scales them) and the eigenvalues in column n, in the routine's order
//   eigvals(a)   [..., n] of a's complex dtype
// A singular matrix (solve, inv: an exactly zero pivot, as LAPACK reports it), one that is not
// positive definite (cholesky) and eigenvalues that do not converge (eigh) are errors naming
// the routine, the operand's type and the batch index.
//
// This file is the definition: the attributes, the result types, and the reference (LU with
// partial pivoting, Cholesky by columns, cyclic Jacobi rotations for Hermitian matrices, the
// singular values and vectors from the Jacobi eigenpairs of the smaller Gram matrix (a^H a or
// a a^H) with the other side's vectors completed by Gram-Schmidt, a general matrix's
// eigenvalues by Hessenberg reduction and shifted QR steps and its eigenvectors by inverse
// iteration, all in complex double)
// that the interpreter runs. The host back end runs LAPACK
// (lib/backend/host/host_linalg.h).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_LINALG_SEMANTICS_H_
#define GPUC_IR_LINALG_SEMANTICS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/attributes.h"
#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::ir {

enum class LinalgRoutine : uint8_t {
  kSolve,
  kInv,
  kDet,
  kSlogdet,
  kCholesky,
  kEigh,
  kEigvalsh,
  kSvd,
  kSvdFull,
  kSvdvals,
  kQr,
  kQrComplete,
  kEig,
  kEigvals,
};

/// Whether the routine takes any [..., m, n] (the singular value routines), not only square.
bool TakesRectangular(LinalgRoutine routine);

/// The routine attribute of a linalg node (an error for a missing or unknown name).
absl::StatusOr<LinalgRoutine> ReadLinalgRoutine(const Attributes& attrs);
const char* LinalgRoutineName(LinalgRoutine routine);

/// The result type of `routine` on `operands`, or an error naming the routine and the types.
absl::StatusOr<TensorType> LinalgResultType(LinalgRoutine routine,
                                            absl::Span<const TensorType> operands);

/// The batch's matrices: how many, and each one's order n.
struct LinalgBatch {
  int64_t count = 0;
  int64_t n = 0;
};
LinalgBatch BatchOf(const TensorType& a);

/// "linalg.solve: the matrix f64[4,3,3] at batch index 2 is singular": the error every
/// implementation reports for `what` at batch index `index`.
absl::Status LinalgError(LinalgRoutine routine, const TensorType& a, int64_t index,
                         absl::string_view what);

/// spsolve's errors: "sparse.linalg.spsolve: the matrix of order 4 (nnz 7, f64) " + what.
absl::Status SpsolveError(const Node& spsolve, absl::string_view what);

/// The reference of spsolve (ir/ops.def): the structure checked, the matrix made dense (repeated
/// entries summed, as SciPy does), and each right-hand side solved by LU with partial pivoting
/// in complex double.
absl::StatusOr<HostTensor> EvalSpsolveNode(const Node& node, const HostTensor& values,
                                           const HostTensor& columns, const HostTensor& offsets,
                                           const HostTensor& b);

/// The reference: the node's result from its operands.
absl::StatusOr<HostTensor> EvalLinalgNode(const Node& node, const HostTensor& a,
                                          const HostTensor* b);

}  // namespace gpuc::ir

#endif  // GPUC_IR_LINALG_SEMANTICS_H_
