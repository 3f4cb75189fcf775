//===- gpuc/linalg.h - Products of arrays ---------------------------------===//
//
// NumPy's products: matmul (the `@` operator) records a library node that runs as a GEMM
// (OpenBLAS on the host); dot, inner and tensordot are transposes and reshapes around one
// matmul, which the compiler fuses into the code around the call; outer and trace are
// elementwise products and sums. Result dtypes are NumPy's (NEP 50). Shapes that do not fit
// raise gpuc::Error naming both and the caller's line.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LINALG_H_
#define GPUC_LINALG_H_

#include <source_location>
#include <string>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

/// a @ b: 1-D operands are promoted to a row (a) or column (b) matrix and the added axis
/// removed from the result; batch axes broadcast. 0-d operands are an error, as in NumPy.
Array matmul(const Array& a, const Array& b,
             std::source_location site = std::source_location::current());

/// numpy.dot: a * b for a 0-d operand; matmul for 1-D and 2-D operands and for b 1-D;
/// otherwise the sum over a's last axis and b's second-to-last.
Array dot(const Array& a, const Array& b,
          std::source_location site = std::source_location::current());

/// numpy.vdot: both flattened, the first conjugated, then their inner product.
Array vdot(const Array& a, const Array& b,
           std::source_location site = std::source_location::current());

/// numpy.inner: the sum over the last axes of both (a * b for a 0-d operand).
Array inner(const Array& a, const Array& b,
            std::source_location site = std::source_location::current());

/// numpy.outer: both flattened, result[i, j] = a[i] * b[j].
Array outer(const Array& a, const Array& b,
            std::source_location site = std::source_location::current());

/// numpy.tensordot: sums the products over `axes_a` of a paired with `axes_b` of b (negative
/// axes count from the end); the result's axes are a's others, then b's others.
Array tensordot(const Array& a, const Array& b, const std::vector<int64_t>& axes_a,
                const std::vector<int64_t>& axes_b,
                std::source_location site = std::source_location::current());
/// The last `axes` axes of a against the first `axes` of b (numpy.tensordot(a, b, axes)).
Array tensordot(const Array& a, const Array& b, int64_t axes = 2,
                std::source_location site = std::source_location::current());

/// numpy.einsum over letter subscripts ("ij,jk->ik", "bij,bjk->bik", implicit "ij,jk"):
/// operands contracted left to right, each pair as one batched matmul with its transposes
/// and reshapes fused around it, labels nothing later needs summed out first. A label repeated
/// in one term takes its diagonal ("ii->i", "ii" the trace); "..." stands for broadcast
/// leading axes as in NumPy ("...ij,jk->...ik").
Array einsum(const std::string& subscripts, const std::vector<Array>& operands,
             std::source_location site = std::source_location::current());

/// numpy.trace: the sum of the main diagonal over the first two axes (the others kept), with
/// sum's result dtype.
Array trace(const Array& a, std::source_location site = std::source_location::current());

