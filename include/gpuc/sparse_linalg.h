//===- gpuc/sparse_linalg.h - SciPy's iterative sparse solvers ------------===//
//
// scipy.sparse.linalg's cg, bicgstab, gmres and minres over a CsrMatrix (gpuc/sparse.h):
// each iteration is one sparse product (cuSPARSE's SpMV on a GPU) and the vector updates and
// dot products around it, which the compiler fuses; the loop is a C++ loop that reads the
// residual norm once an iteration to decide whether to stop (its plans are cached after the
// first iteration).
// Arguments are SciPy's (x0, rtol, atol, maxiter, a preconditioner M as a function that
// approximates A^{-1} r, a callback with the iterate), and so is the stopping rule:
// ||r|| < max(rtol ||b||, atol). The result's info is 0 on convergence and the iteration count
// when maxiter was reached without it (SciPy's), or -1 for a breakdown (bicgstab: rho or
// omega zero).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_SPARSE_LINALG_H_
#define GPUC_SPARSE_LINALG_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "gpuc/array.h"
#include "gpuc/sparse.h"

namespace gpuc::sparse::linalg {

/// M(r) approximates A^{-1} r (SciPy's M, as a function).
using Preconditioner = std::function<Array(const Array&)>;

/// The Jacobi preconditioner r / diag(a) (a's diagonal read once, on the host; a zero on the
/// diagonal is an error naming the row).
Preconditioner jacobi(const CsrMatrix& a);

struct SolverOptions {
  std::optional<Array> x0;  // the first iterate (zeros when absent)
  double rtol = 1e-5;
  double atol = 0.0;
  int64_t maxiter = 0;                            // 0: 10 n, SciPy's default
  Preconditioner M;                               // none: the identity
  std::function<void(const Array& xk)> callback;  // after each iteration
};

struct SolverResult {
  Array x;
  int64_t info = 0;        // 0: converged; > 0: iterations without convergence; -1: breakdown
  int64_t iterations = 0;  // done
};

/// Conjugate gradients for a Hermitian positive definite a.
/// scipy.sparse.linalg.spsolve(a, b): the x with a x = b by a sparse LU factorization (SuperLU,
/// as SciPy; on the host, for every target). b is [n] or [n, k]; an [n] or [n, 1] b gives x [n]
/// as SciPy's does. The dtype is SciPy's: a's values made inexact (small integers float32,
/// others float64) and promoted with b's. A singular matrix is an error (SciPy warns and
/// returns NaNs). A lazy node: it evaluates with what reads it.
Array spsolve(const CsrMatrix& a, const Array& b);

SolverResult cg(const CsrMatrix& a, const Array& b, const SolverOptions& options = {});
/// BiCGSTAB for a general square a.
SolverResult bicgstab(const CsrMatrix& a, const Array& b, const SolverOptions& options = {});
/// Restarted GMRES(restart) for a general square a, preconditioned on the left by M. maxiter
/// counts restart cycles (SciPy's; default 10 n), iterations the Arnoldi steps done, and the
/// callback sees the iterate after each cycle (SciPy's callback_type="x"). Each Arnoldi step
/// is one plan (the product, the modified Gram-Schmidt dot products and the new basis vector);
/// the small Hessenberg least-squares problem is solved on the host with Givens rotations.
SolverResult gmres(const CsrMatrix& a, const Array& b, const SolverOptions& options = {},
                   int64_t restart = 20);
/// MINRES for a Hermitian (possibly indefinite) a, with a Hermitian positive definite
/// preconditioner M (Paige and Saunders' recurrences: the Lanczos vectors on the device, the
/// 2 x 2 rotations on the host). It stops when its running estimate of ||b - a x|| falls
/// below max(rtol ||b||, atol) (SciPy's minres tests a relative estimate of its own; the
/// iterates are the same).
SolverResult minres(const CsrMatrix& a, const Array& b, const SolverOptions& options = {});

}  // namespace gpuc::sparse::linalg

#endif  // GPUC_SPARSE_LINALG_H_
