//===- constant_value.h - Reading and folding constant nodes --------------===//
//
// A `constant` node is its type filled with one value (docs/ir.md). These helpers read that
// value, make constants, and fold an elementwise node whose operands are all constants into
// one constant, by running the reference interpreter on one element: folding therefore rounds
// exactly as evaluation would.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_CONSTANT_VALUE_H_
#define GPUC_PASSES_CONSTANT_VALUE_H_

#include <optional>

#include "ir/node.h"
#include "ir/wide_value.h"

namespace gpuc::passes {

/// The value of a constant node, converted to its dtype; nullopt for any other node.
std::optional<ir::WideValue> ConstantValue(const ir::Node& node);

/// A constant of `type` filled with `value` (already of type's dtype); null when the value has
/// no attribute form (a uint64 above INT64_MAX).
ir::NodeRef MakeConstant(const ir::TensorType& type, const ir::WideValue& value,
                         const std::string& name, const std::string& location);

/// `node` (elementwise, every operand a constant) as one constant; null when it cannot be
/// folded (the op fails on these values, or the value has no attribute form).
ir::NodeRef FoldElementwise(const ir::Node& node);

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_CONSTANT_VALUE_H_
