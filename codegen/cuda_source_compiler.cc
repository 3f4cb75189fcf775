//===- cuda_source_compiler.cc - Users' CUDA C++ through NVRTC ------------===//
#include "codegen/cuda_source_compiler.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/cuda_compilers.h"
#include "codegen/cuda_toolkit.h"
#include "codegen/kernel_spec.h"

namespace gpuc::codegen {
namespace {

std::atomic<int64_t> compiles{0};
std::atomic<int64_t> disk_hits{0};
std::atomic<int64_t> compile_microseconds{0};

constexpr char kArrayViewHeader[] =
    R"cuda(// gpuc/array_view.cuh: an N-d array as a kernel argument.
#pragma once
namespace gpuc {
// What gpuc::view(array) passes: the data pointer, the extents and the strides in elements.
// Arrays evaluated by gpuc are dense row-major; the strides are written out so that the same
// kernel also serves views of other layouts.
template <typename T, int N>
struct ArrayView {
  T* data;
  long long shape[N > 0 ? N : 1];
  long long strides[N > 0 ? N : 1];
  __device__ long long size() const {
    long long n = 1;
    for (int i = 0; i < N; ++i) n *= shape[i];
    return n;
  }
  template <typename... Index>
  __device__ T& operator()(Index... index) const {
    static_assert(sizeof...(Index) == N, "ArrayView: one index per axis");
    const long long at[] = {0, static_cast<long long>(index)...};
    long long offset = 0;
    for (int i = 0; i < N; ++i) offset += at[i + 1] * strides[i];
    return data[offset];
  }
  // The element at a row-major flat index, whatever the strides.
  __device__ T& flat(long long i) const {
    long long offset = 0;
    for (int axis = N - 1; axis >= 0; --axis) {
      offset += (i % shape[axis]) * strides[axis];
      i /= shape[axis];
    }
    return data[offset];
  }
};
}  // namespace gpuc
)cuda";

// The cache entry: each field as a decimal length, a newline and the bytes.
void AppendField(std::string& out, absl::string_view field) {
  absl::StrAppend(&out, field.size(), "\n", field);
}

bool ReadField(absl::string_view& in, std::string& field) {
  size_t newline = in.find('\n');
  size_t length = 0;
  if (newline == absl::string_view::npos || !absl::SimpleAtoi(in.substr(0, newline), &length) ||
      in.size() - newline - 1 < length) {
    return false;
  }
  field = std::string(in.substr(newline + 1, length));
  in.remove_prefix(newline + 1 + length);
  return true;
}

std::string Serialize(const CompiledCuda& compiled) {
  std::string out;
  AppendField(out, compiled.cubin);
  AppendField(out, compiled.ptx);
  AppendField(out, compiled.log);
  AppendField(out, absl::StrCat(compiled.lowered_names.size()));
  for (const auto& [expression, lowered] : compiled.lowered_names) {
    AppendField(out, expression);
    AppendField(out, lowered);
  }
  return out;
}

std::optional<CompiledCuda> Deserialize(absl::string_view in) {
  CompiledCuda compiled;
  std::string count_text;
  size_t count = 0;
  if (!ReadField(in, compiled.cubin) || !ReadField(in, compiled.ptx) ||
      !ReadField(in, compiled.log) || !ReadField(in, count_text) ||
      !absl::SimpleAtoi(count_text, &count)) {
    return std::nullopt;
  }
  for (size_t i = 0; i < count; ++i) {
    std::string expression, lowered;
    if (!ReadField(in, expression) || !ReadField(in, lowered)) return std::nullopt;
    compiled.lowered_names.emplace_back(std::move(expression), std::move(lowered));
  }
  if (!in.empty()) return std::nullopt;
  return compiled;
}

std::string CacheKey(const codegen::Nvrtc& nvrtc, absl::string_view source,
                     const CudaSourceOptions& options, const std::vector<std::string>& arguments) {
  std::string headers;
  for (const auto& [name, text] : GpucDeviceHeaders()) absl::StrAppend(&headers, name, text);
  return absl::StrCat("gpuc-nvrtc-1\nNVRTC ", nvrtc.major, ".", nvrtc.minor, "\narguments ",
                      absl::StrJoin(arguments, "\x1f"), "\nnames ",
                      absl::StrJoin(options.name_expressions, "\x1f"), "\nheaders ",
                      StableHash(headers), "\nsource\n", source);
}

std::string ProgramLog(const codegen::Nvrtc& nvrtc, nvrtcProgram program) {
  size_t size = 0;
  if (nvrtc.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (nvrtc.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  log.resize(size - 1);  // the terminating NUL
  while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) log.pop_back();
  return log;
}

/// Owns an nvrtcProgram: destroyed on every path out.
struct ProgramHolder {
  const codegen::Nvrtc& nvrtc;
  nvrtcProgram program = nullptr;
  ~ProgramHolder() {
    if (program != nullptr) nvrtc.nvrtcDestroyProgram(&program);
  }
};

absl::StatusOr<std::string> ReadOutput(nvrtcResult (*size_of)(nvrtcProgram, size_t*),
                                       nvrtcResult (*read)(nvrtcProgram, char*),
                                       nvrtcProgram program, absl::string_view what) {
  size_t size = 0;
  if (absl::Status s = codegen::NvrtcStatus(size_of(program, &size), what); !s.ok()) return s;
  std::string out(size, '\0');
  if (size > 0) {
    if (absl::Status s = codegen::NvrtcStatus(read(program, out.data()), what); !s.ok()) return s;
  }
  return out;
}

}  // namespace

CudaSourceStats GetCudaSourceStats() {
  return CudaSourceStats{compiles.load(), disk_hits.load(), compile_microseconds.load()};
}

const std::vector<std::pair<std::string, std::string>>& GpucDeviceHeaders() {
  static const auto* headers = new std::vector<std::pair<std::string, std::string>>{
      {"gpuc/array_view.cuh", kArrayViewHeader}};
  return *headers;
}

std::string CudaIncludeDirectory() {
  std::vector<std::string> candidates = {absl::StrCat(CudaToolkitRoot(), "/include")};
#ifdef GPUC_CUDA_INCLUDE_DIR
  candidates.push_back(GPUC_CUDA_INCLUDE_DIR);
#endif
  candidates.push_back("/usr/local/cuda/include");
  for (const std::string& directory : candidates) {
    std::error_code error;
    if (std::filesystem::exists(directory + "/cuda_fp16.h", error)) return directory;
  }
  return "";
}

std::string FirstCompileError(absl::string_view log, absl::string_view program_name) {
  // NVRTC writes "kernel.cu(3): error: identifier "y" is undefined".
  const std::string prefix = absl::StrCat(program_name, "(");
  std::string first_line;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (first_line.empty() && !line.empty()) first_line = std::string(line);
    if (!absl::StartsWith(line, prefix)) continue;
    absl::string_view rest = line.substr(prefix.size());
    size_t close = rest.find("): ");
    if (close == absl::string_view::npos) continue;
    absl::string_view message = rest.substr(close + 3);
    if (!absl::StartsWith(message, "error") && !absl::StartsWith(message, "catastrophic")) {
      continue;
    }
    return absl::StrCat("line ", rest.substr(0, close), ": ", message);
  }
  return first_line;
}

