//===- host_linalg.cc - linalg nodes on the host through LAPACK -----------===//
#include "lib/backend/host/host_linalg.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/linalg_semantics.h"

// LAPACK's Fortran entry points in OpenBLAS; character arguments carry their hidden lengths.
extern "C" {
using c32 = std::complex<float>;
using c64 = std::complex<double>;
void sgesv_(const int*, const int*, float*, const int*, int*, float*, const int*, int*);
void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
void cgesv_(const int*, const int*, c32*, const int*, int*, c32*, const int*, int*);
void zgesv_(const int*, const int*, c64*, const int*, int*, c64*, const int*, int*);
void sgetrs_(const char*, const int*, const int*, const float*, const int*, const int*, float*,
             const int*, int*, size_t);
void dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*,
             const int*, int*, size_t);
void cgetrs_(const char*, const int*, const int*, const c32*, const int*, const int*, c32*,
             const int*, int*, size_t);
void zgetrs_(const char*, const int*, const int*, const c64*, const int*, const int*, c64*,
             const int*, int*, size_t);
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void cgetrf_(const int*, const int*, c32*, const int*, int*, int*);
void zgetrf_(const int*, const int*, c64*, const int*, int*, int*);
void spotrf_(const char*, const int*, float*, const int*, int*, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void cpotrf_(const char*, const int*, c32*, const int*, int*, size_t);
void zpotrf_(const char*, const int*, c64*, const int*, int*, size_t);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*,
             float*, const int*, float*, const int*, int*, int*, size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, int*, size_t);
void cgesdd_(const char*, const int*, const int*, c32*, const int*, float*, c32*, const int*, c32*,
             const int*, c32*, const int*, float*, int*, int*, size_t);
void zgesdd_(const char*, const int*, const int*, c64*, const int*, double*, c64*, const int*, c64*,
             const int*, c64*, const int*, double*, int*, int*, size_t);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void cgeqrf_(const int*, const int*, c32*, const int*, c32*, c32*, const int*, int*);
void zgeqrf_(const int*, const int*, c64*, const int*, c64*, c64*, const int*, int*);
void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*,
             const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void cungqr_(const int*, const int*, const int*, c32*, const int*, const c32*, c32*, const int*,
             int*);
void zungqr_(const int*, const int*, const int*, c64*, const int*, const c64*, c64*, const int*,
             int*);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*,
             int*, const int*, int*, size_t, size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*,
             const int*, int*, const int*, int*, size_t, size_t);
void cheevd_(const char*, const char*, const int*, c32*, const int*, float*, c32*, const int*,
             float*, const int*, int*, const int*, int*, size_t, size_t);
void zheevd_(const char*, const char*, const int*, c64*, const int*, double*, c64*, const int*,
             double*, const int*, int*, const int*, int*, size_t, size_t);
void sgeev_(const char*, const char*, const int*, float*, const int*, float*, float*, float*,
            const int*, float*, const int*, float*, const int*, int*, size_t, size_t);
void dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*, double*,
            const int*, double*, const int*, double*, const int*, int*, size_t, size_t);
void cgeev_(const char*, const char*, const int*, c32*, const int*, c32*, c32*, const int*, c32*,
            const int*, c32*, const int*, float*, int*, size_t, size_t);
void zgeev_(const char*, const char*, const int*, c64*, const int*, c64*, c64*, const int*, c64*,
            const int*, c64*, const int*, double*, int*, size_t, size_t);
}

