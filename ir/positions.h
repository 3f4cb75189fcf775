//===- positions.h - Slice positions as values of a plan, not its structure ===//
//
// A loop over a window (`x(k)`, `a(Slice(i, i + 5))`) records the same graph every step
// but for the offsets of its slices: slice and update_slice starts, pad lows. Evaluation
// keys such graphs by structure with the offsets left out (only which are zero counts) and
// passes the offsets to the compiled plan as its positions: position p is the p-th nonzero
// offset in graph order (node by node, axis by axis).
//
// The graph a plan is compiled from carries, on each node with a nonzero offset, attribute
// `positions`: per axis the position number of its offset, or -1 for zero. Passes keep node
// attributes, so the lowered nodes still say where their offsets come from; kernels take those
// offsets as arguments (codegen/kernel_spec.h), and steps that read attributes substitute them
// (WithPositions).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_POSITIONS_H_
#define GPUC_IR_POSITIONS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ir/attributes.h"
#include "ir/node.h"

namespace gpuc::ir {

/// The attribute of `node` that holds offsets ("start" of slice and update_slice, "low" of
/// pad), or null for other ops.
const char* OffsetAttribute(const Node& node);

/// Appends the nonzero offsets of `node` to `positions`, in axis order.
void AppendPositions(const Node& node, std::vector<int64_t>& positions);

/// `node`'s attributes with position numbers added (`positions` attribute; `next` counts
/// the positions numbered so far), or nothing when it has no nonzero offset.
std::optional<Attributes> NumberPositions(const Node& node, int64_t& next);

/// `node`'s attributes with the offsets its `positions` attribute names read from
/// `positions` (a slice's or update_slice's stop moved with its start); the attributes as
/// they are when it names none or `positions` is empty.
Attributes WithPositions(const Node& node, absl::Span<const int64_t> positions);

/// `node` as a run at `positions` places it: a copy with WithPositions' attributes (the
/// operands stay `node`'s), or `node` itself when it has no numbered offset or `positions` is
/// empty.
NodeRef PlacedAt(const NodeRef& node, absl::Span<const int64_t> positions);

/// The position number of offset `axis` of `node`, or -1 (zero, or not numbered).
int64_t PositionOf(const Node& node, int axis);

}  // namespace gpuc::ir

#endif  // GPUC_IR_POSITIONS_H_
