//===- gpu_solver.cc - linalg nodes as cuSOLVER calls ----------------------===//
#include "lib/backend/cuda/gpu_solver.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/backend/cuda/gpu_source_module.h"
#include "lib/backend/cuda/gpu_sparse.h"
#include "lib/exec/current_options.h"
#include "lib/exec/target.h"
#include "runtime/kernel_graph.h"

namespace gpuc::detail {
namespace {

using ir::DType;
using ir::LinalgRoutine;

// After a prelude defining R (the real type), GPUC_COMPLEX and T (R, or a pair of R). Each
// kernel walks its elements grid-stride; every parameter is 8 bytes.
constexpr char kKernels[] = R"cuda(
typedef long long i64;
#if GPUC_COMPLEX
struct T { R re, im; };
__device__ __forceinline__ T Make(R re) { T t; t.re = re; t.im = 0; return t; }
__device__ __forceinline__ T Mul(T a, T b) {
  T t; t.re = a.re * b.re - a.im * b.im; t.im = a.re * b.im + a.im * b.re; return t;
}
__device__ __forceinline__ R Abs(T a) { return hypot(a.re, a.im); }
__device__ __forceinline__ T Scale(T a, R s) { T t; t.re = a.re * s; t.im = a.im * s; return t; }
__device__ __forceinline__ T Negate(T a) { T t; t.re = -a.re; t.im = -a.im; return t; }
__device__ __forceinline__ bool IsZero(T a) { return a.re == 0 && a.im == 0; }
#else
typedef R T;
__device__ __forceinline__ T Make(R re) { return re; }
__device__ __forceinline__ T Mul(T a, T b) { return a * b; }
__device__ __forceinline__ R Abs(T a) { return fabs(a); }
__device__ __forceinline__ T Scale(T a, R s) { return a * s; }
__device__ __forceinline__ T Negate(T a) { return -a; }
__device__ __forceinline__ bool IsZero(T a) { return a == 0; }
#endif

#define GRID_STRIDE(i, n)                                            \
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += (i64)gridDim.x * blockDim.x)

// Each rows x cols matrix of the batch, row-major, into out as cols x rows.
extern "C" __global__ void gpuc_linalg_transpose(const T* in, T* out, i64 batch, i64 rows,
                                                 i64 cols) {
  const i64 per = rows * cols;
  GRID_STRIDE(e, batch * per) {
    const i64 b = e / per, at = e - b * per, r = at / cols, c = at - r * cols;
    out[b * per + c * rows + r] = in[e];
  }
}

extern "C" __global__ void gpuc_linalg_identity(T* out, i64 batch, i64 n) {
  GRID_STRIDE(e, batch * n * n) {
    const i64 at = e % (n * n);
    out[e] = Make(at / n == at % n ? 1 : 0);
  }
}

// The lower factor from a column-major potrf result: out[i][j] = m[j][i] below the diagonal.
extern "C" __global__ void gpuc_linalg_lower(const T* m, T* out, i64 batch, i64 n) {
  GRID_STRIDE(e, batch * n * n) {
    const i64 b = e / (n * n), at = e - b * n * n, i = at / n, j = at - i * n;
    out[e] = j <= i ? m[b * n * n + j * n + i] : Make(0);
  }
}

// eigh's layout: the column-major eigenvectors as columns 0..n-1, the eigenvalues in column n.
extern "C" __global__ void gpuc_linalg_eigh_out(const T* m, const R* w, T* out, i64 batch, i64 n) {
  GRID_STRIDE(e, batch * n * (n + 1)) {
    const i64 per = n * (n + 1), b = e / per, at = e - b * per;
    const i64 i = at / (n + 1), j = at - i * (n + 1);
    out[e] = j < n ? m[b * n * n + j * n + i] : Make(w[b * n + i]);
  }
}

// A thread per matrix: det (slog 0) or [sign, log|det|] (slog 1) from getrf's factor and
// 1-based pivots, in the host's order (host_linalg.cc).
extern "C" __global__ void gpuc_linalg_det(const T* lu, const i64* pivots, T* out, i64 batch,
                                           i64 n, i64 slog) {
  GRID_STRIDE(b, batch) {
    T det = Make(1), sign = Make(1);
    R log_abs = 0;
    bool zero = false;
    for (i64 i = 0; i < n; ++i) {
      const T d = lu[b * n * n + i * n + i];
      if (pivots[b * n + i] != i + 1) {
        det = Negate(det);
        sign = Negate(sign);
      }
      det = Mul(det, d);
      const R magnitude = Abs(d);
      if (magnitude == 0) {
        zero = true;
        sign = Make(0);
        log_abs = -(R)(1.0 / 0.0);
      } else if (!zero) {
        sign = Mul(sign, Scale(d, 1 / magnitude));
        log_abs += log(magnitude);
      }
    }
    if (slog) {
      out[2 * b] = sign;
      out[2 * b + 1] = Make(log_abs);
    } else {
      out[b] = det;
    }
  }
}
)cuda";