namespace gpuc::detail {
namespace {

using ir::LinalgRoutine;

template <typename T>
struct Lapack;

#define GPUC_LAPACK_COMMON(T, p)                                                        \
  static void gesv(const int* n, const int* k, T* a, const int* lda, int* ipiv, T* b,   \
                   const int* ldb, int* info) {                                         \
    p##gesv_(n, k, a, lda, ipiv, b, ldb, info);                                         \
  }                                                                                     \
  static void getrf(const int* n, T* a, const int* lda, int* ipiv, int* info) {         \
    p##getrf_(n, n, a, lda, ipiv, info);                                                \
  }                                                                                     \
  static void potrf(const int* n, T* a, const int* lda, int* info) {                    \
    p##potrf_("L", n, a, lda, info, 1);                                                 \
  }                                                                                     \
  static void getrs_transposed(const int* n, const int* k, const T* lu, const int* lda, \
                               const int* ipiv, T* b, const int* ldb, int* info) {      \
    p##getrs_("T", n, k, lu, lda, ipiv, b, ldb, info, 1);                               \
  }

// ?syevd with its workspace queried first.
template <typename T, typename F>
void SymmetricEig(F f, char jobz, int n, T* a, T* w, int* info) {
  int lwork = -1, liwork = -1, iwork_size = 0;
  T work_size = 0;
  const int lda = std::max(1, n);
  f(&jobz, "L", &n, a, &lda, w, &work_size, &lwork, &iwork_size, &liwork, info, 1, 1);
  lwork = static_cast<int>(work_size);
  liwork = iwork_size;
  std::vector<T> work(static_cast<size_t>(std::max(1, lwork)));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, liwork)));
  f(&jobz, "L", &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, info, 1, 1);
}

template <>
struct Lapack<float> {
  using Real = float;
  GPUC_LAPACK_COMMON(float, s)
  static void eig(char jobz, int n, float* a, float* w, int* info) {
    SymmetricEig(ssyevd_, jobz, n, a, w, info);
  }
};

template <>
struct Lapack<double> {
  using Real = double;
  GPUC_LAPACK_COMMON(double, d)
  static void eig(char jobz, int n, double* a, double* w, int* info) {
    SymmetricEig(dsyevd_, jobz, n, a, w, info);
  }
};

template <typename C, typename R, typename F>
void HermitianEig(F f, char jobz, int n, C* a, R* w, int* info) {
  int lwork = -1, lrwork = -1, liwork = -1, iwork_size = 0;
  C work_size = 0;
  R rwork_size = 0;
  const int lda = std::max(1, n);
  f(&jobz, "L", &n, a, &lda, w, &work_size, &lwork, &rwork_size, &lrwork, &iwork_size, &liwork,
    info, 1, 1);
  lwork = static_cast<int>(work_size.real());
  lrwork = static_cast<int>(rwork_size);
  liwork = iwork_size;
  std::vector<C> work(static_cast<size_t>(std::max(1, lwork)));
  std::vector<R> rwork(static_cast<size_t>(std::max(1, lrwork)));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, liwork)));
  f(&jobz, "L", &n, a, &lda, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork,
    info, 1, 1);
}

template <>
struct Lapack<c32> {
  using Real = float;
  GPUC_LAPACK_COMMON(c32, c)
  static void eig(char jobz, int n, c32* a, float* w, int* info) {
    HermitianEig(cheevd_, jobz, n, a, w, info);
  }
};

template <>
struct Lapack<c64> {
  using Real = double;
  GPUC_LAPACK_COMMON(c64, z)
  static void eig(char jobz, int n, c64* a, double* w, int* info) {
    HermitianEig(zheevd_, jobz, n, a, w, info);
  }
};

#undef GPUC_LAPACK_COMMON

// Row-major [rows, cols] at `from` into column-major (its transpose's row-major) at `to`.
template <typename T>
void Transpose(const T* from, T* to, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) to[j * rows + i] = from[i * cols + j];
  }
}

template <typename T, typename F>
void Qr(F f, int m, int n, T* a, T* tau, int* info) {
  const int lda = std::max(1, m);
  int lwork = -1;
  T size = 0;
  f(&m, &n, a, &lda, tau, &size, &lwork, info);
  lwork = std::max(1, static_cast<int>(std::real(size)));
  std::vector<T> work(static_cast<size_t>(lwork));
  f(&m, &n, a, &lda, tau, work.data(), &lwork, info);
}

