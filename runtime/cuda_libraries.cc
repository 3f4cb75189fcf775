//===- cuda_libraries.cc - cuBLAS, cuFFT, cuSPARSE, cuSOLVER at run time ===//
#include "runtime/cuda_libraries.h"

#include <dlfcn.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpuc::runtime {

namespace {
std::atomic<bool> g_vendor_libraries_enabled{true};
}  // namespace

void SetVendorLibrariesEnabled(bool enabled) { g_vendor_libraries_enabled.store(enabled); }

/// dlopen of the first soname that opens; RTLD_LOCAL keeps the library's symbols private.
absl::StatusOr<void*> OpenCudaLibrary(absl::string_view what,
                                      std::initializer_list<const char*> sonames) {
  if (!g_vendor_libraries_enabled.load(std::memory_order_relaxed)) {
    return absl::UnavailableError("GPUC_VENDOR_LIBRARIES=0 turns the vendor libraries off");
  }
  std::string errors;
  for (const char* soname : sonames) {
    if (void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) return library;
    absl::StrAppend(&errors, errors.empty() ? "" : "; ", dlerror());
  }
  return absl::UnavailableError(absl::StrCat("no ", what, ": ", errors));
}

namespace {

int PackedVersion(int major, int minor, int patch) { return major * 10000 + minor * 100 + patch; }

absl::StatusOr<Cublas> LoadCublas() {
  const absl::string_view what = "cuBLAS";
  absl::StatusOr<void*> library = OpenCudaLibrary(what, {"libcublas.so.13", "libcublas.so.12"});
  if (!library.ok()) return library.status();
  Cublas table;
  GPUC_CUBLAS_FUNCTIONS(GPUC_CUDA_LIBRARY_LOOKUP)
  GPUC_CUDA_LIBRARY_LOOKUP(cublasGemmStridedBatchedEx)
  int major = 0, minor = 0, patch = 0;
  table.cublasGetProperty(MAJOR_VERSION, &major);
  table.cublasGetProperty(MINOR_VERSION, &minor);
  table.cublasGetProperty(PATCH_LEVEL, &patch);
  table.version = PackedVersion(major, minor, patch);
  return table;
}

absl::StatusOr<CublasLt> LoadCublasLt() {
  const absl::string_view what = "cuBLASLt";
  absl::StatusOr<void*> library = OpenCudaLibrary(what, {"libcublasLt.so.13", "libcublasLt.so.12"});
  if (!library.ok()) return library.status();
  CublasLt table;
  GPUC_CUBLASLT_FUNCTIONS(GPUC_CUDA_LIBRARY_LOOKUP)
  table.version = table.cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return table;
}

absl::StatusOr<Cufft> LoadCufft() {
  const absl::string_view what = "cuFFT";
  absl::StatusOr<void*> library = OpenCudaLibrary(what, {"libcufft.so.12", "libcufft.so.11"});
  if (!library.ok()) return library.status();
  Cufft table;
  GPUC_CUFFT_FUNCTIONS(GPUC_CUDA_LIBRARY_LOOKUP)
  int packed = 0;  // cuFFT packs major * 1000 + minor * 100 + patch
  table.cufftGetVersion(&packed);
  table.version = PackedVersion(packed / 1000, packed % 1000 / 100, packed % 100);
  return table;
}

absl::StatusOr<Cusparse> LoadCusparse() {
  const absl::string_view what = "cuSPARSE";
  absl::StatusOr<void*> library = OpenCudaLibrary(what, {"libcusparse.so.12", "libcusparse.so.11"});
  if (!library.ok()) return library.status();
  Cusparse table;
  GPUC_CUSPARSE_FUNCTIONS(GPUC_CUDA_LIBRARY_LOOKUP)
  int major = 0, minor = 0, patch = 0;
  table.cusparseGetProperty(MAJOR_VERSION, &major);
  table.cusparseGetProperty(MINOR_VERSION, &minor);
  table.cusparseGetProperty(PATCH_LEVEL, &patch);
  table.version = PackedVersion(major, minor, patch);
  return table;
}

absl::StatusOr<Cusolver> LoadCusolver() {
  const absl::string_view what = "cuSOLVER";
  absl::StatusOr<void*> library = OpenCudaLibrary(what, {"libcusolver.so.12", "libcusolver.so.11"});
  if (!library.ok()) return library.status();
  Cusolver table;
  GPUC_CUSOLVER_FUNCTIONS(GPUC_CUDA_LIBRARY_LOOKUP)
  int major = 0, minor = 0, patch = 0;
  table.cusolverGetProperty(MAJOR_VERSION, &major);
  table.cusolverGetProperty(MINOR_VERSION, &minor);
  table.cusolverGetProperty(PATCH_LEVEL, &patch);
  table.version = PackedVersion(major, minor, patch);
  return table;
}

/// Loaded once; a failure is remembered too, so every query gives the same reason.
template <typename T>
absl::StatusOr<const T*> Remembered(const absl::StatusOr<T>* loaded) {
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

std::string Describe(absl::string_view name, const absl::Status& status, int version) {
  if (!status.ok()) return std::string(status.message());
  return absl::StrFormat("%s %d.%d.%d", name, version / 10000, version / 100 % 100, version % 100);
}

}  // namespace

absl::StatusOr<const Cublas*> GetCublas() {
  static const auto* loaded = new absl::StatusOr<Cublas>(LoadCublas());
  return Remembered(loaded);
}
absl::StatusOr<const CublasLt*> GetCublasLt() {
  static const auto* loaded = new absl::StatusOr<CublasLt>(LoadCublasLt());
  return Remembered(loaded);
}
absl::StatusOr<const Cufft*> GetCufft() {
  static const auto* loaded = new absl::StatusOr<Cufft>(LoadCufft());
  return Remembered(loaded);
}
absl::StatusOr<const Cusparse*> GetCusparse() {
  static const auto* loaded = new absl::StatusOr<Cusparse>(LoadCusparse());
  return Remembered(loaded);
}

absl::StatusOr<const Cusolver*> GetCusolver() {
  static const auto* loaded = new absl::StatusOr<Cusolver>(LoadCusolver());
  return Remembered(loaded);
}

absl::Status CusolverStatus(cusolverStatus_t status, absl::string_view call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(call, " failed: cusolverStatus ", static_cast<int>(status));
  if (status == CUSOLVER_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  if (status == CUSOLVER_STATUS_NOT_SUPPORTED) return absl::UnimplementedError(message);
  return absl::InternalError(message);
}

absl::Status CublasStatus(cublasStatus_t status, absl::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusOr<const Cublas*> cublas = GetCublas();
  const char* text = cublas.ok() ? (*cublas)->cublasGetStatusString(status) : "";
  std::string message = absl::StrCat(call, " failed: ", text, " (", static_cast<int>(status), ")");
  if (status == CUBLAS_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return absl::UnimplementedError(message);
  return absl::InternalError(message);
}

absl::Status CufftStatus(cufftResult status, absl::string_view call) {
  if (status == CUFFT_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(call, " failed: cufftResult ", static_cast<int>(status),
                                     status == CUFFT_ALLOC_FAILED   ? " (allocation failed)"
                                     : status == CUFFT_INVALID_SIZE ? " (invalid size)"
                                     : status == CUFFT_EXEC_FAILED  ? " (execution failed)"
                                                                    : "");
  if (status == CUFFT_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

absl::Status CusparseStatus(cusparseStatus_t status, absl::string_view call) {
  if (status == CUSPARSE_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusOr<const Cusparse*> cusparse = GetCusparse();
  const char* text = cusparse.ok() ? (*cusparse)->cusparseGetErrorString(status) : "";
  std::string message = absl::StrCat(call, " failed: ", text, " (", static_cast<int>(status), ")");
  if (status == CUSPARSE_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  if (status == CUSPARSE_STATUS_NOT_SUPPORTED) return absl::UnimplementedError(message);
  return absl::InternalError(message);
}

std::string DescribeCudaLibraries() {
  absl::StatusOr<const Cublas*> cublas = GetCublas();
  absl::StatusOr<const CublasLt*> lt = GetCublasLt();
  absl::StatusOr<const Cufft*> cufft = GetCufft();
  absl::StatusOr<const Cusparse*> cusparse = GetCusparse();
  absl::StatusOr<const Cusolver*> cusolver = GetCusolver();
  return absl::StrCat(
      Describe("cuBLAS", cublas.status(), cublas.ok() ? (*cublas)->version : 0), ", ",
      Describe("cuBLASLt", lt.status(), lt.ok() ? static_cast<int>((*lt)->version) : 0), ", ",
      Describe("cuFFT", cufft.status(), cufft.ok() ? (*cufft)->version : 0), ", ",
      Describe("cuSPARSE", cusparse.status(), cusparse.ok() ? (*cusparse)->version : 0), ", ",
      Describe("cuSOLVER", cusolver.status(), cusolver.ok() ? (*cusolver)->version : 0));
}

}  // namespace gpuc::runtime
