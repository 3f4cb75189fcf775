//===- gpuc/evaluation.h - When recorded graphs run -----------------------===//
//
// Arrays are evaluated on demand: explicitly (Array::eval, gpuc::eval), when their data is read,
// or automatically: when a statement records again while what it recorded the previous time is
// still pending (the next iteration of a loop: every pending array still alive is evaluated
// together, so a literal NumPy loop with no eval() runs one plan per step), and when a pending
// graph grows past a depth or size limit (a loop that records 10^6 steps must not build a
// 10^6-node graph). Every automatic evaluation is logged with its reason; set GPUC_EXPLAIN=1
// to print each one to stderr as it happens.
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
  /// kLoopStep: a statement recorded again while its previous result was still pending (the
  /// next iteration of a loop began): every pending array still alive was evaluated together.
  enum class Reason : uint8_t { kRead, kDepthLimit, kSizeLimit, kLoopStep };
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

/// Evaluation keeps the fused, compiled plan of each graph it runs, keyed by the graph's
/// structure (its ops, types, attributes, wiring and recording sites, but not the arrays it
/// reads), so a loop that records the same step every iteration plans and compiles it once;
/// later steps cost a lookup and the launches. Values are not structure (decision 11): a C++
/// scalar or gpuc::scalar that changes every step (`x * t` with a new `t`) is an input of the
/// plan, except 0 and 1, on which rewrites (x + 0, x * 1) specialize the plan; slice and
/// subscript positions are arguments of the compiled kernels, so a loop over a moving window
/// plans per position but compiles its kernels once.
struct PlanCacheStats {
  int64_t hits = 0;      // evaluations that found their plan
  int64_t misses = 0;    // evaluations that planned (and stored) a new one
  int64_t entries = 0;   // plans held now
  int64_t capacity = 0;  // the most plans held (least recently used dropped first)
};
PlanCacheStats plan_cache_stats();
/// 0 turns the cache off (every evaluation plans afresh); the default holds 256 plans.
void set_plan_cache_capacity(int64_t capacity);
/// Drops every plan and zeroes the counters.
void clear_plan_cache();

/// Kernels found or compiled by every back end of this process since it started. A loop
/// whose structure repeats stops compiling after its first iterations: `compiled` stays flat
/// while the iteration count grows.
struct KernelCompileStats {
  int64_t compiled = 0;          // generated and compiled (LLVM; on the GPU also PTX to SASS)
  int64_t loaded_from_disk = 0;  // found in the on-disk kernel cache of an earlier process
  int64_t found_in_memory = 0;   // already loaded in this process
  int64_t compile_microseconds = 0;
};
KernelCompileStats kernel_compile_stats();

}  // namespace gpuc

#endif  // GPUC_EVALUATION_H_