template <typename T, typename F>
void FormQ(F f, int m, int n, int k, T* a, const T* tau, int* info) {
  const int lda = std::max(1, m);
  int lwork = -1;
  T size = 0;
  f(&m, &n, &k, a, &lda, tau, &size, &lwork, info);
  lwork = std::max(1, static_cast<int>(std::real(size)));
  std::vector<T> work(static_cast<size_t>(lwork));
  f(&m, &n, &k, a, &lda, tau, work.data(), &lwork, info);
}

// ?gesdd of the column-major m x n matrix `a`, jobz 'N', 'S' or 'A'; workspace queried.
template <typename T, typename R, typename F>
void RealSvd(F f, char jobz, int m, int n, T* a, R* s, T* u, int ldu, T* vt, int ldvt, int* info) {
  const int lda = std::max(1, m), k = std::min(m, n);
  std::vector<int> iwork(static_cast<size_t>(std::max(1, 8 * k)));
  int lwork = -1;
  T size = 0;
  f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &size, &lwork, iwork.data(), info, 1);
  lwork = static_cast<int>(size);
  std::vector<T> work(static_cast<size_t>(std::max(1, lwork)));
  f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), info, 1);
}

template <typename T, typename R, typename F>
void ComplexSvd(F f, char jobz, int m, int n, T* a, R* s, T* u, int ldu, T* vt, int ldvt,
                int* info) {
  const int lda = std::max(1, m), k = std::min(m, n), big = std::max(m, n);
  // LAPACK's documented rwork sizes for gesdd.
  const int64_t lrwork = jobz == 'N' ? 7 * int64_t{k}
                                     : int64_t{k} * std::max(5 * int64_t{k} + 7,
                                                             2 * int64_t{big} + 2 * int64_t{k} + 1);
  std::vector<R> rwork(static_cast<size_t>(std::max<int64_t>(1, lrwork)));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, 8 * k)));
  int lwork = -1;
  T size = 0;
  f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &size, &lwork, rwork.data(), iwork.data(), info,
    1);
  lwork = static_cast<int>(size.real());
  std::vector<T> work(static_cast<size_t>(std::max(1, lwork)));
  f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, rwork.data(), iwork.data(),
    info, 1);
}

void Gesdd(char jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt,
           int* info) {
  RealSvd(sgesdd_, jobz, m, n, a, s, u, ldu, vt, ldvt, info);
}
void Gesdd(char jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt,
           int* info) {
  RealSvd(dgesdd_, jobz, m, n, a, s, u, ldu, vt, ldvt, info);
}
void Gesdd(char jobz, int m, int n, c32* a, float* s, c32* u, int ldu, c32* vt, int ldvt,
           int* info) {
  ComplexSvd(cgesdd_, jobz, m, n, a, s, u, ldu, vt, ldvt, info);
}
void Gesdd(char jobz, int m, int n, c64* a, double* s, c64* u, int ldu, c64* vt, int ldvt,
           int* info) {
  ComplexSvd(zgesdd_, jobz, m, n, a, s, u, ldu, vt, ldvt, info);
}

// ?geqrf then ?orgqr/?ungqr of the column-major m x n matrix in `a` (m x max(n, q_cols)):
// r is read between the two, q after. Workspace queried once per call.
void Geqrf(int m, int n, float* a, float* tau, int* info) { Qr(sgeqrf_, m, n, a, tau, info); }
void Geqrf(int m, int n, double* a, double* tau, int* info) { Qr(dgeqrf_, m, n, a, tau, info); }
void Geqrf(int m, int n, c32* a, c32* tau, int* info) { Qr(cgeqrf_, m, n, a, tau, info); }
void Geqrf(int m, int n, c64* a, c64* tau, int* info) { Qr(zgeqrf_, m, n, a, tau, info); }
void Orgqr(int m, int n, int k, float* a, const float* tau, int* info) {
  FormQ(sorgqr_, m, n, k, a, tau, info);
}
void Orgqr(int m, int n, int k, double* a, const double* tau, int* info) {
  FormQ(dorgqr_, m, n, k, a, tau, info);
}
void Orgqr(int m, int n, int k, c32* a, const c32* tau, int* info) {
  FormQ(cungqr_, m, n, k, a, tau, info);
}
void Orgqr(int m, int n, int k, c64* a, const c64* tau, int* info) {
  FormQ(zungqr_, m, n, k, a, tau, info);
}

