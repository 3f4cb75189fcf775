//===- plan_values.cc - What both executors do with a plan's values -------===//
#include "lib/exec/plan_values.h"

namespace gpuc::detail {

absl::flat_hash_map<const ir::Node*, const ir::Node*> InPlaceOutputs(
    const passes::FusedKernel& kernel, const passes::BufferPlan& buffers) {
  absl::flat_hash_map<const ir::Node*, const ir::Node*> in_place;
  for (const ir::NodeRef& out : kernel.outputs) {
    auto it = buffers.in_place.find(out.get());
    if (it != buffers.in_place.end()) in_place[out.get()] = it->second;
  }
  return in_place;
}

void ScheduledGraph::Schedule(const ir::Graph& source, const passes::FusionBudgets& budgets) {
  graph = source;
  fusion = passes::PlanFusion(graph, budgets);
  buffers = passes::PlanBuffers(graph, fusion);
  for (const passes::FusedKernel& kernel : fusion.kernels) {
    for (const ir::NodeRef& in : kernel.inputs) ++readers[in.get()];
  }
  for (const ir::NodeRef& r : graph.results) kept.insert(r.get());
  for (const ir::NodeRef& p : graph.params) kept.insert(p.get());
}

}  // namespace gpuc::detail
