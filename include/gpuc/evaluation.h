//===- gpuc/evaluation.h - When recorded graphs run -----------------------===//
//
// Arrays are evaluated on demand: explicitly (Array::eval, gpuc::eval), when their data is read,
// or automatically when a pending graph grows past a depth or size limit (a loop that records
// 10^6 steps must not build a 10^6-node graph). Every automatic evaluation is logged with its
// reason; set GPUC_EXPLAIN=1 to print each one to stderr as it happens.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_EVALUATION_H_
#define GPUC_EVALUATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

/// Evaluates the arrays together as one plan, so that siblings share work (and, with the
/// compiled back ends, fuse into multi-output kernels).
void eval(const std::vector<Array>& arrays);

/// One evaluation that the user did not ask for by name.
struct EvalRecord {
  enum class Reason : uint8_t { kRead, kDepthLimit, kSizeLimit };
  Reason reason;
  /// What triggered it and the arrays evaluated: "to_host of f32[3] (reading data)".
  std::string description;
};

/// The automatic evaluations so far on this thread (the most recent 1024).
std::vector<EvalRecord> eval_log();
void clear_eval_log();

/// Pending graphs are evaluated when their depth (the longest chain of pending ops) or their
/// size (an upper bound on the pending nodes) passes these limits.
struct AutoEvalLimits {
  int64_t max_depth = 2048;
  int64_t max_nodes = 16384;
};
AutoEvalLimits auto_eval_limits();
void set_auto_eval_limits(AutoEvalLimits limits);

}  // namespace gpuc

#endif  // GPUC_EVALUATION_H_