template <typename T>
absl::StatusOr<ir::HostTensor> RunQr(const ir::Node& node, LinalgRoutine routine,
                                     const ir::HostTensor& a) {
  ir::HostTensor out = ir::HostTensor::Uninitialized(node.type());
  const ir::LinalgBatch batch = ir::BatchOf(a.type());
  const int n = static_cast<int>(batch.n);
  const int m = static_cast<int>(a.shape()[a.shape().rank() - 2]);
  const int k = std::min(m, n);
  const int q_cols = routine == LinalgRoutine::kQr ? k : m;
  const int64_t per_out = batch.count == 0 ? 0 : node.shape().num_elements() / batch.count;
  std::vector<T> work(static_cast<size_t>(std::max(1, m) * std::max({1, n, q_cols})));
  std::vector<T> tau(static_cast<size_t>(std::max(1, k)));
  for (int64_t index = 0; index < batch.count; ++index) {
    Transpose(a.data_as<T>() + index * int64_t{m} * n, work.data(), m, n);
    int info = 0;
    if (k > 0) Geqrf(m, n, work.data(), tau.data(), &info);
    if (info < 0) return absl::InternalError(absl::StrCat("geqrf: info ", info));
    T* q = out.data_as<T>() + index * per_out;
    T* r = q + int64_t{m} * q_cols;
    for (int i = 0; i < q_cols; ++i) {
      for (int c = 0; c < n; ++c) r[int64_t{i} * n + c] = c >= i ? work[int64_t{c} * m + i] : T(0);
    }
    if (m > 0 && q_cols > 0) {
      if (k > 0) {
        Orgqr(m, q_cols, k, work.data(), tau.data(), &info);
      } else {  // nothing to reflect: q is the identity
        std::fill(work.begin(), work.end(), T(0));
        for (int i = 0; i < std::min(m, q_cols); ++i) work[int64_t{i} * m + i] = T(1);
      }
    }
    if (info < 0) return absl::InternalError(absl::StrCat("orgqr: info ", info));
    for (int i = 0; i < m; ++i) {
      for (int c = 0; c < q_cols; ++c) q[int64_t{i} * q_cols + c] = work[int64_t{c} * m + i];
    }
  }
  return out;
}

