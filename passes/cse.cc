//===- cse.cc - Common subexpression elimination --------------------------===//
//
// Two nodes with the same op, type, attributes and (already deduplicated) operands compute the
// same value, since every IR op is a pure function of its operands; the later one is replaced
// by the earlier. Walking the body in order makes one pass enough: operands are deduplicated
// before their users are looked up.
//
//===----------------------------------------------------------------------===//
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "passes/graph_rewriter.h"
#include "passes/passes.h"

namespace gpuc::passes {
namespace {

// The identity of a node's value: op, result type, attributes and operand identities. The
// recording location and name hint are not part of it.
std::string ValueKey(const ir::Node& node, const std::vector<ir::NodeRef>& operands) {
  std::string key = absl::StrCat(static_cast<int>(node.op()), " ", node.type().ToString());
  for (const auto& [name, value] : node.attrs().entries()) {
    absl::StrAppend(&key, " ", name, "=", ir::PrintAttrValue(value));
  }
  for (const ir::NodeRef& operand : operands) {
    absl::StrAppend(&key, " ", reinterpret_cast<uintptr_t>(operand.get()));
  }
  return key;
}

class CommonSubexpressionElimination final : public Pass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::string_view description() const override {
    return "merge nodes that compute the same value from the same operands";
  }
  absl::StatusOr<bool> Run(ir::Graph& graph, PassContext& context) override {
    absl::flat_hash_map<std::string, ir::NodeRef> first;
    bool changed = false;
    ir::Graph rewritten =
        RewriteGraph(graph, [&](const ir::NodeRef& node, std::vector<ir::NodeRef> operands) {
          ir::NodeRef updated = WithOperands(node, std::move(operands));
          auto [it, inserted] = first.try_emplace(ValueKey(*updated, updated->operands()), updated);
          if (inserted || !context.ConsumeFuel()) return updated;
          changed = true;
          return it->second;
        });
    if (!changed) return false;
    graph = std::move(rewritten);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateCommonSubexpressionElimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace gpuc::passes
