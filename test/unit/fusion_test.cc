//===- fusion_test.cc - Fusion plans keep their invariants on random graphs -===//
//
// For hundreds of seeded random graphs (more with GPUC_FUSION_GRAPHS=N): every body node is
// computed by some kernel; kernels come in dependency order; each kernel reads only
// parameters, constants or earlier kernels' outputs; the reductions of a kernel share one
// signature; library ops and scans are alone; results are stored; no reduction is
// computed twice, and a node is computed in several kernels only where the cost model
// prefers that to materializing it; budgets hold. The lit tests (test/lit/fusion/) check the
// decisions on the named workloads.
//
//===----------------------------------------------------------------------===//
#include "passes/fusion.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass_manager.h"
#include "test/unit/random_graph.h"

namespace gpuc::passes {
namespace {

int GraphCount() {
  const char* env = std::getenv("GPUC_FUSION_GRAPHS");
  return env ? std::atoi(env) : 400;
}

void CheckPlan(const ir::Graph& graph, const FusionPlan& plan, const FusionBudgets& budgets) {
  absl::flat_hash_set<const ir::Node*> stored;  // outputs of the kernels placed so far
  absl::flat_hash_map<const ir::Node*, int> computed;
  for (const ir::NodeRef& p : graph.params) stored.insert(p.get());
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const FusedKernel& kernel = plan.kernels[k];
    SCOPED_TRACE(testing::Message() << "kernel " << k);
    ASSERT_FALSE(kernel.nodes.empty());
    absl::flat_hash_set<const ir::Node*> members;
    for (const ir::NodeRef& n : kernel.nodes) members.insert(n.get());
    for (const ir::NodeRef& in : kernel.inputs) {
      EXPECT_FALSE(members.contains(in.get()));
      EXPECT_TRUE(stored.contains(in.get()) || in->op() == ir::OpCode::kConstant)
          << ir::OpName(in->op()) << " read before any kernel stores it";
    }
    int reductions = 0;
    for (const ir::NodeRef& n : kernel.nodes) {
      ++computed[n.get()];
      for (const ir::NodeRef& op : n->operands()) {
        EXPECT_TRUE(members.contains(op.get()) ||
                    std::find(kernel.inputs.begin(), kernel.inputs.end(), op) !=
                        kernel.inputs.end());
      }
      const ir::OpKind kind = n->info().kind;
      if (kind == ir::OpKind::kLibrary || kind == ir::OpKind::kScan) {
        EXPECT_EQ(kernel.nodes.size(), 1u) << "a library op or scan shares its kernel";
      }
      if (kind == ir::OpKind::kReduction) {
        ++reductions;
        EXPECT_EQ(n->operand(0).shape(), kernel.reduced_shape);
        EXPECT_EQ(*n->attrs().Get<std::vector<int64_t>>("axes"), kernel.reduced_axes);
      }
    }
    EXPECT_LE(reductions, budgets.max_reductions);
    EXPECT_LE(static_cast<int>(kernel.nodes.size()), budgets.max_nodes);
    int arrays = static_cast<int>(kernel.outputs.size());
    for (const ir::NodeRef& in : kernel.inputs) arrays += in->op() == ir::OpCode::kConstant ? 0 : 1;
    // A single node over the budget cannot be split further; anything larger must fit.
    if (kernel.nodes.size() > 1) EXPECT_LE(arrays, budgets.max_kernel_arrays);
    for (const ir::NodeRef& out : kernel.outputs) {
      EXPECT_TRUE(members.contains(out.get()));
      stored.insert(out.get());
    }
  }
  for (const ir::NodeRef& n : graph.nodes) {
    EXPECT_GE(computed[n.get()], 1) << ir::OpName(n->op()) << " is computed by no kernel";
    if (n->info().kind == ir::OpKind::kReduction) {
      EXPECT_EQ(computed[n.get()], 1) << ir::OpName(n->op()) << " is computed twice";
    } else if (computed[n.get()] > 1) {
      // Computed in several kernels only where the cost model prefers that to writing it out.
      const RecomputeCost cost = CompareRecompute(*n, computed[n.get()], budgets.cost_model);
      EXPECT_TRUE(cost.recompute_wins()) << ir::OpName(n->op()) << ": " << cost.ToString();
    }
  }
  for (const ir::NodeRef& r : graph.results) EXPECT_TRUE(stored.contains(r.get()));
}

TEST(Fusion, PlansKeepTheirInvariantsOnRandomGraphs) {
  const int count = GraphCount();
  int fused_somewhere = 0;
  for (int seed = 1; seed <= count; ++seed) {
    ir::Graph graph = test::RandomGraph(static_cast<uint64_t>(seed));
    ASSERT_TRUE(ir::Verify(graph).ok()) << ir::Verify(graph) << "\n" << ir::Print(graph);
    absl::StatusOr<PassManager> pipeline = BuildPipeline(DefaultPipeline(), {});
    ASSERT_TRUE(pipeline.ok());
    ASSERT_TRUE(pipeline->Run(graph).ok());
    for (const FusionBudgets& budgets : {FusionBudgets{}, FusionBudgets{4, 2, 6}}) {
      SCOPED_TRACE(testing::Message()
                   << "seed " << seed << " budgets " << budgets.max_kernel_arrays << "\n"
                   << ir::Print(graph));
      const FusionPlan plan = PlanFusion(graph, budgets);
      CheckPlan(graph, plan, budgets);
      if (plan.kernels.size() < graph.nodes.size()) ++fused_somewhere;
      if (HasFailure()) return;  // one graph's report is enough
    }
  }
  // Fusion must actually merge nodes on most graphs, or the invariants hold trivially.
  EXPECT_GT(fused_somewhere, count);
}

}  // namespace
}  // namespace gpuc::passes