// The singular value routines on the batch. Row-major a [m, n] is column-major a^T [n, m],
// and a^T = conj(v) s u^T: ?gesdd of that memory leaves u^T in its vt (read row-major: u) and
// conj(v) in its u (read row-major: v^H), so nothing is transposed.
template <typename T>
absl::StatusOr<ir::HostTensor> RunSvd(const ir::Node& node, LinalgRoutine routine,
                                      const ir::HostTensor& a) {
  using Real = typename Lapack<T>::Real;
  ir::HostTensor out = ir::HostTensor::Uninitialized(node.type());
  const ir::LinalgBatch batch = ir::BatchOf(a.type());
  const int n = static_cast<int>(batch.n);
  const int m = static_cast<int>(a.shape()[a.shape().rank() - 2]);
  const int k = std::min(m, n);
  const bool full = routine == LinalgRoutine::kSvdFull;
  const char jobz = routine == LinalgRoutine::kSvdvals ? 'N' : full ? 'A' : 'S';
  // In LAPACK's terms the matrix is [n, m]: its u is n x (n or k), its vt (m or k) x m.
  const int lu_rows = n, lu_cols = full ? n : k;
  const int lvt_rows = full ? m : k;
  const int64_t per_out = batch.count == 0 ? 0 : node.shape().num_elements() / batch.count;
  std::vector<T> work_a(static_cast<size_t>(int64_t{m} * n));
  std::vector<Real> s(static_cast<size_t>(std::max(1, k)));
  std::vector<T> u(static_cast<size_t>(std::max(1, lu_rows * lu_cols)));
  std::vector<T> vt(static_cast<size_t>(std::max(1, lvt_rows * m)));
  for (int64_t index = 0; index < batch.count; ++index) {
    const T* in = a.data_as<T>() + index * int64_t{m} * n;
    std::copy(in, in + int64_t{m} * n, work_a.begin());
    int info = 0;
    if (k > 0) {
      Gesdd(jobz, n, m, work_a.data(), s.data(), u.data(), std::max(1, lu_rows), vt.data(),
            std::max(1, lvt_rows), &info);
    }
    if (info > 0) {
      return ir::LinalgError(routine, a.type(), index, "did not converge (its singular values)");
    }
    if (info < 0) return absl::InternalError(absl::StrCat("gesdd: info ", info));
    if (routine == LinalgRoutine::kSvdvals) {
      std::copy(s.begin(), s.begin() + k, out.data_as<Real>() + index * per_out);
      continue;
    }
    T* o = out.data_as<T>() + index * per_out;
    const int64_t ucount = int64_t{m} * lvt_rows;  // u [m, lvt_rows] row-major = vt's memory
    o = std::copy(vt.begin(), vt.begin() + ucount, o);
    for (int i = 0; i < k; ++i) *o++ = T(s[i]);
    std::copy(u.begin(), u.begin() + int64_t{lu_cols} * n, o);  // vh [lu_cols, n] = u's memory
  }
  return out;
}

