//===- library_lowering.h - How each back end runs a library step ---------===//
//
// A library node (matmul, fft, spmv) is a vendor call on the GPU and a CPU library or loop on
// the host. `gpuc --emit=plan` shows both, from any machine: nothing here loads a library.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_LIBRARY_LOWERING_H_
#define GPUC_LIB_BACKEND_LIBRARY_LOWERING_H_

#include <string>

#include "ir/graph.h"
#include "passes/fusion.h"

namespace gpuc::detail {

/// "gpu: cublas gemm m=64 n=64 k=64 batch=1 f32; host: OpenBLAS gemm".
std::string DescribeLibraryLowering(const ir::Node& node);

/// The buffer plan of `graph` cut by `budgets` (passes::PrintBufferPlan), then one line per
/// library node saying how each back end runs it.
std::string PlanTextWithLibraryCalls(const ir::Graph& graph, const passes::FusionBudgets& budgets);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_LIBRARY_LOWERING_H_