absl::StatusOr<CompiledCuda> CompileCudaSource(absl::string_view source,
                                               absl::string_view program_name,
                                               const CudaSourceOptions& options, DiskCache* cache) {
  absl::StatusOr<const codegen::Nvrtc*> loaded = codegen::GetNvrtc();
  if (!loaded.ok()) return loaded.status();
  const codegen::Nvrtc& nvrtc = **loaded;

  std::vector<std::string> arguments = {absl::StrCat("-arch=", options.arch)};
  bool has_std = false;
  for (const std::string& option : options.options) {
    has_std = has_std || absl::StartsWith(option, "-std") || absl::StartsWith(option, "--std");
  }
  if (!has_std) arguments.push_back("-std=c++17");
  if (options.relocatable) arguments.push_back("-rdc=true");
  if (std::string include = CudaIncludeDirectory(); !include.empty()) {
    arguments.push_back(absl::StrCat("-I", include));
  }
  arguments.insert(arguments.end(), options.options.begin(), options.options.end());

  const std::string key = CacheKey(nvrtc, source, options, arguments);
  if (cache != nullptr) {
    if (std::optional<std::string> entry = cache->Load(key)) {
      if (std::optional<CompiledCuda> compiled = Deserialize(*entry)) {
        compiled->from_disk_cache = true;
        ++disk_hits;
        return *compiled;
      }
    }
  }

  const auto start = std::chrono::steady_clock::now();
  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : GpucDeviceHeaders()) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  ProgramHolder holder{nvrtc};
  const std::string source_text(source), name(program_name);
  if (absl::Status s = codegen::NvrtcStatus(
          nvrtc.nvrtcCreateProgram(&holder.program, source_text.c_str(), name.c_str(),
                                   static_cast<int>(header_texts.size()), header_texts.data(),
                                   header_names.data()),
          "nvrtcCreateProgram");
      !s.ok()) {
    return s;
  }
  for (const std::string& expression : options.name_expressions) {
    if (absl::Status s =
            codegen::NvrtcStatus(nvrtc.nvrtcAddNameExpression(holder.program, expression.c_str()),
                                 absl::StrCat("nvrtcAddNameExpression(\"", expression, "\")"));
        !s.ok()) {
      return s;
    }
  }
  std::vector<const char*> argv;
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  const nvrtcResult result =
      nvrtc.nvrtcCompileProgram(holder.program, static_cast<int>(argv.size()), argv.data());
  CompiledCuda compiled;
  compiled.log = ProgramLog(nvrtc, holder.program);
  if (result != NVRTC_SUCCESS) {
    absl::Status status = codegen::NvrtcStatus(result, "nvrtcCompileProgram");
    return absl::Status(status.code(),
                        absl::StrCat("NVRTC could not compile ", program_name, ": ",
                                     FirstCompileError(compiled.log, program_name),
                                     "\nNVRTC options: ", absl::StrJoin(arguments, " "),
                                     "\nNVRTC log:\n", compiled.log));
  }
  absl::StatusOr<std::string> ptx =
      ReadOutput(nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX, holder.program, "nvrtcGetPTX");
  if (!ptx.ok()) return ptx.status();
  compiled.ptx = std::move(*ptx);
  if (!compiled.ptx.empty() && compiled.ptx.back() == '\0') compiled.ptx.pop_back();
  absl::StatusOr<std::string> cubin =
      ReadOutput(nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN, holder.program, "nvrtcGetCUBIN");
  if (!cubin.ok()) return cubin.status();
  if (cubin->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("NVRTC made no cubin for ", program_name, ": -arch=", options.arch,
                     " must name a real architecture (sm_XX), not a virtual one (compute_XX)"));
  }
  compiled.cubin = std::move(*cubin);
  for (const std::string& expression : options.name_expressions) {
    const char* lowered = nullptr;
    if (absl::Status s = codegen::NvrtcStatus(
            nvrtc.nvrtcGetLoweredName(holder.program, expression.c_str(), &lowered),
            absl::StrCat("nvrtcGetLoweredName(\"", expression, "\")"));
        !s.ok()) {
      return s;
    }
    compiled.lowered_names.emplace_back(expression, lowered);
  }
  ++compiles;
  compile_microseconds += std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  if (cache != nullptr) cache->Store(key, Serialize(compiled));
  return compiled;
}

