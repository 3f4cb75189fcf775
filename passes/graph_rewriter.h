//===- graph_rewriter.h - Rebuild a graph node by node --------------------===//
//
// The one way passes change a graph: walk the body in order, let a callback replace each node
// given its already-rewritten operands, and collect the new body from the results. Collecting
// from the results drops every node nothing reads any more, so each pass also removes the dead
// code its rewrites leave behind.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_GRAPH_REWRITER_H_
#define GPUC_PASSES_GRAPH_REWRITER_H_

#include <functional>
#include <vector>

#include "ir/graph.h"

namespace gpuc::passes {

/// Returns the node to use in place of `node`, whose operands have become `operands` (the
/// rewritten versions of node's operands, in order). Returning `node` itself when the operands
/// did not change keeps it shared with the front end.
using NodeRewrite =
    std::function<ir::NodeRef(const ir::NodeRef& node, std::vector<ir::NodeRef> operands)>;

/// `node` with `operands` in place of its own, keeping op, type, attributes, name and the
/// recording location; `node` itself when the operands are the same nodes.
ir::NodeRef WithOperands(const ir::NodeRef& node, std::vector<ir::NodeRef> operands);

/// Applies `rewrite` to every body node in order and rebuilds the graph from the rewritten
/// results. Parameters are kept as they are (they are the signature).
ir::Graph RewriteGraph(const ir::Graph& graph, const NodeRewrite& rewrite);

/// Whether two graphs have the same body and results, node for node (not structurally).
bool SameNodes(const ir::Graph& a, const ir::Graph& b);

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_GRAPH_REWRITER_H_
