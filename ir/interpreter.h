//===- interpreter.h - The reference interpreter: the oracle --------------===//
//
// Evaluates any verified graph on the host, one element at a time, computing in float64
// (complex128 for complex, int64/uint64 for integers) and rounding once to each node's dtype.
// Every backend is tested against it, so it is written for clarity, not speed.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_INTERPRETER_H_
#define GPUC_IR_INTERPRETER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace gpuc::ir {

/// Runs `graph` on `args` (one per parameter, of the parameter's exact type). The graph must
/// have passed Verify(). Data-dependent errors (an spmv column index out of range) are
/// returned, not undefined.
/// One node on its operands' values (the step Interpret takes per node); errors carry the
/// node's recording site.
absl::StatusOr<HostTensor> InterpretNode(const Node& node,
                                         const std::vector<const HostTensor*>& operands);

absl::StatusOr<std::vector<HostTensor>> Interpret(const Graph& graph,
                                                  absl::Span<const HostTensor> args);

}  // namespace gpuc::ir

#endif  // GPUC_IR_INTERPRETER_H_
