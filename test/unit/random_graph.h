//===- random_graph.h - Seeded random IR graphs for differential tests ----===//
//
// Builds verified graphs of elementwise ops (with broadcasting), casts, views, reductions and
// occasional library ops over a few parameters, from a seed. The fusion tests check the plan's
// invariants on them; the compiled back ends are checked against the interpreter on the same
// graphs, so one seed reproduces a failure everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_TEST_UNIT_RANDOM_GRAPH_H_
#define GPUC_TEST_UNIT_RANDOM_GRAPH_H_

#include <cstdint>

#include "ir/graph.h"

namespace gpuc::test {

struct RandomGraphOptions {
  int num_params = 3;
  int num_nodes = 32;
  int num_results = 3;
  bool allow_library = true;  // matmul nodes
  /// Every dtype for parameters and casts (otherwise f32, f64 and i32).
  bool all_dtypes = false;
  /// Every elementwise op and reduction, where, slices, pads, concatenations, gathers,
  /// iotas and scans (otherwise a core set of each).
  bool all_ops = false;
};

/// A verified graph drawn from `seed`; the same seed gives the same graph.
ir::Graph RandomGraph(uint64_t seed, const RandomGraphOptions& options = {});

}  // namespace gpuc::test

#endif  // GPUC_TEST_UNIT_RANDOM_GRAPH_H_
