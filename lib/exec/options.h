//===- options.h - How graphs are compiled and run: one options object ----===//
//
// Every setting of the execution layer in one value: math modes, index width, the fusion
// budget, CUDA graphs, poisoning, the device, the kernel cache, the thread count. The
// environment (GPUC_*) is read in exactly one place, Options::FromEnvironment; everything
// else receives an Options. The process has current options (the environment's at first
// use), which a program or a test replaces for a scope (ScopedOptions) and which the CLI's
// flags override. Targets key what they compile on the options that change code
// (CodegenKey), so two option sets in one process never share a kernel by mistake.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EXEC_OPTIONS_H_
#define GPUC_LIB_EXEC_OPTIONS_H_

#include <cstdint>
#include <string>

namespace gpuc::exec {

struct Options {
  // -- Where evaluation runs.
  /// GPUC_BACKEND: "" (the GPU where there is one, else the host), "host", "gpu",
  /// "interpreter".
  std::string backend;
  /// GPUC_DEVICE: "" (cuda:0 when a driver has a device), "host", "cuda" or "cuda:N".
  std::string device;

  // -- Code generation (these change kernels, and so their keys).
  /// GPUC_FAST_MATH=1 / --fast-math: GPU code may flush denormals and approximate.
  bool fast_math = false;
  /// GPUC_GPU_MATH=exact / --exact-math: f32/f16/bf16 math functions in double on the GPU.
  bool exact_gpu_math = false;
  /// GPUC_GPU_VECTOR_REDUCTIONS=0: GPU reductions load one element at a time.
  bool gpu_vector_reductions = true;
  /// GPUC_INDEX_BITS=64: 64-bit indexing even where 32 bits suffice (tests run that path).
  int min_index_bits = 32;
  /// --arch: the GPU architecture to compile for; "" is the device's (sm_90 without one).
  std::string gpu_arch;

  // -- Planning.
  /// --max-kernel-arrays: > 0 overrides the fusion budget of arrays per kernel.
  int max_kernel_arrays = 0;
  /// GPUC_GEMM_EPILOGUES=0: a bias and ReLU after a GEMM stay a kernel of their own.
  bool gemm_epilogues = true;

  // -- Running.
  /// GPUC_CUDA_GRAPHS=0: a repeated plan launches its kernels itself instead of a graph.
  bool cuda_graphs = true;
  /// GPUC_DETERMINISTIC=1: every result has the same bits on every run, as NumPy's order
  /// gives them; off, a GPU scatter-add of floats at repeated indices rounds in the order
  /// its atomics run (lib/backend/cuda/gpu_scatter.h).
  bool deterministic = false;
  /// GPUC_POISON=1: outputs are filled with 0xA5 before kernels write them (tests set it).
  bool poison = false;
  /// GPUC_NUM_THREADS: the host's worker threads; 0 is one per core.
  int threads = 0;
  /// GPUC_VENDOR_LIBRARIES=0: cuBLAS, cuFFT, cuSPARSE, NVRTC and nvJitLink are not loaded.
  bool vendor_libraries = true;
  /// CUDA_HOME, else CUDA_PATH, else /usr/local/cuda: where libdevice and the headers for
  /// users' kernels are.
  std::string cuda_home = "/usr/local/cuda";

  // -- The disk kernel cache.
  /// GPUC_DISK_CACHE=0 turns it off.
  bool disk_cache = true;
  /// GPUC_CACHE_DIR, else $XDG_CACHE_HOME/gpuc, else ~/.cache/gpuc.
  std::string cache_directory;
  /// GPUC_CACHE_MAX_BYTES, else 1 GiB: room for tens of thousands of kernels.
  int64_t cache_max_bytes = int64_t{1} << 30;

  // -- Diagnostics.
  /// GPUC_EXPLAIN=1: every automatic evaluation says why on stderr.
  bool explain = false;
  /// GPUC_EXPLAIN=plans: that, and every plan evaluation makes (a plan-cache miss) printed
  /// as `gpuc --emit=plan` prints it: its kernels, library steps and buffers.
  bool explain_plans = false;

  /// The defaults with every GPUC_* variable applied.
  static Options FromEnvironment();
  /// One line per setting with its value and its variable (`gpuc --info`).
  std::string Describe() const;
  /// The settings that change generated code, as text for kernel keys.
  std::string CodegenKey() const;
  /// Every setting that changes a compiled plan (code, fusion, how it runs), as text for
  /// the evaluator's plan cache.
  std::string PlanKey() const;
};

/// The options evaluation uses now: the environment's, read once at first use, unless
/// replaced. Safe from several threads.
Options CurrentOptions();
/// Replaces the current options for every thread (a program's configuration). Settings the
/// runtime keeps per process (vendor_libraries) take effect before the first library loads.
void SetCurrentOptions(const Options& options);

/// Replaces the current options until it goes out of scope (tests, one call).
class ScopedOptions {
 public:
  explicit ScopedOptions(const Options& options);
  ~ScopedOptions();
  ScopedOptions(const ScopedOptions&) = delete;
  ScopedOptions& operator=(const ScopedOptions&) = delete;

 private:
  Options previous_;
};

}  // namespace gpuc::exec

#endif  // GPUC_LIB_EXEC_OPTIONS_H_