namespace linalg {

/// numpy.linalg.norm with ord=None: the 2-norm of the flattened array (Frobenius for
/// matrices); integers and bools in float64, complex arrays by their magnitudes.
Array norm(const Array& x, std::source_location site = std::source_location::current());
/// The 2-norm of the vectors along `axis`.
Array norm(const Array& x, int64_t axis, bool keepdims = false,
           std::source_location site = std::source_location::current());

// Solvers and decompositions, numpy.linalg's, over stacks of square matrices [..., n, n]
// (each matrix on its own; leading axes broadcast between a and b). Dtypes as NumPy's:
// float32 and complex64 stay single precision, integers and bools compute in float64, and
// float16 is an error. On the host through LAPACK (OpenBLAS); on the GPU the step runs on the
// host for now (cuSOLVER is to come). A singular matrix (solve, inv), one that is not
// positive definite (cholesky) or eigenvalues that do not converge (eigh, eigvalsh) raise
// gpuc::Error when the result is evaluated, naming the routine, the shape and the batch index.
// svd and what is built on it (pinv, matrix_rank, cond) take any [..., m, n].

/// numpy.linalg.solve: x with a @ x = b. b is a vector [n] when it is 1-D (NumPy 2's rule),
/// else a stack of matrices [..., n, k].
Array solve(const Array& a, const Array& b,
            std::source_location site = std::source_location::current());
/// numpy.linalg.inv.
Array inv(const Array& a, std::source_location site = std::source_location::current());
/// numpy.linalg.det (from the LU factorization; 0 for a singular matrix, not an error).
Array det(const Array& a, std::source_location site = std::source_location::current());
struct SlogdetResult {
  Array sign;       // a's dtype: +-1 (a unit complex for complex a), 0 when singular
  Array logabsdet;  // a's real dtype: log|det a|, -inf when singular
};
/// numpy.linalg.slogdet.
SlogdetResult slogdet(const Array& a, std::source_location site = std::source_location::current());
/// numpy.linalg.cholesky: the lower factor L, a = L @ L^H (a's lower triangle is read).
Array cholesky(const Array& a, std::source_location site = std::source_location::current());
struct EighResult {
  Array eigenvalues;   // [..., n], a's real dtype, ascending
  Array eigenvectors;  // [..., n, n], columns, a's dtype
};
/// numpy.linalg.eigh of a Hermitian (real symmetric) matrix; `uplo` "L" reads the lower
/// triangle, "U" the upper.
EighResult eigh(const Array& a, const std::string& uplo = "L",
                std::source_location site = std::source_location::current());
/// numpy.linalg.eigvalsh: eigh's eigenvalues alone.
Array eigvalsh(const Array& a, const std::string& uplo = "L",
               std::source_location site = std::source_location::current());
struct EigResult {
  Array eigenvalues;   // [..., n], complex (complex64 for float32 and complex64 input)
  Array eigenvectors;  // [..., n, n], columns of unit norm, complex
};
/// numpy.linalg.eig of a general square matrix: LAPACK's geev (NumPy's call), the eigenvalues
/// in its order, each right eigenvector of unit norm with its largest component real. Always
/// complex: NumPy returns real arrays when every eigenvalue happens to be real, a dtype that
/// depends on the values, which a lazy array cannot have (JAX's eig is complex too).
EigResult eig(const Array& a, std::source_location site = std::source_location::current());
/// numpy.linalg.eigvals: eig's eigenvalues alone.
Array eigvals(const Array& a, std::source_location site = std::source_location::current());
struct SvdResult {
  Array U;   // [..., m, m] (full_matrices) or [..., m, k], a's dtype
  Array S;   // [..., k], a's real dtype, descending; k = min(m, n)
  Array Vh;  // [..., n, n] (full_matrices) or [..., k, n]
};
/// numpy.linalg.svd of a stack of matrices [..., m, n]: a = U diag(S) Vh (?gesdd on the host).
SvdResult svd(const Array& a, bool full_matrices = true,
              std::source_location site = std::source_location::current());
struct QrResult {
  Array Q;  // [..., m, k] ("reduced") or [..., m, m] ("complete"); absent for "r"
  Array R;  // [..., k, n] or [..., m, n], upper triangular
};
/// numpy.linalg.qr with mode "reduced" (the default), "complete" or "r" (?geqrf and ?orgqr on
/// the host; a = Q @ R, R's diagonal as LAPACK's Householder reflections leave it).
QrResult qr(const Array& a, const std::string& mode = "reduced",
            std::source_location site = std::source_location::current());
struct LstsqResult {
  Array x;          // [n] or [n, k]
  Array residuals;  // [k] (or [1] for a vector b) of squared residual norms when rank == n
                    // and m > n, else empty [0] (NumPy's)
  int64_t rank = 0;
  Array s;  // a's singular values
};
/// numpy.linalg.lstsq(a, b, rcond): the least-squares x of a [m, n] x = b [m] or [m, k] by
/// the SVD, singular values at or below rcond * max(s) counted as zero (rcond < 0: NumPy 2's
/// default, eps * max(m, n)). Evaluates a's singular values to learn the rank (NumPy returns
/// it as an int, and the residuals' shape depends on it).
LstsqResult lstsq(const Array& a, const Array& b, double rcond = -1.0,
                  std::source_location site = std::source_location::current());
/// numpy.linalg.norm(x, ord) (norm_ord: norm(x, n) takes an axis) of a vector (x 1-D) or a
/// matrix (x 2-D): for vectors ord may be
/// inf, -inf, 0 (the count of nonzeros) or any p (sum |x|^p)^(1/p); for matrices 1, -1, inf,
/// -inf (largest/smallest column/row sums), 2, -2 (largest/smallest singular value). Use
/// norm(x) for the 2-/Frobenius norm, norm_fro and norm_nuc for the named matrix norms.
Array norm_ord(const Array& x, double ord,
               std::source_location site = std::source_location::current());
/// The Frobenius norm of a matrix (numpy.linalg.norm(x, "fro")), over the last two axes.
Array norm_fro(const Array& x, std::source_location site = std::source_location::current());
/// The nuclear norm (numpy.linalg.norm(x, "nuc")): the sum of the singular values.
Array norm_nuc(const Array& x, std::source_location site = std::source_location::current());
/// numpy.linalg.svd(a, compute_uv=False) (NumPy 2's svdvals): the singular values alone.
Array svdvals(const Array& a, std::source_location site = std::source_location::current());
/// numpy.linalg.pinv: V diag(1/S) U^H over the singular values above rcond * max(S).
Array pinv(const Array& a, double rcond = 1e-15,
           std::source_location site = std::source_location::current());
/// numpy.linalg.matrix_rank: singular values above max(S) * max(m, n) * eps, counted (int64);
/// for a 0-d or 1-d array, 1 unless every element is zero.
Array matrix_rank(const Array& a, std::source_location site = std::source_location::current());
/// numpy.linalg.cond with p=None: the ratio of the largest to the smallest singular value.
Array cond(const Array& a, std::source_location site = std::source_location::current());
/// numpy.linalg.matrix_power: a @ a @ ... (n times, by squaring), the identity for n = 0,
/// inv(a) to the |n| for n < 0; integer matrices stay integer for n >= 0.
Array matrix_power(const Array& a, int64_t n,
                   std::source_location site = std::source_location::current());

}  // namespace linalg
}  // namespace gpuc

#endif  // GPUC_LINALG_H_