absl::StatusOr<std::string> LinkDeviceCode(const std::vector<LinkInput>& inputs,
                                           absl::string_view arch) {
  absl::StatusOr<const codegen::NvJitLink*> loaded = codegen::GetNvJitLink();
  if (!loaded.ok()) return loaded.status();
  const codegen::NvJitLink& link = **loaded;
  const std::string arch_option = absl::StrCat("-arch=", arch);
  const char* link_options[] = {arch_option.c_str()};
  nvJitLinkHandle handle = nullptr;
  if (absl::Status s = codegen::NvJitLinkStatus(
          link.__nvJitLinkCreate_13_0(&handle, 1, link_options), "nvJitLinkCreate");
      !s.ok()) {
    return s;
  }
  struct HandleHolder {
    const codegen::NvJitLink& link;
    nvJitLinkHandle handle;
    ~HandleHolder() { link.__nvJitLinkDestroy_13_0(&handle); }
  } holder{link, handle};
  auto with_log = [&](absl::Status status) {
    size_t size = 0;
    std::string log;
    if (link.__nvJitLinkGetErrorLogSize_13_0(handle, &size) == NVJITLINK_SUCCESS && size > 1) {
      log.resize(size);
      link.__nvJitLinkGetErrorLog_13_0(handle, log.data());
      log.resize(size - 1);
    }
    return absl::Status(status.code(), absl::StrCat(status.message(), "\nnvJitLink log:\n", log));
  };
  for (const LinkInput& input : inputs) {
    const nvJitLinkInputType type =
        input.kind == LinkInput::Kind::kPtx ? NVJITLINK_INPUT_PTX : NVJITLINK_INPUT_CUBIN;
    // PTX is text: nvJitLink reads it up to the terminating NUL, so the size includes one.
    std::string data = input.data;
    if (type == NVJITLINK_INPUT_PTX) data.push_back('\0');
    if (absl::Status s =
            codegen::NvJitLinkStatus(link.__nvJitLinkAddData_13_0(handle, type, data.data(),
                                                                  data.size(), input.name.c_str()),
                                     absl::StrCat("nvJitLinkAddData(", input.name, ")"));
        !s.ok()) {
      return with_log(s);
    }
  }
  if (absl::Status s =
          codegen::NvJitLinkStatus(link.__nvJitLinkComplete_13_0(handle), "nvJitLinkComplete");
      !s.ok()) {
    return with_log(s);
  }
  size_t size = 0;
  if (absl::Status s = codegen::NvJitLinkStatus(
          link.__nvJitLinkGetLinkedCubinSize_13_0(handle, &size), "nvJitLinkGetLinkedCubinSize");
      !s.ok()) {
    return s;
  }
  std::string cubin(size, '\0');
  if (absl::Status s = codegen::NvJitLinkStatus(
          link.__nvJitLinkGetLinkedCubin_13_0(handle, cubin.data()), "nvJitLinkGetLinkedCubin");
      !s.ok()) {
    return s;
  }
  return cubin;
}

}  // namespace gpuc::codegen