// ?geev on a column-major copy (NumPy's call): the eigenvalues, and with `vectors` the right
// eigenvectors, LAPACK's packed real pairs unpacked into complex columns as NumPy does.
template <typename T>
struct Geev;
template <typename R>
struct GeevReal {
  using C = std::complex<R>;
  template <typename F>
  static int Run(F f, bool vectors, int n, R* a, std::vector<C>& w, std::vector<C>& v) {
    const int lda = std::max(1, n), one = 1;
    std::vector<R> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
    std::vector<R> vr(vectors ? static_cast<size_t>(n) * n : 1);
    const char* jobvr = vectors ? "V" : "N";
    int lwork = -1, info = 0;
    R size = 0, dummy = 0;
    f("N", jobvr, &n, a, &lda, wr.data(), wi.data(), &dummy, &one, vr.data(), &lda, &size, &lwork,
      &info, 1, 1);
    lwork = std::max(1, static_cast<int>(size));
    std::vector<R> work(static_cast<size_t>(lwork));
    f("N", jobvr, &n, a, &lda, wr.data(), wi.data(), &dummy, &one, vr.data(), &lda, work.data(),
      &lwork, &info, 1, 1);
    if (info != 0) return info;
    for (int j = 0; j < n; ++j) w[j] = C(wr[j], wi[j]);
    if (!vectors) return 0;
    for (int j = 0; j < n; ++j) {
      const R* re = vr.data() + static_cast<size_t>(j) * n;
      if (wi[j] == R(0)) {
        for (int i = 0; i < n; ++i) v[static_cast<size_t>(j) * n + i] = C(re[i], 0);
      } else if (j + 1 < n) {  // a conjugate pair: columns j (real) and j + 1 (imaginary)
        const R* im = re + n;
        for (int i = 0; i < n; ++i) {
          v[static_cast<size_t>(j) * n + i] = C(re[i], im[i]);
          v[static_cast<size_t>(j + 1) * n + i] = C(re[i], -im[i]);
        }
        ++j;
      }
    }
    return 0;
  }
};
template <typename R>
struct GeevComplex {
  using C = std::complex<R>;
  template <typename F>
  static int Run(F f, bool vectors, int n, C* a, std::vector<C>& w, std::vector<C>& v) {
    const int lda = std::max(1, n), one = 1;
    std::vector<C> vr(vectors ? static_cast<size_t>(n) * n : 1);
    std::vector<R> rwork(static_cast<size_t>(std::max(1, 2 * n)));
    const char* jobvr = vectors ? "V" : "N";
    int lwork = -1, info = 0;
    C size = 0, dummy = 0;
    f("N", jobvr, &n, a, &lda, w.data(), &dummy, &one, vr.data(), &lda, &size, &lwork, rwork.data(),
      &info, 1, 1);
    lwork = std::max(1, static_cast<int>(size.real()));
    std::vector<C> work(static_cast<size_t>(lwork));
    f("N", jobvr, &n, a, &lda, w.data(), &dummy, &one, vr.data(), &lda, work.data(), &lwork,
      rwork.data(), &info, 1, 1);
    if (info == 0 && vectors) std::copy(vr.begin(), vr.end(), v.begin());
    return info;
  }
};
template <>
struct Geev<float> {
  static int Run(bool vectors, int n, float* a, std::vector<c32>& w, std::vector<c32>& v) {
    return GeevReal<float>::Run(sgeev_, vectors, n, a, w, v);
  }
};
template <>
struct Geev<double> {
  static int Run(bool vectors, int n, double* a, std::vector<c64>& w, std::vector<c64>& v) {
    return GeevReal<double>::Run(dgeev_, vectors, n, a, w, v);
  }
};
template <>
struct Geev<c32> {
  static int Run(bool vectors, int n, c32* a, std::vector<c32>& w, std::vector<c32>& v) {
    return GeevComplex<float>::Run(cgeev_, vectors, n, a, w, v);
  }
};
template <>
struct Geev<c64> {
  static int Run(bool vectors, int n, c64* a, std::vector<c64>& w, std::vector<c64>& v) {
    return GeevComplex<double>::Run(zgeev_, vectors, n, a, w, v);
  }
};

template <typename T>
absl::StatusOr<ir::HostTensor> RunEig(const ir::Node& node, LinalgRoutine routine,
                                      const ir::HostTensor& a) {
  using C = std::complex<typename Lapack<T>::Real>;
  ir::HostTensor out = ir::HostTensor::Uninitialized(node.type());
  const ir::LinalgBatch batch = ir::BatchOf(a.type());
  const int n = static_cast<int>(batch.n);
  const int64_t nn = int64_t{n} * n;
  const bool vectors = routine == LinalgRoutine::kEig;
  const int64_t per_out = batch.count == 0 ? 0 : node.shape().num_elements() / batch.count;
  std::vector<T> m(static_cast<size_t>(std::max<int64_t>(1, nn)));
  std::vector<C> w(static_cast<size_t>(std::max(1, n))), v(static_cast<size_t>(nn));
  for (int64_t index = 0; index < batch.count; ++index) {
    Transpose(a.data_as<T>() + index * nn, m.data(), n, n);
    if (n > 0) {
      const int info = Geev<T>::Run(vectors, n, m.data(), w, v);
      if (info > 0) {
        return ir::LinalgError(routine, a.type(), index, "did not converge (its eigenvalues)");
      }
      if (info < 0) return absl::InternalError(absl::StrCat("geev: info ", info));
    }
    C* o = out.data_as<C>() + index * per_out;
    if (!vectors) {
      std::copy(w.begin(), w.begin() + n, o);
      continue;
    }
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) o[i * (n + 1) + j] = v[static_cast<size_t>(j) * n + i];
      o[i * (n + 1) + n] = w[i];
    }
  }
  return out;
}

