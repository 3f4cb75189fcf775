//===- gpu_library.cc - Library steps of a GPU plan -----------------------===//
#include "lib/backend/cuda/gpu_library.h"

#include "absl/strings/str_cat.h"

namespace gpuc::detail {

bool HasGpuLibraryLowering(const ir::Node& node) {
  return node.op() == ir::OpCode::kMatmul || node.op() == ir::OpCode::kFft ||
         node.op() == ir::OpCode::kSpmv || node.op() == ir::OpCode::kMatmulBias ||
         node.op() == ir::OpCode::kLinalg;
}

template <typename Library>
absl::StatusOr<Library*> GpuLibraries::Load(Lazy<Library>& lazy) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!lazy.tried) {
    lazy.tried = true;
    absl::StatusOr<std::unique_ptr<Library>> library = Library::Create(*device_);
    if (library.ok()) {
      lazy.library = *std::move(library);
    } else {
      lazy.status = library.status();
    }
  }
  if (!lazy.library) return lazy.status;
  return lazy.library.get();
}

absl::StatusOr<GpuBlas*> GpuLibraries::Blas() { return Load(blas_); }
absl::StatusOr<GpuFft*> GpuLibraries::Fft() { return Load(fft_); }
absl::StatusOr<GpuSparse*> GpuLibraries::Sparse() { return Load(sparse_); }
absl::StatusOr<GpuSolver*> GpuLibraries::Solver() { return Load(solver_); }

absl::StatusOr<LibraryCall> GpuLibraries::Prepare(const ir::Node& node) {
  switch (node.op()) {
    case ir::OpCode::kMatmul: {
      if (absl::StatusOr<GpuBlas*> blas = Blas(); !blas.ok()) return blas.status();
      absl::StatusOr<GemmShape> gemm = PlanGemm(node);
      if (!gemm.ok()) return gemm.status();
      return LibraryCall{*gemm, DescribeGemm(node, *gemm)};
    }
    case ir::OpCode::kMatmulBias: {
      if (absl::StatusOr<GpuBlas*> blas = Blas(); !blas.ok()) return blas.status();
      if (absl::StatusOr<const runtime::CublasLt*> lt = runtime::GetCublasLt(); !lt.ok()) {
        return lt.status();
      }
      absl::StatusOr<GemmShape> gemm = PlanMatmulBias(node);
      if (!gemm.ok()) return gemm.status();
      return LibraryCall{*gemm, DescribeMatmulBias(node, *gemm)};
    }
    case ir::OpCode::kFft: {
      // The normalization is a cuBLAS scale, so the FFT needs both libraries.
      if (absl::StatusOr<GpuBlas*> blas = Blas(); !blas.ok()) return blas.status();
      if (absl::StatusOr<GpuFft*> fft = Fft(); !fft.ok()) return fft.status();
      absl::StatusOr<FftShape> shape = PlanFft(node);
      if (!shape.ok()) return shape.status();
      return LibraryCall{*shape, DescribeFft(node, *shape)};
    }
    case ir::OpCode::kSpmv: {
      absl::StatusOr<SpmvShape> shape = PlanSpmv(node);
      if (!shape.ok()) return shape.status();
      if (absl::StatusOr<GpuSparse*> sparse = Sparse(); !sparse.ok()) return sparse.status();
      return LibraryCall{*shape, DescribeSpmv(node, *shape)};
    }
    case ir::OpCode::kLinalg: {
      absl::StatusOr<LinalgShape> shape = PlanLinalg(node);
      if (!shape.ok()) return shape.status();
      if (absl::StatusOr<GpuSolver*> solver = Solver(); !solver.ok()) return solver.status();
      return LibraryCall{*shape, DescribeLinalg(node, *shape)};
    }
    default:
      return absl::UnimplementedError(
          absl::StrCat(ir::OpName(node.op()), " has no GPU library lowering yet"));
  }
}

absl::Status GpuLibraries::Run(runtime::CudaStream& stream, const ir::Node& node,
                               const LibraryCall& call,
                               absl::Span<const DeviceTensor* const> operands,
                               const DeviceTensor& out, bool first_operand_is_dead) {
  if (const auto* spmv = std::get_if<SpmvShape>(&call.shape)) {
    absl::StatusOr<GpuSparse*> sparse = Sparse();
    if (!sparse.ok()) return sparse.status();
    return (*sparse)->Spmv(stream, node, *spmv, *operands[0], *operands[1], *operands[2],
                           *operands[3], out);
  }
  if (const auto* linalg = std::get_if<LinalgShape>(&call.shape)) {
    absl::StatusOr<GpuSolver*> solver = Solver();
    if (!solver.ok()) return solver.status();
    return (*solver)->Run(stream, node, *linalg, *operands[0],
                          operands.size() > 1 ? operands[1] : nullptr, out);
  }
  absl::StatusOr<GpuBlas*> blas = Blas();
  if (!blas.ok()) return blas.status();
  if (const auto* gemm = std::get_if<GemmShape>(&call.shape)) {
    if (node.op() == ir::OpCode::kMatmulBias) {
      return (*blas)->MatmulBias(stream, node, *gemm, *operands[0], *operands[1], *operands[2],
                                 out);
    }
    return (*blas)->Matmul(stream, node, *gemm, *operands[0], *operands[1], out);
  }
  absl::StatusOr<GpuFft*> fft = Fft();
  if (!fft.ok()) return fft.status();
  return (*fft)->Run(stream, node, std::get<FftShape>(call.shape), *operands[0], out, **blas,
                     first_operand_is_dead);
}

}  // namespace gpuc::detail
