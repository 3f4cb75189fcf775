//===- host_executor.h - Running fused plans natively on the host ---------===//
//
// The host back end, the default where there is no GPU: the graph is cut into kernels
// (passes/fusion.h), each compiled kernel is fetched from the kernel cache (memory, then
// disk, then compiled through LLVM: codegen/), linked by the host JIT and run with its rows
// split over the thread pool. Library ops and scans run on their host implementations.
// A kernel that code generation cannot lower yet runs on the interpreter instead, and the
// statistics say how often.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_EXECUTOR_H_
#define GPUC_LIB_BACKEND_HOST_HOST_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "lib/exec/options.h"
#include "passes/buffer_plan.h"
#include "passes/fusion.h"

namespace gpuc::detail {

struct HostBackendStats {
  int64_t kernel_runs = 0;           // compiled kernels run
  int64_t memory_hits = 0;           // kernels found compiled in this process
  int64_t disk_hits = 0;             // loaded from the disk cache
  int64_t compiles = 0;              // compiled through LLVM
  int64_t compile_microseconds = 0;  // spent compiling (LLVM, not loading)
  int64_t interpreted_kernels = 0;   // run on the interpreter (no lowering yet)
  int64_t library_steps = 0;         // library ops and scans
  int64_t in_place_outputs = 0;      // outputs planned over an input's storage
  int64_t in_place_writes = 0;       // update_slices run as region copies into donated storage
  int64_t in_place_write_bytes = 0;  // the bytes those copies wrote (the regions')
  std::string last_interpreted_reason;
};

/// A graph cut into kernels, each compiled (or marked to interpret), with its buffer plan:
/// what a gpuc::compile Function keeps so that a call does no planning or compiling.
struct PreparedPlan;

class HostExecutor {
 public:
  /// The process-wide executor (its JIT, caches and statistics).
  static HostExecutor& Get();
  ~HostExecutor();

  /// Fuses, plans and compiles `graph` (already lowered by the host target's pipeline); the
  /// options choose the code and how it runs.
  absl::StatusOr<std::shared_ptr<const PreparedPlan>> Prepare(
      const ir::Graph& graph, const exec::Options& options = exec::CurrentOptions(),
      const passes::FusionBudgets& budgets = {});
  /// `positions`: the offsets of a plan prepared from a graph with numbered positions
  /// (ir/positions.h); empty runs the offsets it was prepared with.
  absl::StatusOr<std::vector<ir::HostTensor>> Run(const PreparedPlan& plan,
                                                  absl::Span<const ir::HostTensor> args,
                                                  absl::Span<const int64_t> positions = {});
  /// Whether every offset of `plan` (kernel arguments, interpreted and in-place steps) reads
  /// a numbered position.
  static bool ServesEveryPosition(const PreparedPlan& plan);

  /// Prepare with the current options and the host target's budgets unless `budgets` are
  /// given, then Run (the graph passes are the caller's).
  absl::StatusOr<std::vector<ir::HostTensor>> Run(
      const ir::Graph& graph, absl::Span<const ir::HostTensor> args,
      const std::optional<passes::FusionBudgets>& budgets = std::nullopt);

  /// The LLVM IR of one kernel of a plan (with its buffer plan's in-place outputs): as
  /// emitted, or after the O3 pipeline.
  absl::StatusOr<std::string> KernelLlvmIr(const passes::FusedKernel& kernel,
                                           const passes::BufferPlan& buffers, bool optimized,
                                           const exec::Options& options = exec::CurrentOptions());

  HostBackendStats stats() const;

 private:
  HostExecutor();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_EXECUTOR_H_
