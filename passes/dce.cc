//===- dce.cc - Dead code elimination -------------------------------------===//
//
// Keeps only the body nodes a result depends on. Every IR op is pure (no op has an effect
// beyond its value), so anything the results do not read can go.
//
//===----------------------------------------------------------------------===//
#include "passes/passes.h"

namespace gpuc::passes {
namespace {

class DeadCodeElimination final : public Pass {
 public:
  absl::string_view name() const override { return "dce"; }
  absl::string_view description() const override {
    return "remove nodes that no result depends on";
  }
  absl::StatusOr<bool> Run(ir::Graph& graph, PassContext& context) override {
    ir::Graph live = ir::Graph::FromResults(graph.name, graph.params, graph.results);
    if (live.nodes.size() == graph.nodes.size() || !context.ConsumeFuel()) return false;
    graph = std::move(live);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateDeadCodeElimination() {
  return std::make_unique<DeadCodeElimination>();
}

}  // namespace gpuc::passes
