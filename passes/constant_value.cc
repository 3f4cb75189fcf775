//===- constant_value.cc - Reading and folding constant nodes -------------===//
#include "passes/constant_value.h"

#include <limits>

#include "ir/graph.h"
#include "ir/interpreter.h"

namespace gpuc::passes {

std::optional<ir::WideValue> ConstantValue(const ir::Node& node) {
  if (node.op() != ir::OpCode::kConstant) return std::nullopt;
  // An absent value means 0, as in evaluation; other attribute types fail the verifier.
  std::optional<ir::WideValue> value = ir::ScalarAttribute(node.attrs());
  if (!value) return std::nullopt;
  return ir::ConvertTo(node.dtype(), *value);
}

ir::NodeRef MakeConstant(const ir::TensorType& type, const ir::WideValue& value,
                         const std::string& name, const std::string& location) {
  ir::AttrValue attr;
  switch (value.domain) {
    case ir::DTypeKind::kBool:
      attr = value.b;
      break;
    case ir::DTypeKind::kSigned:
      attr = value.i;
      break;
    case ir::DTypeKind::kUnsigned:
      if (value.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return nullptr;
      attr = static_cast<int64_t>(value.u);
      break;
    case ir::DTypeKind::kFloat:
      attr = value.f;
      break;
    case ir::DTypeKind::kComplex:
      attr = value.c;
      break;
  }
  return ir::Node::Create(ir::OpCode::kConstant, type, {}, ir::Attributes{{"value", attr}}, name,
                          location);
}

ir::NodeRef FoldElementwise(const ir::Node& node) {
  // Every element of the result is the op applied to the operands' one value each: evaluate a
  // 0-d copy of the node on 0-d copies of the constants.
  std::vector<ir::NodeRef> scalars;
  for (const ir::NodeRef& operand : node.operands()) {
    std::optional<ir::WideValue> v = ConstantValue(*operand);
    if (!v) return nullptr;
    ir::NodeRef scalar = MakeConstant({operand->dtype(), ir::Shape()}, *v, "", "");
    if (!scalar) return nullptr;
    scalars.push_back(std::move(scalar));
  }
  ir::NodeRef one =
      ir::Node::Create(node.op(), {node.dtype(), ir::Shape()}, std::move(scalars), node.attrs());
  absl::StatusOr<std::vector<ir::HostTensor>> result =
      ir::Interpret(ir::Graph::FromResults("fold", {}, {one}), {});
  if (!result.ok()) return nullptr;
  return MakeConstant(node.type(), ir::LoadElement(node.dtype(), (*result)[0].element(0)),
                      node.name(), node.location());
}

}  // namespace gpuc::passes
