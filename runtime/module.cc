//===- module.cc - Loading PTX and cubin, looking up and launching kernels ===//
#include "runtime/module.h"

#include "absl/strings/str_cat.h"

namespace gpuc::runtime {
namespace {

/// Room for the driver's JIT logs: ptxas messages for one module fit comfortably.
constexpr size_t kJitLogBytes = 16 * 1024;

}  // namespace

absl::StatusOr<std::unique_ptr<CudaModule>> CudaModule::Load(CudaDevice& device, const void* image,
                                                             absl::string_view what) {
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  std::string error_log(kJitLogBytes, '\0'), info_log(kJitLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(kJitLogBytes), info_log.data(),
                    reinterpret_cast<void*>(kJitLogBytes)};
  CUmodule module = nullptr;
  CUresult r = device.driver().cuModuleLoadDataEx(&module, image, 4, options, values);
  error_log.resize(error_log.find('\0'));
  info_log.resize(info_log.find('\0'));
  if (absl::Status s = device.Check(r, absl::StrCat("cuModuleLoadDataEx (", what, ")")); !s.ok()) {
    return absl::Status(s.code(), error_log.empty() ? std::string(s.message())
                                                    : absl::StrCat(s.message(), "\n", error_log));
  }
  return std::unique_ptr<CudaModule>(new CudaModule(&device, module, std::move(info_log)));
}

absl::StatusOr<std::unique_ptr<CudaModule>> CudaModule::LoadPtx(CudaDevice& device,
                                                                const std::string& ptx) {
  return Load(device, ptx.c_str(), "PTX");
}

absl::StatusOr<std::unique_ptr<CudaModule>> CudaModule::LoadCubin(CudaDevice& device,
                                                                  const std::string& image) {
  return Load(device, image.data(), "cubin");
}

CudaModule::~CudaModule() {
  (void)device_->MakeCurrent();
  (void)device_->driver().cuModuleUnload(module_);
}

absl::StatusOr<CudaKernel> CudaModule::GetKernel(const std::string& name) const {
  CudaKernel kernel{nullptr, name};
  CUresult r = device_->driver().cuModuleGetFunction(&kernel.function, module_, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND) {
    return absl::NotFoundError(absl::StrCat("the module has no kernel named '", name, "'"));
  }
  if (absl::Status s = device_->Check(r, "cuModuleGetFunction"); !s.ok()) return s;
  return kernel;
}

absl::StatusOr<CudaGlobal> CudaModule::GetGlobal(const std::string& name) const {
  CudaGlobal global;
  CUdeviceptr address = 0;
  CUresult r = device_->driver().cuModuleGetGlobal(&address, &global.bytes, module_, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND) {
    return absl::NotFoundError(absl::StrCat("the module has no __device__ global named '", name,
                                            "' (a C++ name needs extern \"C\" or its mangled "
                                            "name)"));
  }
  if (absl::Status s = device_->Check(r, "cuModuleGetGlobal"); !s.ok()) return s;
  global.address = address;
  return global;
}

absl::StatusOr<std::string> CompilePtxToCubin(CudaDevice& device, const std::string& ptx) {
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  const CudaDriver& d = device.driver();
  std::string error_log(kJitLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(kJitLogBytes)};
  CUlinkState link = nullptr;
  if (absl::Status s = device.Check(d.cuLinkCreate(2, options, values, &link), "cuLinkCreate");
      !s.ok()) {
    return s;
  }
  auto fail = [&](CUresult r, absl::string_view call) {
    absl::Status s = device.Check(r, call);
    error_log.resize(error_log.find('\0'));
    d.cuLinkDestroy(link);
    return absl::Status(s.code(), error_log.empty() ? std::string(s.message())
                                                    : absl::StrCat(s.message(), "\n", error_log));
  };
  // cuLinkAddData takes the PTX text with its terminating NUL.
  CUresult r = d.cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(ptx.c_str()),
                               ptx.size() + 1, "gpuc.ptx", 0, nullptr, nullptr);
  if (r != CUDA_SUCCESS) return fail(r, "cuLinkAddData");
  void* cubin = nullptr;
  size_t cubin_size = 0;
  r = d.cuLinkComplete(link, &cubin, &cubin_size);
  if (r != CUDA_SUCCESS) return fail(r, "cuLinkComplete");
  // The image belongs to the link state: copy it out before destroying that.
  std::string image(static_cast<const char*>(cubin), cubin_size);
  d.cuLinkDestroy(link);
  return image;
}

absl::Status Launch(CudaStream& stream, const CudaKernel& kernel, LaunchDims grid, LaunchDims block,
                    unsigned dynamic_shared_bytes, void** args) {
  CudaDevice& device = stream.device();
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  stream.NoteLaunch(kernel.name);
  CUresult r =
      device.driver().cuLaunchKernel(kernel.function, grid.x, grid.y, grid.z, block.x, block.y,
                                     block.z, dynamic_shared_bytes, stream.handle(), args, nullptr);
  absl::Status s = device.Check(r, absl::StrCat("cuLaunchKernel (", kernel.name, ")"));
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat(s.message(), " with grid (", grid.x, ",", grid.y, ",", grid.z,
                                   "), block (", block.x, ",", block.y, ",", block.z, "), ",
                                   dynamic_shared_bytes, " bytes of dynamic shared memory"));
}

}  // namespace gpuc::runtime
