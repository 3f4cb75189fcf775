//===- cuda_compilers.cc - NVRTC and nvJitLink, resolved at run time ------===//
#include "codegen/cuda_compilers.h"

#include <dlfcn.h>

#include <atomic>
#include <initializer_list>

#include "absl/strings/str_cat.h"

namespace gpuc::codegen {
namespace {

std::atomic<bool> g_enabled{true};

/// dlopen of the first soname that opens; RTLD_LOCAL keeps the library's symbols private.
absl::StatusOr<void*> OpenCompiler(absl::string_view what,
                                   std::initializer_list<const char*> sonames) {
  if (!g_enabled.load(std::memory_order_relaxed)) {
    return absl::UnavailableError("GPUC_VENDOR_LIBRARIES=0 turns the vendor libraries off");
  }
  std::string errors;
  for (const char* soname : sonames) {
    if (void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) return library;
    absl::StrAppend(&errors, errors.empty() ? "" : "; ", dlerror());
  }
  return absl::UnavailableError(absl::StrCat("no ", what, ": ", errors));
}

/// Fills `table.name` from `*library`, or returns Unavailable naming the entry point (the
/// name after macro expansion: nvJitLink.h maps names to versioned ones).
#define GPUC_COMPILER_STRINGIFY(x) #x
#define GPUC_COMPILER_NAME(x) GPUC_COMPILER_STRINGIFY(x)
#define GPUC_COMPILER_LOOKUP(name)                                                                \
  table.name = reinterpret_cast<decltype(table.name)>(dlsym(*library, GPUC_COMPILER_NAME(name))); \
  if (table.name == nullptr) {                                                                    \
    return absl::UnavailableError(                                                                \
        absl::StrCat(what, " lacks ", GPUC_COMPILER_NAME(name), ": too old?"));                   \
  }

absl::StatusOr<Nvrtc> LoadNvrtc() {
  const absl::string_view what = "NVRTC";
  absl::StatusOr<void*> library = OpenCompiler(what, {"libnvrtc.so.13", "libnvrtc.so.12"});
  if (!library.ok()) return library.status();
  Nvrtc table;
  GPUC_NVRTC_FUNCTIONS(GPUC_COMPILER_LOOKUP)
  table.nvrtcVersion(&table.major, &table.minor);
  return table;
}

absl::StatusOr<NvJitLink> LoadNvJitLink() {
  const absl::string_view what = "nvJitLink";
  absl::StatusOr<void*> library = OpenCompiler(what, {"libnvJitLink.so.13"});
  if (!library.ok()) return library.status();
  NvJitLink table;
  GPUC_NVJITLINK_FUNCTIONS(GPUC_COMPILER_LOOKUP)
  table.nvJitLinkVersion(&table.major, &table.minor);
  return table;
}

const char* NvJitLinkResultName(nvJitLinkResult result) {
  switch (result) {
    case NVJITLINK_SUCCESS:
      return "success";
    case NVJITLINK_ERROR_UNRECOGNIZED_OPTION:
      return "unrecognized option";
    case NVJITLINK_ERROR_MISSING_ARCH:
      return "missing -arch";
    case NVJITLINK_ERROR_INVALID_INPUT:
      return "invalid input";
    case NVJITLINK_ERROR_PTX_COMPILE:
      return "PTX compile error";
    case NVJITLINK_ERROR_NVVM_COMPILE:
      return "NVVM compile error";
    case NVJITLINK_ERROR_INTERNAL:
      return "internal error";
    default:
      return "error";
  }
}

}  // namespace

void SetCudaCompilersEnabled(bool enabled) { g_enabled.store(enabled); }

absl::StatusOr<const Nvrtc*> GetNvrtc() {
  static const auto* loaded = new absl::StatusOr<Nvrtc>(LoadNvrtc());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

absl::StatusOr<const NvJitLink*> GetNvJitLink() {
  static const auto* loaded = new absl::StatusOr<NvJitLink>(LoadNvJitLink());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

absl::Status NvrtcStatus(nvrtcResult result, absl::string_view call) {
  if (result == NVRTC_SUCCESS) return absl::OkStatus();
  absl::StatusOr<const Nvrtc*> nvrtc = GetNvrtc();
  const char* text = nvrtc.ok() ? (*nvrtc)->nvrtcGetErrorString(result) : "";
  std::string message = absl::StrCat(call, " failed: ", text, " (", static_cast<int>(result), ")");
  if (result == NVRTC_ERROR_OUT_OF_MEMORY) return absl::ResourceExhaustedError(message);
  if (result == NVRTC_ERROR_INVALID_OPTION || result == NVRTC_ERROR_COMPILATION ||
      result == NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID) {
    return absl::InvalidArgumentError(message);
  }
  return absl::InternalError(message);
}

absl::Status NvJitLinkStatus(nvJitLinkResult result, absl::string_view call) {
  if (result == NVJITLINK_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(call, " failed: ", NvJitLinkResultName(result), " (",
                                     static_cast<int>(result), ")");
  if (result == NVJITLINK_ERROR_INTERNAL) return absl::InternalError(message);
  return absl::InvalidArgumentError(message);
}

std::string DescribeCudaCompilers() {
  absl::StatusOr<const Nvrtc*> nvrtc = GetNvrtc();
  absl::StatusOr<const NvJitLink*> link = GetNvJitLink();
  return absl::StrCat(nvrtc.ok() ? absl::StrCat("NVRTC ", (*nvrtc)->major, ".", (*nvrtc)->minor)
                                 : std::string(nvrtc.status().message()),
                      ", ",
                      link.ok() ? absl::StrCat("nvJitLink ", (*link)->major, ".", (*link)->minor)
                                : std::string(link.status().message()));
}

}  // namespace gpuc::codegen
