//===- gpu_solver_source_test.cc - The GPU linalg plans and helper kernels ===//
//
// Without a GPU: which linalg routines go to cuSOLVER (gpu_solver.h) and how the plan shows
// them, and that the helper kernels (copies, identity, lower triangle, eigh's layout,
// determinants) compile with NVRTC for every dtype. The results are checked on a device by
// test/gpu/solver_gpu_test.cc and by the unit tests run there.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/cuda_compilers.h"
#include "codegen/cuda_source_compiler.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_solver.h"

namespace gpuc {
namespace {

using ir::DType;

ir::NodeRef Linalg(const std::string& routine, DType dtype, ir::Shape a_shape,
                   std::optional<ir::Shape> b_shape = std::nullopt) {
  std::vector<ir::NodeRef> operands = {ir::Node::Create(ir::OpCode::kParameter, {dtype, a_shape})};
  if (b_shape) operands.push_back(ir::Node::Create(ir::OpCode::kParameter, {dtype, *b_shape}));
  ir::Attributes attrs;
  attrs.Set("routine", routine);
  std::vector<ir::TensorType> types;
  for (const ir::NodeRef& o : operands) types.push_back(o->type());
  absl::StatusOr<ir::LinalgRoutine> r = ir::ReadLinalgRoutine(attrs);
  EXPECT_TRUE(r.ok()) << r.status();
  absl::StatusOr<ir::TensorType> type = ir::LinalgResultType(*r, types);
  EXPECT_TRUE(type.ok()) << type.status();
  return ir::Node::Create(ir::OpCode::kLinalg, *type, operands, attrs);
}

TEST(GpuSolverPlan, TheFactorizationsGoToCusolverAndTheRestStayOnTheHost) {
  absl::StatusOr<detail::LinalgShape> solve =
      detail::PlanLinalg(*Linalg("solve", DType::kFloat64, {4, 6, 6}, ir::Shape{4, 6, 3}));
  ASSERT_TRUE(solve.ok()) << solve.status();
  EXPECT_EQ(solve->batch, 4);
  EXPECT_EQ(solve->n, 6);
  EXPECT_EQ(solve->k, 3);
  EXPECT_EQ(detail::DescribeLinalg(*Linalg("solve", DType::kFloat64, {4, 6, 6}, ir::Shape{4, 6, 3}),
                                   *solve),
            "cusolver solve getrf+getrs n=6 k=3 batch=4 f64");
  for (const char* routine : {"inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh"}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
      EXPECT_TRUE(detail::PlanLinalg(*Linalg(routine, dtype, {2, 5, 5})).ok()) << routine;
    }
  }
  absl::StatusOr<detail::LinalgShape> svd =
      detail::PlanLinalg(*Linalg("svd", DType::kFloat32, {5, 5}));
  EXPECT_EQ(svd.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(svd.status().message(), "linalg.svd")) << svd.status();
}

TEST(GpuSolverPlan, TheHelperKernelsCompileForEveryDtype) {
  if (absl::StatusOr<const codegen::Nvrtc*> nvrtc = codegen::GetNvrtc(); !nvrtc.ok()) {
    GTEST_SKIP() << nvrtc.status().message();
  }
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    SCOPED_TRACE(ir::DTypeName(dtype));
    codegen::CudaSourceOptions options;
    absl::StatusOr<codegen::CompiledCuda> result = codegen::CompileCudaSource(
        detail::GpuSolverKernelSource(dtype), "gpuc_linalg.cu", options, nullptr);
    ASSERT_TRUE(result.ok()) << result.status();
    for (const char* kernel : {"gpuc_linalg_transpose", "gpuc_linalg_identity", "gpuc_linalg_lower",
                               "gpuc_linalg_eigh_out", "gpuc_linalg_det"}) {
      EXPECT_TRUE(absl::StrContains(result->ptx, absl::StrCat(".entry ", kernel))) << kernel;
    }
  }
}

}  // namespace
}  // namespace gpuc
