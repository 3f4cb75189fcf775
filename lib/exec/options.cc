//===- options.cc - How graphs are compiled and run: one options object ---===//
#include "lib/exec/options.h"

#include <memory>

#include "lib/exec/current_options.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "codegen/cuda_compilers.h"
#include "codegen/cuda_toolkit.h"
#include "runtime/cuda_libraries.h"

namespace gpuc::exec {
namespace {

/// The variable's value, or "" when it is not set.
std::string Variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

/// Set to anything but "" and "0".
bool IsOn(const std::string& value) { return !value.empty() && value != "0"; }

std::string DefaultCacheDirectory() {
  if (std::string dir = Variable("GPUC_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = Variable("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/gpuc";
  if (std::string home = Variable("HOME"); !home.empty()) return home + "/.cache/gpuc";
  return (std::filesystem::temp_directory_path() / "gpuc-cache").string();
}

std::mutex& CurrentMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

/// What the runtime keeps process-wide is set from the options before anything loads.
void ApplyToRuntime(const Options& options) {
  runtime::SetVendorLibrariesEnabled(options.vendor_libraries);
  codegen::SetCudaCompilersEnabled(options.vendor_libraries);
  codegen::SetCudaToolkitRoot(options.cuda_home);
}

std::shared_ptr<const OptionsSnapshot>& CurrentLocked() {
  // Leaked on purpose: evaluation from static destructors still reads it.
  static auto* current = [] {
    auto snapshot = std::make_shared<OptionsSnapshot>();
    snapshot->options = Options::FromEnvironment();
    snapshot->plan_key = snapshot->options.PlanKey();
    ApplyToRuntime(snapshot->options);
    return new std::shared_ptr<const OptionsSnapshot>(std::move(snapshot));
  }();
  return *current;
}

const char* OnOff(bool on) { return on ? "on" : "off"; }

}  // namespace

Options Options::FromEnvironment() {
  Options o;
  o.backend = Variable("GPUC_BACKEND");
  o.device = Variable("GPUC_DEVICE");
  o.fast_math = Variable("GPUC_FAST_MATH") == "1";
  o.exact_gpu_math = Variable("GPUC_GPU_MATH") == "exact";
  o.gpu_vector_reductions = Variable("GPUC_GPU_VECTOR_REDUCTIONS") != "0";
  if (Variable("GPUC_INDEX_BITS") == "64") o.min_index_bits = 64;
  o.gemm_epilogues = Variable("GPUC_GEMM_EPILOGUES") != "0";
  o.cuda_graphs = Variable("GPUC_CUDA_GRAPHS") != "0";
  o.deterministic = Variable("GPUC_DETERMINISTIC") == "1";
  o.poison = Variable("GPUC_POISON") == "1";
  if (int threads = 0; absl::SimpleAtoi(Variable("GPUC_NUM_THREADS"), &threads) && threads > 0) {
    o.threads = threads;
  }
  o.vendor_libraries = Variable("GPUC_VENDOR_LIBRARIES") != "0";
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (std::string root = Variable(variable); !root.empty()) {
      o.cuda_home = root;
      break;
    }
  }
  o.disk_cache = Variable("GPUC_DISK_CACHE") != "0";
  o.cache_directory = DefaultCacheDirectory();
  if (int64_t bytes = 0; absl::SimpleAtoi(Variable("GPUC_CACHE_MAX_BYTES"), &bytes) && bytes > 0) {
    o.cache_max_bytes = bytes;
  }
  o.explain = IsOn(Variable("GPUC_EXPLAIN"));
  o.explain_plans = Variable("GPUC_EXPLAIN") == "plans";
  return o;
}

std::string Options::Describe() const {
  return absl::StrCat(
      "  backend = ", backend.empty() ? "(the GPU where there is one)" : backend,
      "   [GPUC_BACKEND]\n", "  device = ", device.empty() ? "(cuda:0 if present)" : device,
      "   [GPUC_DEVICE]\n", "  fast math = ", OnOff(fast_math), "   [GPUC_FAST_MATH]\n",
      "  exact GPU math = ", OnOff(exact_gpu_math), "   [GPUC_GPU_MATH]\n",
      "  GPU vector reductions = ", OnOff(gpu_vector_reductions),
      "   [GPUC_GPU_VECTOR_REDUCTIONS]\n", "  index bits = ", min_index_bits,
      " or more   [GPUC_INDEX_BITS]\n",
      "  GPU arch = ", gpu_arch.empty() ? "(the device's, else sm_90)" : gpu_arch, "   [--arch]\n",
      "  GEMM epilogues = ", OnOff(gemm_epilogues), "   [GPUC_GEMM_EPILOGUES]\n",
      "  CUDA graphs = ", OnOff(cuda_graphs), "   [GPUC_CUDA_GRAPHS]\n",
      "  deterministic = ", OnOff(deterministic), "   [GPUC_DETERMINISTIC]\n",
      "  poison outputs = ", OnOff(poison), "   [GPUC_POISON]\n",
      "  host threads = ", threads == 0 ? std::string("(one per core)") : absl::StrCat(threads),
      "   [GPUC_NUM_THREADS]\n", "  vendor libraries = ", OnOff(vendor_libraries),
      "   [GPUC_VENDOR_LIBRARIES]\n", "  CUDA toolkit = ", cuda_home, "   [CUDA_HOME, CUDA_PATH]\n",
      "  disk cache = ", OnOff(disk_cache), "   [GPUC_DISK_CACHE]\n",
      "  cache directory = ", cache_directory, "   [GPUC_CACHE_DIR]\n",
      "  cache size cap = ", cache_max_bytes, " bytes   [GPUC_CACHE_MAX_BYTES]\n",
      "  explain evaluations = ", explain_plans ? "on, with plans" : OnOff(explain),
      "   [GPUC_EXPLAIN]\n");
}

std::string Options::CodegenKey() const {
  return absl::StrCat("index", min_index_bits, fast_math ? " fast" : "",
                      exact_gpu_math ? " exact" : "",
                      gpu_vector_reductions ? "" : " scalar-reduce");
}

std::string Options::PlanKey() const {
  return absl::StrCat(CodegenKey(), " arch=", gpu_arch, " arrays=", max_kernel_arrays,
                      gemm_epilogues ? "" : " no-epilogues", cuda_graphs ? "" : " no-graphs",
                      deterministic ? " deterministic" : "", poison ? " poison" : "",
                      " threads=", threads);
}

std::shared_ptr<const OptionsSnapshot> CurrentSnapshot() {
  std::lock_guard<std::mutex> lock(CurrentMutex());
  return CurrentLocked();
}

Options CurrentOptions() { return CurrentSnapshot()->options; }

void SetCurrentOptions(const Options& options) {
  auto snapshot = std::make_shared<OptionsSnapshot>();
  snapshot->options = options;
  snapshot->plan_key = options.PlanKey();
  std::lock_guard<std::mutex> lock(CurrentMutex());
  CurrentLocked() = std::move(snapshot);
  ApplyToRuntime(options);
}

ScopedOptions::ScopedOptions(const Options& options) : previous_(CurrentOptions()) {
  SetCurrentOptions(options);
}

ScopedOptions::~ScopedOptions() { SetCurrentOptions(previous_); }

}  // namespace gpuc::exec
