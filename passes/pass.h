//===- pass.h - One graph-to-graph transformation -------------------------===//
//
// A Pass rewrites an ir::Graph. Nodes are immutable and shared with the front end's arrays, so
// a pass never edits a node: it builds new nodes and replaces the graph's body and results
// (passes/graph_rewriter.h). Every rewrite a pass makes first asks the PassContext for fuel, so
// a bad rewrite can be bisected: `gpuc --fuel=N` allows only the first N rewrites.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_PASS_H_
#define GPUC_PASSES_PASS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/graph.h"

namespace gpuc::passes {

/// State shared by the passes of one pipeline run.
class PassContext {
 public:
  /// `fuel` < 0: unlimited rewrites.
  explicit PassContext(int64_t fuel = -1) : fuel_(fuel) {}

  /// Spends one unit of fuel for one rewrite; false when none is left (the rewrite must then
  /// not be made).
  bool ConsumeFuel() {
    if (fuel_ == 0) return false;
    if (fuel_ > 0) --fuel_;
    ++rewrites_;
    return true;
  }
  int64_t rewrites() const { return rewrites_; }
  int64_t fuel_left() const { return fuel_; }

 private:
  int64_t fuel_;
  int64_t rewrites_ = 0;
};

class Pass {
 public:
  virtual ~Pass() = default;
  /// The name pipelines use: "canonicalize".
  virtual absl::string_view name() const = 0;
  /// One line for `gpuc --list-passes`.
  virtual absl::string_view description() const = 0;
  /// Rewrites `graph`; returns whether anything changed. An error leaves `graph` unchanged.
  virtual absl::StatusOr<bool> Run(ir::Graph& graph, PassContext& context) = 0;
};

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_PASS_H_
