//===- verifier.h - Structural and type checks of a graph -----------------===//
//
// Verify() accepts exactly the graphs every pass and backend may assume: each node defined once
// and after its operands (hence acyclic), parameters only in the signature, arity, attributes and
// result types as ir/type_inference.cc derives them. Messages name the node ("%y = add: ...").
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_VERIFIER_H_
#define GPUC_IR_VERIFIER_H_

#include "absl/status/status.h"
#include "ir/graph.h"

namespace gpuc::ir {

absl::Status Verify(const Graph& graph);

}  // namespace gpuc::ir

#endif  // GPUC_IR_VERIFIER_H_
