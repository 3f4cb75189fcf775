//===- cuda_libraries.h - cuBLAS, cuFFT and cuSPARSE, resolved at run time -===//
//
// The vendor libraries are opened as the driver is (ARCHITECTURE.md decision 7): dlopen of
// the versioned soname and one table of entry points per library, loaded once per process.
// The same binary starts on a machine without them, and library ops run on the host there.
// Only the CUDA headers are needed to build. Each table covers exactly the calls gpuc makes.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_CUDA_LIBRARIES_H_
#define GPUC_RUNTIME_CUDA_LIBRARIES_H_

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cufft.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuc::runtime {

/// cublas_v2.h maps the names to their current versions (cublasCreate -> cublasCreate_v2)
/// and the lookup uses the mapped name. GemmStridedBatchedEx has a C++ overload, so its type
/// is spelled out.
#define GPUC_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate)                \
  X(cublasDestroy)               \
  X(cublasGetProperty)           \
  X(cublasGetStatusString)       \
  X(cublasSetStream)             \
  X(cublasSetWorkspace)          \
  X(cublasSetMathMode)           \
  X(cublasSscal)                 \
  X(cublasDscal)                 \
  X(cublasCsscal)                \
  X(cublasZdscal)

using CublasGemmStridedBatchedEx =
    cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k,
                       const void* alpha, const void* a, cudaDataType a_type, int lda,
                       long long stride_a, const void* b, cudaDataType b_type, int ldb,
                       long long stride_b, const void* beta, void* c, cudaDataType c_type, int ldc,
                       long long stride_c, int batch, cublasComputeType_t, cublasGemmAlgo_t);

struct Cublas {
#define GPUC_LIBRARY_MEMBER(name) decltype(&::name) name = nullptr;
  GPUC_CUBLAS_FUNCTIONS(GPUC_LIBRARY_MEMBER)
  CublasGemmStridedBatchedEx cublasGemmStridedBatchedEx = nullptr;
  int version = 0;  // e.g. 130000
};

/// cuBLASLt, for GEMMs with an epilogue (bias, ReLU); optional beside cuBLAS.
#define GPUC_CUBLASLT_FUNCTIONS(X)        \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtGetVersion)                   \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmul)

struct CublasLt {
  GPUC_CUBLASLT_FUNCTIONS(GPUC_LIBRARY_MEMBER)
  size_t version = 0;
};

#define GPUC_CUFFT_FUNCTIONS(X) \
  X(cufftCreate)                \
  X(cufftDestroy)               \
  X(cufftGetVersion)            \
  X(cufftSetStream)             \
  X(cufftSetAutoAllocation)     \
  X(cufftSetWorkArea)           \
  X(cufftMakePlanMany64)        \
  X(cufftExecC2C)               \
  X(cufftExecZ2Z)               \
  X(cufftExecR2C)               \
  X(cufftExecD2Z)               \
  X(cufftExecC2R)               \
  X(cufftExecZ2D)

struct Cufft {
  GPUC_CUFFT_FUNCTIONS(GPUC_LIBRARY_MEMBER)
  int version = 0;
};

#define GPUC_CUSPARSE_FUNCTIONS(X) \
  X(cusparseCreate)                \
  X(cusparseDestroy)               \
  X(cusparseGetProperty)           \
  X(cusparseGetErrorString)        \
  X(cusparseSetStream)             \
  X(cusparseCreateCsr)             \
  X(cusparseDestroySpMat)          \
  X(cusparseCreateDnVec)           \
  X(cusparseDestroyDnVec)          \
  X(cusparseCreateDnMat)           \
  X(cusparseDestroyDnMat)          \
  X(cusparseSpMV_bufferSize)       \
  X(cusparseSpMV)                  \
  X(cusparseSpMM_bufferSize)       \
  X(cusparseSpMM)

struct Cusparse {
  GPUC_CUSPARSE_FUNCTIONS(GPUC_LIBRARY_MEMBER)
  int version = 0;
};

/// cuSOLVER's dense routines, through the 64-bit (X) interface.
#define GPUC_CUSOLVER_FUNCTIONS(X) \
  X(cusolverGetProperty)           \
  X(cusolverDnCreate)              \
  X(cusolverDnDestroy)             \
  X(cusolverDnSetStream)           \
  X(cusolverDnCreateParams)        \
  X(cusolverDnDestroyParams)       \
  X(cusolverDnXgetrf_bufferSize)   \
  X(cusolverDnXgetrf)              \
  X(cusolverDnXgetrs)              \
  X(cusolverDnXpotrf_bufferSize)   \
  X(cusolverDnXpotrf)              \
  X(cusolverDnXsyevd_bufferSize)   \
  X(cusolverDnXsyevd)

struct Cusolver {
  GPUC_CUSOLVER_FUNCTIONS(GPUC_LIBRARY_MEMBER)
#undef GPUC_LIBRARY_MEMBER
  int version = 0;
};

/// dlopen of the first of `sonames` that opens (RTLD_LOCAL), or Unavailable naming `what` and
/// every dlerror; after SetVendorLibrariesEnabled(false) every vendor library is unavailable.
/// The execution options' vendor_libraries (GPUC_VENDOR_LIBRARIES), applied before the first
/// library loads (a loaded library stays loaded).
void SetVendorLibrariesEnabled(bool enabled);

absl::StatusOr<void*> OpenCudaLibrary(absl::string_view what,
                                      std::initializer_list<const char*> sonames);

/// Fills `table.name` from the dlopen handle `*library`, or returns Unavailable from the
/// enclosing loader naming the library (`what`) and the missing entry point.
#define GPUC_CUDA_LIBRARY_STRINGIFY_EXPANDED(x) GPUC_CUDA_LIBRARY_STRINGIFY(x)
#define GPUC_CUDA_LIBRARY_STRINGIFY(x) #x
#define GPUC_CUDA_LIBRARY_LOOKUP(name)                                                            \
  table.name = reinterpret_cast<decltype(table.name)>(                                            \
      dlsym(*library, GPUC_CUDA_LIBRARY_STRINGIFY_EXPANDED(name)));                               \
  if (table.name == nullptr) {                                                                    \
    return absl::UnavailableError(                                                                \
        absl::StrCat(what, " lacks ", GPUC_CUDA_LIBRARY_STRINGIFY_EXPANDED(name), ": too old?")); \
  }

/// The loaded library, or Unavailable with the one-line reason (not installed, an entry point
/// missing, GPUC_VENDOR_LIBRARIES=0). Each is loaded once per process; thread-safe.
absl::StatusOr<const Cublas*> GetCublas();
absl::StatusOr<const CublasLt*> GetCublasLt();
absl::StatusOr<const Cufft*> GetCufft();
absl::StatusOr<const Cusparse*> GetCusparse();
absl::StatusOr<const Cusolver*> GetCusolver();

/// Ok on success; otherwise an error naming the call and the library's status code.
absl::Status CublasStatus(cublasStatus_t status, absl::string_view call);
absl::Status CufftStatus(cufftResult status, absl::string_view call);
absl::Status CusparseStatus(cusparseStatus_t status, absl::string_view call);
absl::Status CusolverStatus(cusolverStatus_t status, absl::string_view call);

/// "cuBLAS 13.0.0, cuBLASLt 13.0.0, cuFFT 12.0.0, cuSPARSE 12.6.0, cuSOLVER 12.0.3" or each
/// one's reason,
/// for `gpuc --info`.
std::string DescribeCudaLibraries();

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_CUDA_LIBRARIES_H_
