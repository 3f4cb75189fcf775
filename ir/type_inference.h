//===- type_inference.h - Result types of IR operations -------------------===//
//
// The single place that knows each op's typing rule (dtype promotion, loop selection, result
// shapes, attribute validity). The verifier checks recorded nodes against it; the front end
// calls it when an op is recorded, so a shape or dtype mistake fails there and then.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_TYPE_INFERENCE_H_
#define GPUC_IR_TYPE_INFERENCE_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/attributes.h"
#include "ir/node.h"
#include "ir/op.h"

namespace gpuc::ir {

/// Infers the result type of `op` applied to operands of types `operands` with `attrs`.
/// Ops whose result type is stated rather than derived (cast, reshape, broadcast_to, iota,
/// constant, parameter) need `requested`, which is then validated and returned. Errors start
/// with the op's name and name the offending shapes, dtypes or attribute.
absl::StatusOr<TensorType> InferResultType(OpCode op, absl::Span<const TensorType> operands,
                                           const Attributes& attrs,
                                           const std::optional<TensorType>& requested);

/// The dtype `op` computes in for these operands (the selected loop); for ops without a
/// loop (data movement, where, cast) the result dtype.
absl::StatusOr<DType> ComputeDType(OpCode op, absl::Span<const TensorType> operands);

/// The extent of a Python-style slice after normalization (as slice.indices gives it).
int64_t SliceLength(int64_t start, int64_t stop, int64_t step);

}  // namespace gpuc::ir

#endif  // GPUC_IR_TYPE_INFERENCE_H_
