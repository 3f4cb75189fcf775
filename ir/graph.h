//===- graph.h - A function of IR nodes: parameters, body, results --------===//
//
// A Graph is what a pass, the interpreter or a backend works on: named parameters, the nodes of
// the body in an order where each node follows its operands, and the results. Nodes are shared
// and immutable (ir/node.h), so the use lists are computed per graph.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_GRAPH_H_
#define GPUC_IR_GRAPH_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/node.h"

namespace gpuc::ir {

struct Graph {
  std::string name;
  std::vector<NodeRef> params;   // op == kParameter, in signature order
  std::vector<NodeRef> nodes;    // the body, each node after its operands; no parameters
  std::vector<NodeRef> results;  // params or body nodes; may repeat

  /// Collects the body reachable from `results` in a valid order (operands first, otherwise
  /// in first-visit order). Parameter nodes reached must be in `params`; the verifier reports
  /// any that are not.
  static Graph FromResults(std::string name, std::vector<NodeRef> params,
                           std::vector<NodeRef> results);
};

/// Users of every node of a graph, in body order; a result counts as a use by the graph.
class UseLists {
 public:
  explicit UseLists(const Graph& graph);
  /// The nodes that read `node` (once per operand slot).
  const std::vector<const Node*>& UsersOf(const Node* node) const;
  /// How often `node` is a graph result.
  int ResultUses(const Node* node) const;

 private:
  absl::flat_hash_map<const Node*, std::vector<const Node*>> users_;
  absl::flat_hash_map<const Node*, int> result_uses_;
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_GRAPH_H_