template <typename T>
absl::StatusOr<ir::HostTensor> Run(const ir::Node& node, LinalgRoutine routine,
                                   const ir::HostTensor& a, const ir::HostTensor* b) {
  using Real = typename Lapack<T>::Real;
  ir::HostTensor out = ir::HostTensor::Uninitialized(node.type());
  const ir::LinalgBatch batch = ir::BatchOf(a.type());
  const int n = static_cast<int>(batch.n);
  const int lda = std::max(1, n);
  const int64_t nn = int64_t{n} * n;
  const T* in = a.data_as<T>();
  std::vector<T> m(static_cast<size_t>(nn));
  std::vector<int> ipiv(static_cast<size_t>(std::max(1, n)));
  const int64_t per_out = batch.count == 0 ? 0 : node.shape().num_elements() / batch.count;
  for (int64_t index = 0; index < batch.count; ++index) {
    // Row-major memory read as column-major is a's transpose. det(a^T) = det(a) and
    // inv(a^T) read back row-major is inv(a), so those take the memory as it is (as NumPy
    // does); the others get a column-major copy.
    if (routine == LinalgRoutine::kSolve || routine == LinalgRoutine::kInv ||
        routine == LinalgRoutine::kDet || routine == LinalgRoutine::kSlogdet) {
      std::copy(in + index * nn, in + (index + 1) * nn, m.begin());
    } else {
      Transpose(in + index * nn, m.data(), n, n);
    }
    int info = 0;
    switch (routine) {
      case LinalgRoutine::kSolve:
      case LinalgRoutine::kInv: {
        const int k = routine == LinalgRoutine::kSolve
                          ? static_cast<int>(b->shape()[b->shape().rank() - 1])
                          : n;
        std::vector<T> rhs(static_cast<size_t>(int64_t{n} * k), T(0));
        if (routine == LinalgRoutine::kSolve) {
          Transpose(b->data_as<T>() + index * n * k, rhs.data(), n, k);
        } else {
          for (int i = 0; i < n; ++i) rhs[static_cast<size_t>(i) * n + i] = T(1);
        }
        if (n > 0 && k > 0)
          if (n > 0 && k > 0) {
            if (routine == LinalgRoutine::kSolve) {
              // m holds a^T column-major: factor it, then solve with its transpose, a.
              Lapack<T>::getrf(&n, m.data(), &lda, ipiv.data(), &info);
              if (info == 0) {
                Lapack<T>::getrs_transposed(&n, &k, m.data(), &lda, ipiv.data(), rhs.data(), &lda,
                                            &info);
              }
            } else {
              Lapack<T>::gesv(&n, &k, m.data(), &lda, ipiv.data(), rhs.data(), &lda, &info);
            }
          }
        if (info > 0) return ir::LinalgError(routine, a.type(), index, "is singular");
        if (routine == LinalgRoutine::kInv) {
          std::copy(rhs.begin(), rhs.end(), out.data_as<T>() + index * per_out);
        } else {
          Transpose(rhs.data(), out.data_as<T>() + index * per_out, k, n);
        }
        break;
      }
      case LinalgRoutine::kDet:
      case LinalgRoutine::kSlogdet: {
        if (n > 0) Lapack<T>::getrf(&n, m.data(), &lda, ipiv.data(), &info);
        if (info < 0) return absl::InternalError(absl::StrCat("getrf: info ", info));
        // getrf's zero pivots (info > 0) are a zero determinant, not an error (NumPy's det).
        T det = T(1), sign = T(1);
        Real log_abs = 0;
        for (int i = 0; i < n; ++i) {
          const T d = m[static_cast<size_t>(i) * n + i];
          if (ipiv[i] != i + 1) {
            det = -det;
            sign = -sign;
          }
          det *= d;
          const Real magnitude = std::abs(d);
          if (magnitude == Real(0)) {
            sign = T(0);
            log_abs = -std::numeric_limits<Real>::infinity();
          } else if (sign != T(0)) {
            sign *= d / magnitude;
            log_abs += std::log(magnitude);
          }
        }
        T* o = out.data_as<T>() + index * per_out;
        if (routine == LinalgRoutine::kDet) {
          o[0] = det;
        } else {
          o[0] = sign;
          o[1] = T(log_abs);
        }
        break;
      }
      case LinalgRoutine::kCholesky: {
        if (n > 0) Lapack<T>::potrf(&n, m.data(), &lda, &info);
        if (info > 0) return ir::LinalgError(routine, a.type(), index, "is not positive definite");
        T* o = out.data_as<T>() + index * per_out;
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j)
            o[i * n + j] = j <= i ? m[static_cast<size_t>(j) * n + i] : T(0);
        }
        break;
      }
      case LinalgRoutine::kEigh:
      case LinalgRoutine::kEigvalsh: {
        std::vector<Real> w(static_cast<size_t>(std::max(1, n)));
        const bool vectors = routine == LinalgRoutine::kEigh;
        if (n > 0) Lapack<T>::eig(vectors ? 'V' : 'N', n, m.data(), w.data(), &info);
        if (info > 0) {
          return ir::LinalgError(routine, a.type(), index, "did not converge (its eigenvalues)");
        }
        if (vectors) {
          T* o = out.data_as<T>() + index * per_out;
          for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) o[i * (n + 1) + j] = m[static_cast<size_t>(j) * n + i];
            o[i * (n + 1) + n] = T(w[i]);
          }
        } else {
          std::copy(w.begin(), w.begin() + n, out.data_as<Real>() + index * per_out);
        }
        break;
      }
      case LinalgRoutine::kSvd:
      case LinalgRoutine::kSvdFull:
      case LinalgRoutine::kSvdvals:
      case LinalgRoutine::kQr:
      case LinalgRoutine::kQrComplete:
      case LinalgRoutine::kEig:
      case LinalgRoutine::kEigvals:
        return absl::InternalError("linalg: these routines run in RunSvd, RunQr and RunEig");
    }
    if (info < 0) return absl::InternalError(absl::StrCat("LAPACK: info ", info));
  }
  return out;
}

}  // namespace

