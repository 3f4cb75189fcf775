//===- interpreter_elementwise.cc - Elementwise nodes, with broadcasting --===//
#include <vector>

#include "ir/elementwise_semantics.h"
#include "ir/interpreter_kernels.h"
#include "ir/type_inference.h"
#include "ir/wide_value.h"

namespace gpuc::ir::interp {

int64_t BroadcastOffset(absl::Span<const int64_t> out_index, const Shape& operand_shape) {
  int shift = static_cast<int>(out_index.size()) - operand_shape.rank();
  int64_t offset = 0;
  for (int i = 0; i < operand_shape.rank(); ++i) {
    int64_t extent = operand_shape[i];
    offset = offset * extent + (extent == 1 ? 0 : out_index[i + shift]);
  }
  return offset;
}

HostTensor EvalElementwiseNode(const Node& node, const Operands& operands) {
  HostTensor out(node.type());
  std::vector<TensorType> types;
  for (const HostTensor* t : operands) types.push_back(t->type());
  // where and cast convert their value operands straight to the result dtype; every other op
  // first converts to its loop dtype (which the verifier has checked exists).
  const OpCode op = node.op();
  const bool is_select = op == OpCode::kWhere;
  const bool is_cast = op == OpCode::kCast;
  DType loop = node.dtype();
  if (!is_select && !is_cast) loop = *ComputeDType(op, types);

  std::vector<int64_t> index(node.shape().rank());
  std::vector<WideValue> args(operands.size());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    UnflattenIndex(i, node.shape(), absl::MakeSpan(index));
    for (size_t k = 0; k < operands.size(); ++k) {
      const HostTensor& t = *operands[k];
      args[k] = LoadElement(t.dtype(), t.element(BroadcastOffset(index, t.shape())));
    }
    WideValue result;
    if (is_cast) {
      result = args[0];
    } else if (is_select) {
      result = args[0].b ? args[1] : args[2];
    } else {
      for (WideValue& a : args) a = ConvertTo(loop, a);
      result = EvalElementwise(op, loop, args);
    }
    StoreElement(node.dtype(), out.element(i), result);
  }
  return out;
}

}  // namespace gpuc::ir::interp
