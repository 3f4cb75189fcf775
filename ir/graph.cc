//===- graph.cc - A function of IR nodes ----------------------------------===//
#include "ir/graph.h"

#include "absl/container/flat_hash_set.h"

namespace gpuc::ir {

Graph Graph::FromResults(std::string name, std::vector<NodeRef> params,
                         std::vector<NodeRef> results) {
  Graph graph{std::move(name), std::move(params), {}, std::move(results)};
  absl::flat_hash_set<const Node*> visited;
  for (const NodeRef& p : graph.params) visited.insert(p.get());
  // Iterative post-order walk: recorded graphs can be deep chains (a loop of 10^5 steps), and
  // recursion would overflow the stack.
  struct Frame {
    const NodeRef* node;
    size_t next_operand;
  };
  std::vector<Frame> stack;
  for (const NodeRef& result : graph.results) {
    if (!visited.insert(result.get()).second) continue;
    stack.push_back({&result, 0});
    while (!stack.empty()) {
      Frame& top = stack.back();
      const Node& node = **top.node;
      if (top.next_operand < node.operands().size()) {
        const NodeRef& operand = node.operands()[top.next_operand++];
        if (visited.insert(operand.get()).second) stack.push_back({&operand, 0});
        continue;
      }
      graph.nodes.push_back(*top.node);
      stack.pop_back();
    }
  }
  return graph;
}

UseLists::UseLists(const Graph& graph) {
  for (const NodeRef& p : graph.params) users_[p.get()];
  for (const NodeRef& n : graph.nodes) {
    users_[n.get()];
    for (const NodeRef& operand : n->operands()) users_[operand.get()].push_back(n.get());
  }
  for (const NodeRef& r : graph.results) ++result_uses_[r.get()];
}

const std::vector<const Node*>& UseLists::UsersOf(const Node* node) const {
  static const std::vector<const Node*> kNone;
  auto it = users_.find(node);
  return it == users_.end() ? kNone : it->second;
}

int UseLists::ResultUses(const Node* node) const {
  auto it = result_uses_.find(node);
  return it == result_uses_.end() ? 0 : it->second;
}

}  // namespace gpuc::ir
