//===- cost_model.h - What fusion weighs: flops, bytes moved, launches ----===//
//
// Whether a value shared by several kernels, or read through a broadcast, should be
// recomputed where it is read or written out once and read back is a trade between flops
// (recomputing) and bytes moved plus one more kernel launch (materializing). The model puts
// all three in one unit, flops, using the target's machine balance. Fusion's legality never
// depends on it; only these profitability decisions do.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_COST_MODEL_H_
#define GPUC_PASSES_COST_MODEL_H_

#include <string>

#include "ir/node.h"

namespace gpuc::passes {

struct CostModel {
  /// Flops the target does in the time it moves one byte to or from memory. The host: about
  /// 10 Gflop/s of scalar math per core against about 20 GB/s of memory bandwidth.
  double flops_per_byte = 0.5;
  /// One more kernel, in flops: the host's thread-pool dispatch and join, about 2 us.
  double launch_flops = 20000;
};

/// Flops to compute one element of `node`: 0 for views, 1 for cheap arithmetic, 4 for
/// division and square roots, 40 for libm functions (the op table's cost class).
double FlopsPerElement(const ir::Node& node);

struct RecomputeCost {
  double recompute = 0;    // the extra flops of computing the value `copies` times
  double materialize = 0;  // writing it once, reading it back `copies` times, one more kernel
  bool recompute_wins() const { return recompute <= materialize; }
  /// "2.6e+06 flops to recompute against 4.1e+05 to write it out and read it back".
  std::string ToString() const;
};

/// The cost of computing `node` `copies` times per element instead of materializing it.
RecomputeCost CompareRecompute(const ir::Node& node, double copies, const CostModel& model);

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_COST_MODEL_H_
