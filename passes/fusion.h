//===- fusion.h - Cutting a graph into fused kernels ----------------------===//
//
// Fusion turns an optimized graph into kernels: groups of nodes that one generated kernel
// computes, reading its inputs once and writing only its outputs. It runs after the graph
// passes (pass_manager.h) and produces a FusionPlan, which buffer planning and code generation
// consume; the graph itself is not changed.
//
// What may share a kernel (legality) is kept apart from what should (profitability):
//  - legal: elementwise ops, views and gathers are index arithmetic and fuse anywhere; the
//    reductions of one kernel all reduce the same axes of the same shape; a value computed
//    from a reduction may be read back at full shape only when the reduced axes are the
//    trailing ones (each row is then finished by the code that reads it back); library ops
//    and scans are kernels of their own; merging two kernels must not create a cycle.
//  - profitable: a producer with users in several kernels is merged into one multi-output
//    kernel when those kernels can merge; otherwise it is recomputed in each or materialized
//    (its own kernel's output), whichever the cost model (cost_model.h: flops against bytes
//    moved and a launch) finds cheaper; so is a producer read through a broadcast, which
//    would be recomputed for every broadcast element.
// Budgets (fusion_budgets below) split the graph instead of failing. Every decision records
// its reason; `gpuc --explain-fusion` prints them.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_FUSION_H_
#define GPUC_PASSES_FUSION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/fused_kernel.h"
#include "ir/graph.h"
#include "passes/cost_model.h"

namespace gpuc::passes {

/// Limits on one kernel. They keep generated kernels compilable and their launches legal;
/// a graph that would pass one is split into more kernels.
struct FusionBudgets {
  /// Inputs plus outputs of one kernel. CUDA kernel parameters are limited to 32 KiB since
  /// CUDA 12.1 (4 KiB before), and each array costs a pointer plus its extents and strides
  /// (~72 bytes at rank 4); 64 arrays stay far below even the old limit.
  int max_kernel_arrays = 64;
  /// Reductions sharing one kernel: each keeps a partial result per thread in registers, and
  /// past 8 the register pressure of a row kernel costs more occupancy than a second read.
  int max_reductions = 8;
  /// Nodes per kernel, a bound on emitted code size (LLVM's optimization time grows
  /// superlinearly in function size; 512 nodes compile in well under a second).
  int max_nodes = 512;
  /// Recompute or materialize (cost_model.h).
  CostModel cost_model;
  /// Whether a matmul's library step reads its operands' views (slices with positive steps,
  /// reshapes, transposes of a stored value) where they lie, as NumPy passes `a[:, i:]` to
  /// the BLAS with a leading dimension: the views join the step instead of a copy kernel.
  /// The host's BLAS step does (lib/backend/host/strided_view.h); the GPU's cuBLAS calls
  /// take whole operands.
  bool library_reads_views = false;
};

// The kernel description fusion produces and code generation consumes lives in ir/ so that
// codegen/ needs nothing of passes/.
using ir::FusedKernel;
using ir::KernelKind;
using ir::KernelKindName;

struct FusionPlan {
  /// In an order where every kernel follows the kernels it reads.
  std::vector<FusedKernel> kernels;
  /// One line per decision, in the order taken: what joined which kernel, or why not.
  std::vector<std::string> decisions;
};

FusionPlan PlanFusion(const ir::Graph& graph, const FusionBudgets& budgets = {});

/// The plan as text (`gpuc --emit=fused`): each kernel with its kind, inputs, outputs and
/// members, then the graph's results. A view for people; it does not parse back.
std::string PrintFusionPlan(const ir::Graph& graph, const FusionPlan& plan);

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_FUSION_H_
