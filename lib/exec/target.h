//===- target.h - Compile a graph once for a target, run it many times ----===//
//
// The execution layer's one interface. A Target (the host, a CUDA device, the reference
// interpreter) owns everything between an optimized-for-nobody graph and results:
//   Lower    its pass pipeline, written as one list (the graph passes, then the target's own
//            lowering, such as GEMM epilogues on the GPU);
//   Budgets  fusion's budgets with a cost model from the target's own properties;
//   Compile  fusion, buffer planning, code generation and its compile cache, its library
//            lowering: an Executable;
//   Run      (on the Executable) the plan on argument buffers, results as buffers.
// Evaluation, compile()'s Function and every mode of the `gpuc` tool go through it, so
// there is one compile sequence per target. Options (options.h) say how.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EXEC_TARGET_H_
#define GPUC_LIB_EXEC_TARGET_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "lib/exec/buffer.h"
#include "lib/exec/options.h"
#include "passes/fusion.h"
#include "passes/pass_manager.h"

namespace gpuc::exec {

/// A graph compiled for one target.
/// A fori_loop's steps as an executable may run them without the host between steps: the
/// graph is the loop body, whose results are the next state (lib/eval/loop_api.cc).
struct LoopSteps {
  int index_param = 0;  // i64[], the loop index: `lower` at the first step, one more each step
  int key_param = 0;    // u64[], the step key: ir::SplitMix64(the step's number)
  int first_state = 0;  // the state's parameters, in the order of the graph's results
  int state_count = 0;
  int64_t lower = 0;
  int64_t steps = 0;
  int64_t first_step = 0;  // the first step's number (its key's seed)
};

/// Executable::RunLoop's answer where a target has no device loops at all (the host).
inline constexpr char kNoDeviceLoops[] = "this target runs a loop one step at a time";

class Executable {
 public:
  virtual ~Executable() = default;
  /// The graph it runs (lowered for its target); its parameters are the arguments.
  virtual const ir::Graph& graph() const = 0;
  /// Runs on `args`, one per parameter of graph(). Data-dependent failures (an index out of
  /// bounds) are errors naming the op. On a GPU the results stay in device memory.
  virtual absl::StatusOr<std::vector<BufferRef>> Run(absl::Span<const BufferRef> args) const = 0;
  /// Whether it was compiled from a graph with numbered positions (ir/positions.h) and every
  /// step reads its offsets from them: it then runs the same graph at any positions.
  virtual bool ServesEveryPosition() const { return false; }
  /// Runs with the offsets at `positions` (only when ServesEveryPosition).
  virtual absl::StatusOr<std::vector<BufferRef>> Run(absl::Span<const BufferRef> args,
                                                     absl::Span<const int64_t> positions) const {
    if (!positions.empty()) {
      return absl::InternalError("this executable takes no positions");
    }
    return Run(args);
  }
  /// Runs `loop.steps` steps from `args` (the first step's arguments) and returns the last
  /// state, with no host work between steps; Unimplemented where this executable can only run
  /// a step at a time (the caller then does).
  virtual absl::StatusOr<std::vector<BufferRef>> RunLoop(absl::Span<const BufferRef> args,
                                                         const LoopSteps& loop) const {
    return absl::UnimplementedError(kNoDeviceLoops);
  }
};

/// What `gpuc --emit` can ask a target to print of each generated kernel.
enum class KernelForm {
  kLlvm,           // LLVM IR as emitted
  kOptimizedLlvm,  // after the target's O3 pipeline
  kPtx,            // PTX (GPU targets)
};

class Target {
 public:
  virtual ~Target() = default;

  /// "host", "gpu" or "interp" (the names of `gpuc --target`).
  virtual absl::string_view name() const = 0;

  /// The target's own lowering passes, run after the graph passes.
  virtual std::vector<std::string> LoweringPasses(const Options& options) const { return {}; }
  /// The whole pipeline as one comma-separated list: `graph_passes` (without it,
  /// passes::DefaultPipeline(); "" runs none), then the target's lowering.
  std::string Pipeline(const Options& options,
                       const std::optional<std::string>& graph_passes = std::nullopt) const;
  /// Runs Pipeline over `graph` (in place); `timing_report` receives the per-pass timings.
  absl::Status Lower(ir::Graph& graph, const Options& options,
                     const passes::PassManagerOptions& pass_options = {},
                     const std::optional<std::string>& graph_passes = std::nullopt,
                     std::string* timing_report = nullptr) const;

  /// Fusion budgets, with the target's cost model and the options' overrides.
  virtual passes::FusionBudgets Budgets(const Options& options) const;

  /// Compiles a graph that Lower has run on.
  virtual absl::StatusOr<std::shared_ptr<const Executable>> Compile(const ir::Graph& lowered,
                                                                    const Options& options) = 0;
  /// Lower (on a copy), then Compile.
  absl::StatusOr<std::shared_ptr<const Executable>> LowerAndCompile(const ir::Graph& graph,
                                                                    const Options& options);

  /// The buffer plan of a lowered graph (`gpuc --emit=plan`): kernels, buffers, lifetimes,
  /// and how library steps run.
  virtual std::string PlanText(const ir::Graph& lowered, const Options& options);

  /// Each generated kernel of the lowered graph in `form`, with a header line per kernel;
  /// library steps say what runs them. Unimplemented for forms the target has not.
  virtual absl::StatusOr<std::string> KernelText(const ir::Graph& lowered, const Options& options,
                                                 KernelForm form);

  /// Whether this target's executables write `write` (an update_slice or scatter whose old
  /// value's storage was donated, lib/eval/in_place_writes.h) into that storage in place.
  virtual bool WritesInPlace(const ir::Node& write) const { return false; }

  /// What this target's executables did so far (`gpuc --stats`), one or two lines.
  virtual std::string StatsText() const = 0;

  /// Host values in, host values out: uploads and downloads as the target needs.
  absl::StatusOr<std::vector<ir::HostTensor>> RunOnHostValues(
      const Executable& executable, const std::vector<ir::HostTensor>& args);
};

/// The compiled host back end (always there).
Target& HostTarget();
/// The reference interpreter, a target like the others (the oracle).
Target& InterpreterTarget();
/// The CUDA back end of the options' device, or Unavailable saying why there is none.
absl::StatusOr<Target*> CudaTarget(const Options& options);
/// The CUDA target's code generation without a device (`gpuc --emit=ptx` on any machine):
/// KernelText works; Compile fails.
Target& CudaCodegenTarget();

/// The GPU architecture code is compiled for: options.gpu_arch, else the options' device's,
/// else sm_90 ("sm_90").
std::string GpuArchitecture(const Options& options);

/// "host", "gpu" (or "cuda") or "interp" (or "interpreter").
absl::StatusOr<Target*> TargetNamed(absl::string_view name, const Options& options);
/// Where evaluation runs: options.backend if set (no silent fallback for "gpu"), else the GPU
/// when the options' device is one that is present, else the host.
absl::StatusOr<Target*> DefaultTarget(const Options& options);

}  // namespace gpuc::exec

#endif  // GPUC_LIB_EXEC_TARGET_H_
