//===- node.cc - Immutable IR nodes and tensor types ----------------------===//
#include "ir/node.h"

#include "absl/strings/str_cat.h"

namespace gpuc::ir {

std::string TensorType::ToString() const {
  return absl::StrCat(DTypeName(dtype), shape.ToString());
}

NodeRef Node::Create(OpCode op, TensorType type, std::vector<NodeRef> operands, Attributes attrs,
                     std::string name, std::string location) {
  Node* node =
      new Node(op, std::move(type), std::move(operands), std::move(attrs), std::move(name));
  node->location_ = std::move(location);
  return NodeRef(node);
}

NodeRef Node::CreateBound(TensorType type, std::shared_ptr<const Binding> binding,
                          std::string name) {
  Node* node = new Node(OpCode::kParameter, std::move(type), {}, {}, std::move(name));
  node->binding_ = std::move(binding);
  return NodeRef(node);
}

Node::~Node() {
  std::vector<NodeRef> pending = std::move(operands_);
  while (!pending.empty()) {
    NodeRef node = std::move(pending.back());
    pending.pop_back();
    if (node.use_count() == 1) {
      // The last owner: take its operands now so that releasing it recurses no further.
      for (NodeRef& operand : node->operands_) pending.push_back(std::move(operand));
      node->operands_.clear();
    }
  }
}

}  // namespace gpuc::ir
