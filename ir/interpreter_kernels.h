//===- interpreter_kernels.h - The interpreter's per-kind evaluators ------===//
//
// Internal to the interpreter: one function per op kind, each computing a node's value from
// its operands' values. Split by kind so that each file stays one job.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_INTERPRETER_KERNELS_H_
#define GPUC_IR_INTERPRETER_KERNELS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::ir::interp {

using Operands = std::vector<const HostTensor*>;

/// Offset into a row-major operand of `operand_shape` for the output index `out_index`, with
/// NumPy broadcasting (the operand's axes align to the right; extent-1 axes repeat).
int64_t BroadcastOffset(absl::Span<const int64_t> out_index, const Shape& operand_shape);

HostTensor EvalElementwiseNode(const Node& node, const Operands& operands);
HostTensor EvalReductionNode(const Node& node, const HostTensor& input);
HostTensor EvalScanNode(const Node& node, const HostTensor& input);
/// sort and argsort along their axis (ir/sort_order.h), stable.
HostTensor EvalSortNode(const Node& node, const HostTensor& input);
HostTensor EvalDataMovementNode(const Node& node, const Operands& operands);
/// take: an index out of range is an error (NumPy raises IndexError).
absl::StatusOr<HostTensor> EvalTakeNode(const Node& node, const HostTensor& data,
                                        const HostTensor& indices);
/// scatter: out-of-range indices are errors too.
absl::StatusOr<HostTensor> EvalScatterNode(const Node& node, const HostTensor& data,
                                           const HostTensor& indices, const HostTensor& values);
/// The error of take or scatter `node` (over `data`, along `axis`) for an index outside the
/// axis: NumPy's IndexError text, or the public function's (bincount's) when it recorded one.
/// Back ends that check indices on the device report through it too.
absl::Status IndexOutOfBoundsError(const Node& node, const TensorType& data, int64_t index,
                                   int axis);
absl::StatusOr<HostTensor> EvalLibraryNode(const Node& node, const Operands& operands);

}  // namespace gpuc::ir::interp

#endif  // GPUC_IR_INTERPRETER_KERNELS_H_