absl::StatusOr<ir::HostTensor> HostLinalg(const ir::Node& node, const ir::HostTensor& a,
                                          const ir::HostTensor* b) {
  absl::StatusOr<LinalgRoutine> routine = ir::ReadLinalgRoutine(node.attrs());
  if (!routine.ok()) return routine.status();
  const bool qr = *routine == LinalgRoutine::kQr || *routine == LinalgRoutine::kQrComplete;
  const bool rectangular = ir::TakesRectangular(*routine);
  auto run = [&]<typename T>() {
    const bool eig = *routine == LinalgRoutine::kEig || *routine == LinalgRoutine::kEigvals;
    return eig            ? RunEig<T>(node, *routine, a)
           : !rectangular ? Run<T>(node, *routine, a, b)
           : qr           ? RunQr<T>(node, *routine, a)
                          : RunSvd<T>(node, *routine, a);
  };
  absl::StatusOr<ir::HostTensor> result =
      a.dtype() == ir::DType::kFloat32      ? run.operator()<float>()
      : a.dtype() == ir::DType::kFloat64    ? run.operator()<double>()
      : a.dtype() == ir::DType::kComplex64  ? run.operator()<c32>()
      : a.dtype() == ir::DType::kComplex128 ? run.operator()<c64>()
                                            : ir::EvalLinalgNode(node, a, b);
  // A singular matrix is found far from the code that made it: point back there.
  if (!result.ok() && !node.location().empty()) {
    return absl::Status(
        result.status().code(),
        absl::StrCat(result.status().message(), " (recorded at ", node.location(), ")"));
  }
  return result;
}

}  // namespace gpuc::detail