cudaDataType RealTypeOf(cudaDataType type) {
  return type == CUDA_R_32F || type == CUDA_C_32F ? CUDA_R_32F : CUDA_R_64F;
}

bool HasGpuRoutine(LinalgRoutine routine) {
  switch (routine) {
    case LinalgRoutine::kSolve:
    case LinalgRoutine::kInv:
    case LinalgRoutine::kDet:
    case LinalgRoutine::kSlogdet:
    case LinalgRoutine::kCholesky:
    case LinalgRoutine::kEigh:
    case LinalgRoutine::kEigvalsh:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string GpuSolverKernelSource(ir::DType dtype) {
  const bool complex = ir::IsComplex(dtype);
  const bool wide = dtype == DType::kFloat64 || dtype == DType::kComplex128;
  return absl::StrCat("// gpuc-linalg-v1 ", ir::DTypeName(dtype), "\ntypedef ",
                      wide ? "double" : "float", " R;\n#define GPUC_COMPLEX ", complex ? 1 : 0,
                      "\n", kKernels);
}

absl::StatusOr<LinalgShape> PlanLinalg(const ir::Node& linalg) {
  absl::StatusOr<LinalgRoutine> routine = ir::ReadLinalgRoutine(linalg.attrs());
  if (!routine.ok()) return routine.status();
  if (!HasGpuRoutine(*routine)) {
    return absl::UnimplementedError(absl::StrCat("linalg.", ir::LinalgRoutineName(*routine),
                                                 " has no cuSOLVER routine in gpuc yet"));
  }
  const ir::TensorType& a = linalg.operand(0).type();
  if (!InexactCudaType(a.dtype)) {
    return absl::UnimplementedError(
        absl::StrCat("cuSOLVER has no ", ir::DTypeName(a.dtype), " routines"));
  }
  const ir::LinalgBatch batch = ir::BatchOf(a);
  LinalgShape shape{*routine, batch.count, batch.n, 0};
  if (*routine == LinalgRoutine::kSolve) {
    const ir::Shape& b = linalg.operand(1).shape();
    shape.k = b[b.rank() - 1];
  }
  return shape;
}

std::string DescribeLinalg(const ir::Node& linalg, const LinalgShape& s) {
  const char* calls = "getrf+getrs";
  switch (s.routine) {
    case LinalgRoutine::kDet:
    case LinalgRoutine::kSlogdet:
      calls = "getrf";
      break;
    case LinalgRoutine::kCholesky:
      calls = "potrf";
      break;
    case LinalgRoutine::kEigh:
    case LinalgRoutine::kEigvalsh:
      calls = "syevd";
      break;
    default:
      break;
  }
  return absl::StrCat("cusolver ", ir::LinalgRoutineName(s.routine), " ", calls, " n=", s.n,
                      s.routine == LinalgRoutine::kSolve ? absl::StrCat(" k=", s.k) : "",
                      " batch=", s.batch, " ", ir::DTypeName(linalg.operand(0).dtype()));
}

absl::StatusOr<std::unique_ptr<GpuSolver>> GpuSolver::Create(runtime::CudaDevice& device) {
  absl::StatusOr<const runtime::Cusolver*> cusolver = runtime::GetCusolver();
  if (!cusolver.ok()) return cusolver.status();
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  cusolverDnHandle_t handle = nullptr;
  if (absl::Status s =
          runtime::CusolverStatus((*cusolver)->cusolverDnCreate(&handle), "cusolverDnCreate");
      !s.ok()) {
    return s;
  }
  cusolverDnParams_t params = nullptr;
  if (absl::Status s = runtime::CusolverStatus((*cusolver)->cusolverDnCreateParams(&params),
                                               "cusolverDnCreateParams");
      !s.ok()) {
    (*cusolver)->cusolverDnDestroy(handle);
    return s;
  }
  return std::unique_ptr<GpuSolver>(new GpuSolver(&device, *cusolver, handle, params));
}

GpuSolver::~GpuSolver() {
  if (device_->MakeCurrent().ok()) {
    cusolver_->cusolverDnDestroyParams(params_);
    cusolver_->cusolverDnDestroy(handle_);
  }
}

absl::StatusOr<const GpuSolver::Kernels*> GpuSolver::KernelsFor(ir::DType dtype) {
  if (auto it = kernels_.find(dtype); it != kernels_.end()) return it->second.get();
  exec::Options options = exec::CurrentOptions();
  options.gpu_arch.clear();  // the kernels load on this device
  const std::string key = absl::StrCat("gpuc-linalg-v1 ", ir::DTypeName(dtype));
  absl::StatusOr<std::unique_ptr<runtime::CudaModule>> module =
      LoadSourceModule(*device_, GpuSolverKernelSource(dtype), "gpuc_linalg.cu", key,
                       exec::GpuArchitecture(options));
  if (!module.ok()) return module.status();
  auto kernels = std::make_unique<Kernels>();
  if (absl::Status s = FindKernels(**module, {{"gpuc_linalg_transpose", &kernels->transpose},
                                              {"gpuc_linalg_identity", &kernels->identity},
                                              {"gpuc_linalg_lower", &kernels->lower},
                                              {"gpuc_linalg_eigh_out", &kernels->eigh_out},
                                              {"gpuc_linalg_det", &kernels->det}});
      !s.ok()) {
    return s;
  }
  kernels->module = *std::move(module);
  return kernels_.try_emplace(dtype, std::move(kernels)).first->second.get();
}

absl::Status GpuSolver::Run(runtime::CudaStream& stream, const ir::Node& linalg,
                            const LinalgShape& shape, const DeviceTensor& a, const DeviceTensor* b,
                            const DeviceTensor& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  const DType dtype = a.type.dtype;
  const cudaDataType type = *InexactCudaType(dtype);
  const int64_t batch = shape.batch, n = shape.n, k = shape.k;
  const int64_t element = ir::DTypeSize(dtype), nn = n * n;
  if (batch == 0) return absl::OkStatus();
  absl::StatusOr<const Kernels*> kernels = KernelsFor(dtype);
  if (!kernels.ok()) return kernels.status();
  if (absl::Status s = runtime::CusolverStatus(
          cusolver_->cusolverDnSetStream(handle_, stream.handle()), "cusolverDnSetStream");
      !s.ok()) {
    return s;
  }
  std::vector<std::shared_ptr<DeviceStorage>> scratch;  // back to the pool in stream order
  auto allocate = [&](int64_t bytes) -> absl::StatusOr<uint64_t> {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        DeviceStorage::Allocate(*device_, stream, static_cast<size_t>(std::max<int64_t>(bytes, 1)));
    if (!s.ok()) return s.status();
    scratch.push_back(*s);
    return (*s)->address();
  };
  const int64_t sms = std::max(1, device_->properties().multiprocessors);
  auto launch = [&](const runtime::CudaKernel& kernel, int64_t elements,
                    std::vector<uint64_t> words) {
    const unsigned blocks =
        static_cast<unsigned>(std::clamp<int64_t>((elements + 255) / 256, 1, sms * 32));
    return runtime::LaunchNow(stream, {&kernel, {blocks}, {256}, std::move(words)});
  };
  auto word = [](int64_t v) { return static_cast<uint64_t>(v); };
  const LinalgRoutine routine = shape.routine;
  // The matrices the routine factors in place: a's memory (a^T column-major) or a
  // column-major copy.
  absl::StatusOr<uint64_t> m = allocate(batch * nn * element);
  if (!m.ok()) return m.status();
  const bool transposed_copy = routine == LinalgRoutine::kCholesky ||
                               routine == LinalgRoutine::kEigh ||
                               routine == LinalgRoutine::kEigvalsh;
  if (absl::Status s =
          transposed_copy
              ? launch((*kernels)->transpose, batch * nn,
                       {a.address, *m, word(batch), word(n), word(n)})
              : stream.CopyDeviceToDevice(*m, a.address, static_cast<size_t>(batch * nn * element));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<uint64_t> info = allocate(batch * 4);
  if (!info.ok()) return info.status();
  const char* failed = "";  // what a positive info means (null: not an error)
  std::vector<char> host_work;
  auto workspace = [&](size_t device_bytes, size_t host_bytes) -> absl::StatusOr<uint64_t> {
    host_work.resize(std::max<size_t>(host_bytes, 1));
    return allocate(static_cast<int64_t>(device_bytes));
  };
  auto at = [&](uint64_t base, int64_t index, int64_t bytes) {
    return reinterpret_cast<void*>(base + static_cast<uint64_t>(index * bytes));
  };
  auto info_of = [&](int64_t index) { return reinterpret_cast<int*>(*info + index * 4); };
  if (n > 0) {
    switch (routine) {
      case LinalgRoutine::kSolve:
      case LinalgRoutine::kInv:
      case LinalgRoutine::kDet:
      case LinalgRoutine::kSlogdet: {
        absl::StatusOr<uint64_t> pivots = allocate(batch * n * 8);
        if (!pivots.ok()) return pivots.status();
        size_t device_bytes = 0, host_bytes = 0;
        if (absl::Status s = runtime::CusolverStatus(
                cusolver_->cusolverDnXgetrf_bufferSize(handle_, params_, n, n, type, at(*m, 0, 0),
                                                       n, type, &device_bytes, &host_bytes),
                "cusolverDnXgetrf_bufferSize");
            !s.ok()) {
          return s;
        }
        absl::StatusOr<uint64_t> work = workspace(device_bytes, host_bytes);
        if (!work.ok()) return work.status();
        for (int64_t i = 0; i < batch; ++i) {
          if (absl::Status s = runtime::CusolverStatus(
                  cusolver_->cusolverDnXgetrf(handle_, params_, n, n, type, at(*m, i, nn * element),
                                              n, reinterpret_cast<int64_t*>(*pivots + i * n * 8),
                                              type, reinterpret_cast<void*>(*work), device_bytes,
                                              host_work.data(), host_bytes, info_of(i)),
                  "cusolverDnXgetrf");
              !s.ok()) {
            return s;
          }
        }
        if (routine == LinalgRoutine::kDet || routine == LinalgRoutine::kSlogdet) {
          // A zero pivot is a zero determinant, not an error (NumPy's det).
          failed = nullptr;
          if (absl::Status s = launch((*kernels)->det, batch,
                                      {*m, *pivots, out.address, word(batch), word(n),
                                       word(routine == LinalgRoutine::kSlogdet ? 1 : 0)});
              !s.ok()) {
            return s;
          }
          break;
        }
        failed = "is singular";
        // inv: a^T X = I, X column-major being inv(a) row-major, straight into out. solve: the
        // right-hand sides column-major, a x = b through the factor's transpose, back to rows.
        const int64_t columns = routine == LinalgRoutine::kInv ? n : k;
        uint64_t rhs = out.address;
        if (routine == LinalgRoutine::kInv) {
          if (absl::Status s =
                  launch((*kernels)->identity, batch * nn, {out.address, word(batch), word(n)});
              !s.ok()) {
            return s;
          }
        } else {
          absl::StatusOr<uint64_t> r = allocate(batch * n * k * element);
          if (!r.ok()) return r.status();
          rhs = *r;
          if (absl::Status s = launch((*kernels)->transpose, batch * n * k,
                                      {b->address, rhs, word(batch), word(n), word(k)});
              !s.ok()) {
            return s;
          }
        }
        absl::StatusOr<uint64_t> solve_info = allocate(4);
        if (!solve_info.ok()) return solve_info.status();
        for (int64_t i = 0; i < batch && columns > 0; ++i) {
          if (absl::Status s = runtime::CusolverStatus(
                  cusolver_->cusolverDnXgetrs(
                      handle_, params_, routine == LinalgRoutine::kInv ? CUBLAS_OP_N : CUBLAS_OP_T,
                      n, columns, type, at(*m, i, nn * element), n,
                      reinterpret_cast<const int64_t*>(*pivots + i * n * 8), type,
                      at(rhs, i, n * columns * element), n, reinterpret_cast<int*>(*solve_info)),
                  "cusolverDnXgetrs");
              !s.ok()) {
            return s;
          }
        }
        if (routine == LinalgRoutine::kSolve) {
          if (absl::Status s = launch((*kernels)->transpose, batch * n * k,
                                      {rhs, out.address, word(batch), word(k), word(n)});
              !s.ok()) {
            return s;
          }
        }
        break;
      }
      case LinalgRoutine::kCholesky: {
        failed = "is not positive definite";
        size_t device_bytes = 0, host_bytes = 0;
        if (absl::Status s =
                runtime::CusolverStatus(cusolver_->cusolverDnXpotrf_bufferSize(
                                            handle_, params_, CUBLAS_FILL_MODE_LOWER, n, type,
                                            at(*m, 0, 0), n, type, &device_bytes, &host_bytes),
                                        "cusolverDnXpotrf_bufferSize");
            !s.ok()) {
          return s;
        }
        absl::StatusOr<uint64_t> work = workspace(device_bytes, host_bytes);
        if (!work.ok()) return work.status();
        for (int64_t i = 0; i < batch; ++i) {
          if (absl::Status s = runtime::CusolverStatus(
                  cusolver_->cusolverDnXpotrf(handle_, params_, CUBLAS_FILL_MODE_LOWER, n, type,
                                              at(*m, i, nn * element), n, type,
                                              reinterpret_cast<void*>(*work), device_bytes,
                                              host_work.data(), host_bytes, info_of(i)),
                  "cusolverDnXpotrf");
              !s.ok()) {
            return s;
          }
        }
        if (absl::Status s =
                launch((*kernels)->lower, batch * nn, {*m, out.address, word(batch), word(n)});
            !s.ok()) {
          return s;
        }
        break;
      }
      case LinalgRoutine::kEigh:
      case LinalgRoutine::kEigvalsh: {
        failed = "did not converge (its eigenvalues)";
        const bool vectors = routine == LinalgRoutine::kEigh;
        const cudaDataType real = RealTypeOf(type);
        const int64_t real_bytes = real == CUDA_R_32F ? 4 : 8;
        uint64_t w = out.address;  // eigvalsh's result is the eigenvalues
        if (vectors) {
          absl::StatusOr<uint64_t> values = allocate(batch * n * real_bytes);
          if (!values.ok()) return values.status();
          w = *values;
        }
        const cusolverEigMode_t mode =
            vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
        size_t device_bytes = 0, host_bytes = 0;
        if (absl::Status s = runtime::CusolverStatus(
                cusolver_->cusolverDnXsyevd_bufferSize(
                    handle_, params_, mode, CUBLAS_FILL_MODE_LOWER, n, type, at(*m, 0, 0), n, real,
                    reinterpret_cast<void*>(w), type, &device_bytes, &host_bytes),
                "cusolverDnXsyevd_bufferSize");
            !s.ok()) {
          return s;
        }
        absl::StatusOr<uint64_t> work = workspace(device_bytes, host_bytes);
        if (!work.ok()) return work.status();
        for (int64_t i = 0; i < batch; ++i) {
          if (absl::Status s = runtime::CusolverStatus(
                  cusolver_->cusolverDnXsyevd(handle_, params_, mode, CUBLAS_FILL_MODE_LOWER, n,
                                              type, at(*m, i, nn * element), n, real,
                                              at(w, i, n * real_bytes), type,
                                              reinterpret_cast<void*>(*work), device_bytes,
                                              host_work.data(), host_bytes, info_of(i)),
                  "cusolverDnXsyevd");
              !s.ok()) {
            return s;
          }
        }
        if (vectors) {
          if (absl::Status s = launch((*kernels)->eigh_out, batch * n * (n + 1),
                                      {*m, w, out.address, word(batch), word(n)});
              !s.ok()) {
            return s;
          }
        }
        break;
      }
      default:
        return absl::InternalError(
            absl::StrCat("linalg.", ir::LinalgRoutineName(routine), ": no cuSOLVER routine"));
    }
  }
  if (n == 0) {
    // Empty matrices: nothing to factor; the determinant of a 0 x 0 matrix is 1.
    if (routine != LinalgRoutine::kDet && routine != LinalgRoutine::kSlogdet) {
      return absl::OkStatus();
    }
    return launch((*kernels)->det, batch,
                  {*m, 0, out.address, word(batch), word(0),
                   word(routine == LinalgRoutine::kSlogdet ? 1 : 0)});
  }
  // The factorizations' verdicts: one read back per call, so an error names its matrix.
  std::vector<int> infos(static_cast<size_t>(batch));
  if (absl::Status s = stream.CopyDeviceToHost(infos.data(), *info, infos.size() * sizeof(int));
      !s.ok()) {
    return s;
  }
  for (int64_t i = 0; i < batch; ++i) {
    if (infos[i] > 0 && failed != nullptr) return ir::LinalgError(routine, a.type, i, failed);
    if (infos[i] < 0) {
      return absl::InternalError(absl::StrCat("linalg.", ir::LinalgRoutineName(routine),
                                              ": cuSOLVER rejected argument ", -infos[i]));
    }
  }
  return absl::OkStatus();
}

}  // namespace gpuc::detail
