//===- structural_key.h - A graph's identity up to its inputs' storage -----===//
//
// Two graphs with equal structural keys compute the same function in the same way: the same
// ops, result types, attributes and recording locations, the same operand wiring (a node read
// twice is one node in both), the same results, and parameters of the same types in the same
// positions. What the parameters are bound to and the nodes' name hints are left out, so a
// loop that records the same step over new arrays produces the same key each time: the
// evaluator's plan cache (lib/eval/plan_cache.h) finds the step's fused, compiled plan by it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_STRUCTURAL_KEY_H_
#define GPUC_IR_STRUCTURAL_KEY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace gpuc::ir {

/// A compact byte string (not printable) identifying `graph`'s structure, as above, within this
/// process: a recording location is keyed by the address of its interned text (ir/node.h),
/// which is one per text and lives as long as the process. Linear in the graph's size; every
/// node reached from the results must be in `params` or `nodes`.
std::string StructuralKey(const Graph& graph);

/// The same with slice positions left out (ir/positions.h): offsets are keyed only by which
/// are zero, and the nonzero ones are appended to `positions` in position order. Two graphs
/// that differ only in where their slices start have one key.
std::string StructuralKey(const Graph& graph, std::vector<int64_t>& positions);

}  // namespace gpuc::ir

#endif  // GPUC_IR_STRUCTURAL_KEY_H_
