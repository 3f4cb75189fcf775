//===- pass_manager.h - Named pipelines of passes -------------------------===//
//
// A PassManager runs passes in order over a graph, timing each, verifying the graph after each
// one (always in debug builds, on request otherwise) so that a pass that breaks the IR is named
// at once, and printing the graph after each pass on request (`gpuc --print-after-all`).
// Pipelines are spelled as comma-separated pass names: "canonicalize,cse,dce".
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_PASS_MANAGER_H_
#define GPUC_PASSES_PASS_MANAGER_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass.h"

namespace gpuc::passes {

struct PassManagerOptions {
#ifdef NDEBUG
  bool verify_each = false;
#else
  bool verify_each = true;
#endif
  /// Where --print-after-all output goes; null: nowhere.
  std::ostream* print_after_all = nullptr;
  /// Rewrites allowed in the whole run; < 0 unlimited (see PassContext).
  int64_t fuel = -1;
};

struct PassTiming {
  std::string pass;
  double seconds = 0;
  bool changed = false;
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}) : options_(std::move(options)) {}

  void Add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  /// The pass names in order, comma-separated.
  std::string PipelineText() const;

  /// Runs every pass on `graph`. On an error `graph` holds the last valid result and the
  /// message names the pass.
  absl::Status Run(ir::Graph& graph);

  /// Per pass of the last Run, in order.
  const std::vector<PassTiming>& timings() const { return timings_; }
  /// A table of the last Run's timings, as `gpuc --time-passes` prints it.
  std::string TimingReport() const;
  /// Rewrites the last Run made.
  int64_t rewrites() const { return rewrites_; }

 private:
  PassManagerOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassTiming> timings_;
  int64_t rewrites_ = 0;
};

/// The pipeline evaluation and `gpuc --emit=opt` run when no other is given.
std::string DefaultPipeline();

/// Every pass a pipeline can name, with its description, in name order.
std::vector<std::pair<std::string, std::string>> RegisteredPasses();

/// A new instance of the pass called `name`; an error listing the known names otherwise.
absl::StatusOr<std::unique_ptr<Pass>> CreatePass(absl::string_view name);

/// A manager for "name,name,..." (empty: no passes).
absl::StatusOr<PassManager> BuildPipeline(absl::string_view pipeline, PassManagerOptions options);

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_PASS_MANAGER_H_
