//===- bench_util.h - What bench_gpu's workloads share --------------------===//
//
// Timing with CUDA events (batches of back-to-back runs, median over batches), random
// device-resident inputs (never zeros), the default pass pipeline over .gir text, and the one
// JSON line per figure that bench/gpu/table.py reads. bench_gpu is a benchmark: a failed
// call ends the process with the status's message.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_BENCH_GPU_BENCH_UTIL_H_
#define GPUC_BENCH_GPU_BENCH_UTIL_H_

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuc/array.h"
#include "ir/graph.h"
#include "lib/backend/cuda/gpu_executor.h"

namespace gpuc::bench {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const absl::Status& s);
template <typename T>
T Must(absl::StatusOr<T> v) {
  if (!v.ok()) Die(v.status());
  return *std::move(v);
}
void Must(const absl::Status& s);

double Median(std::vector<double> v);
double MillisecondsSince(Clock::time_point start);

/// `text` with every key replaced by its number (sizes in .gir templates).
std::string Substitute(std::string text,
                       const std::vector<std::pair<std::string, int64_t>>& values);

/// Parsed, verified and run through the default pass pipeline.
ir::Graph Optimized(const std::string& text);

/// A device-resident random input of `type`: uniform in [low, high), generated on the GPU by
/// gpuc (complex: real and imaginary parts drawn alike, as the float pairs they are stored as).
detail::DeviceTensor RandomInput(detail::GpuExecutor& gpu, const ir::TensorType& type,
                                 uint64_t seed, double low, double high);

struct Timing {
  double ms = 0;
  int kernels = 0;
};

/// Median milliseconds of one run of `plan`, from batches of `batch` runs between events.
Timing TimePlan(detail::GpuExecutor& gpu, const detail::GpuPlan& plan,
                const std::vector<detail::DeviceTensor>& args, int batches, int batch);

/// Times calls of `run` through the public API, each evaluated and synchronized: the first
/// (compiles included) as cold_ms and the median of `repeat` later ones as ms, reported as
/// `name`.
void TimeApiCall(const std::string& name, const std::function<Array()>& run, int repeat = 7);

/// "gpuc", or GPUC_BENCH_LABEL (device-check.sh labels its variants: "gpuc+fast-math", ...).
std::string Label();

/// One JSON line: {"impl": impl, "workload": name, metric: value<extra>}.
void ReportAs(const std::string& impl, const std::string& name, const std::string& metric,
              double value, const std::string& extra = "");
inline void Report(const std::string& name, const std::string& metric, double value,
                   const std::string& extra = "") {
  ReportAs(Label(), name, metric, value, extra);
}

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_GPU_BENCH_UTIL_H_
