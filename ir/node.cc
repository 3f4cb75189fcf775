//===- node.cc - Immutable IR nodes and tensor types ----------------------===//
#include "ir/node.h"

#include "absl/strings/str_cat.h"

namespace gpuc::ir {

std::string TensorType::ToString() const {
  return absl::StrCat(DTypeName(dtype), shape.ToString());
}

NodeRef Node::Create(OpCode op, TensorType type, std::vector<NodeRef> operands, Attributes attrs,
                     std::string name) {
  return NodeRef(new Node(op, std::move(type), std::move(operands), std::move(attrs),
                          std::move(name)));
}

}  // namespace gpuc::ir
