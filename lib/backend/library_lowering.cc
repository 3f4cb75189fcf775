//===- library_lowering.cc - How each back end runs a library step --------===//
#include "lib/backend/library_lowering.h"

#include "absl/strings/str_cat.h"
#include "ir/matmul_semantics.h"
#include "ir/value_names.h"
#include "lib/backend/cuda/gpu_blas.h"
#include "lib/backend/cuda/gpu_fft.h"
#include "lib/backend/cuda/gpu_solver.h"
#include "lib/backend/cuda/gpu_sort.h"
#include "lib/backend/cuda/gpu_sparse.h"
#include "lib/backend/host/host_blas.h"
#include "passes/buffer_plan.h"

namespace gpuc::detail {

std::string DescribeLibraryLowering(const ir::Node& node) {
  std::string gpu, host;
  switch (node.op()) {
    case ir::OpCode::kMatmul: {
      absl::StatusOr<GemmShape> gemm = PlanGemm(node);
      gpu = gemm.ok() ? DescribeGemm(node, *gemm)
                      : absl::StrCat("on the host (", gemm.status().message(), ")");
      // The host takes NumPy's path: ?dot for two vectors, ?gemv for a dimension of 1.
      host = !HostBlasHandles(node)         ? "interpreter loop"
             : !gemm.ok()                   ? "OpenBLAS gemm"
             : gemm->m == 1 && gemm->n == 1 ? "OpenBLAS dot"
             : gemm->m == 1 || gemm->n == 1 ? "OpenBLAS gemv"
                                            : "OpenBLAS gemm";
      break;
    }
    case ir::OpCode::kMatmulBias: {
      absl::StatusOr<GemmShape> gemm = PlanMatmulBias(node);
      gpu = gemm.ok() ? DescribeMatmulBias(node, *gemm)
                      : absl::StrCat("on the host (", gemm.status().message(), ")");
      host = "OpenBLAS gemm, then the bias and activation";
      break;
    }
    case ir::OpCode::kFft: {
      absl::StatusOr<FftShape> shape = PlanFft(node);
      gpu = shape.ok() ? DescribeFft(node, *shape)
                       : absl::StrCat("on the host (", shape.status().message(), ")");
      host = "radix-2/Bluestein FFT";
      break;
    }
    case ir::OpCode::kSpmv: {
      absl::StatusOr<SpmvShape> shape = PlanSpmv(node);
      gpu = shape.ok() ? DescribeSpmv(node, *shape)
                       : absl::StrCat("on the host (", shape.status().message(), ")");
      host = "CSR loop";
      break;
    }
    case ir::OpCode::kSort:
    case ir::OpCode::kArgSort: {
      const std::string refusal = GpuSortRefusal(node);
      gpu = refusal.empty() ? "CUDA kernels (gpu_sort.h)"
                            : absl::StrCat("on the host (", refusal, ")");
      host = "typed stable sort, lines over the thread pool";
      break;
    }
    case ir::OpCode::kLinalg: {
      absl::StatusOr<LinalgShape> shape = PlanLinalg(node);
      gpu = shape.ok()
                ? DescribeLinalg(node, *shape)
                : absl::StrCat("on the host through LAPACK (", shape.status().message(), ")");
      host = "LAPACK (?gesv, ?getrf, ?potrf, ?syevd/?heevd, ?gesdd, ?geqrf, ?geev)";
      break;
    }
    case ir::OpCode::kSpsolve:
      gpu = "on the host through SuperLU (cuSOLVER's sparse LU factors on the host too)";
      host = "SuperLU ?gssv, COLAMD order (SciPy's spsolve)";
      break;
    default:
      gpu = "on the host (no GPU library lowering yet)";
      host = "interpreter loop";
      break;
  }
  return absl::StrCat("gpu: ", gpu, "; host: ", host);
}

std::string PlanTextWithLibraryCalls(const ir::Graph& graph, const passes::FusionBudgets& budgets) {
  const passes::FusionPlan plan = passes::PlanFusion(graph, budgets);
  const passes::BufferPlan buffers = passes::PlanBuffers(graph, plan);
  std::string text = passes::PrintBufferPlan(graph, plan, buffers);
  const ir::ValueNames names(graph);
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const passes::FusedKernel& kernel = plan.kernels[k];
    if (kernel.kind != passes::KernelKind::kLibrary) continue;
    for (const ir::NodeRef& node : kernel.nodes) {
      // A view the step's BLAS call reads where it lies (FusionBudgets::library_reads_views).
      const std::string lowering =
          kernel.nodes.size() > 1 && ir::IsStridedViewOp(*node)
              ? absl::StrCat("a view of %", names.NameOf(node->operands()[0].get()),
                             " read in place (pointer and leading dimension, no copy)")
              : DescribeLibraryLowering(*node);
      absl::StrAppend(&text, "library ", k, " %", names.NameOf(node.get()), ": ", lowering, "\n");
    }
  }
  return text;
}

}  // namespace gpuc::detail
