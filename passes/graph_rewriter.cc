//===- graph_rewriter.cc - Rebuild a graph node by node -------------------===//
#include "passes/graph_rewriter.h"

#include "absl/container/flat_hash_map.h"

namespace gpuc::passes {

ir::NodeRef WithOperands(const ir::NodeRef& node, std::vector<ir::NodeRef> operands) {
  if (operands == node->operands()) return node;
  return ir::Node::Create(node->op(), node->type(), std::move(operands), node->attrs(),
                          node->name(), node->location());
}

ir::Graph RewriteGraph(const ir::Graph& graph, const NodeRewrite& rewrite) {
  absl::flat_hash_map<const ir::Node*, ir::NodeRef> replaced;
  auto current = [&](const ir::NodeRef& n) -> const ir::NodeRef& {
    auto it = replaced.find(n.get());
    return it == replaced.end() ? n : it->second;
  };
  for (const ir::NodeRef& node : graph.nodes) {
    std::vector<ir::NodeRef> operands;
    operands.reserve(node->operands().size());
    for (const ir::NodeRef& operand : node->operands()) operands.push_back(current(operand));
    ir::NodeRef result = rewrite(node, std::move(operands));
    if (result != node) replaced[node.get()] = std::move(result);
  }
  std::vector<ir::NodeRef> results;
  results.reserve(graph.results.size());
  for (const ir::NodeRef& r : graph.results) results.push_back(current(r));
  return ir::Graph::FromResults(graph.name, graph.params, std::move(results));
}

bool SameNodes(const ir::Graph& a, const ir::Graph& b) {
  return a.nodes == b.nodes && a.results == b.results && a.params == b.params;
}

}  // namespace gpuc::passes
