//===- user_kernel_test.cc - ElementwiseKernel and ReductionKernel without a GPU ===//
//
// What can be checked on any machine: the nodes a user kernel records (shapes, dtypes,
// placeholders), the errors for bad parameters and bad code (with the line of the operation),
// the message when there is no GPU to run them, and the fusion path itself: a graph
// `exp -> user op -> sum` plans as one kernel, its PTX calls the user function, and nvJitLink
// links that PTX with NVRTC's relocatable code into one cubin. The results on a GPU are in
// test/gpu/raw_kernel_gpu_test.cc.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "codegen/cuda_compilers.h"
#include "codegen/kernel_spec.h"
#include "codegen/nvptx_compiler.h"
#include "codegen/user_function.h"
#include "gpuc/gpuc.h"
#include "ir/type_inference.h"
#include "ir/user_kernel_semantics.h"
#include "lib/api/array_impl.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/host/host_executor.h"
#include "lib/exec/plan_values.h"
#include "passes/buffer_plan.h"
#include "passes/fusion.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

using test::ErrorOf;

ir::UserElementwise RecordedKernel(const Array& a) {
  const ir::Node& node = *detail::ImplOf(a, "test").node;
  EXPECT_EQ(node.op(), ir::OpCode::kUserElementwise);
  absl::StatusOr<ir::UserElementwise> kernel = ir::ReadUserElementwise(node.attrs());
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  return kernel.value_or(ir::UserElementwise{});
}

TEST(ElementwiseKernelTest, RecordsABroadcastNodeWithResolvedPlaceholders) {
  ElementwiseKernel axpb("T x, T y, float32 s", "T z", "z = x * s + y", "axpb");
  Array x = random::uniform({4, 1}, -1, 1, float64);
  Array y = random::uniform({3}, -1, 1, float64);
  Array z = axpb({x, y, 2.5});
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(z.dtype(), float64);
  const ir::UserElementwise kernel = RecordedKernel(z);
  EXPECT_EQ(kernel.name, "axpb");
  EXPECT_EQ(ir::FormatUserParams(kernel.inputs), "f64 x, f64 y, f32 s");
  EXPECT_EQ(ir::FormatUserParams(kernel.outputs), "f64 z");
  EXPECT_TRUE(absl::StrContains(kernel.preamble, "typedef double T;")) << kernel.preamble;
  // The node is lazy like any other op: nothing was evaluated.
  EXPECT_FALSE(detail::ImplOf(z, "test").evaluated());
}

TEST(ElementwiseKernelTest, EveryOutputIsItsOwnNodeAndGivenOutputsAreRebound) {
  ElementwiseKernel split("T x", "T lo, int32 hi", "lo = x - floor(x); hi = (int)floor(x)",
                          "split");
  Array x = random::uniform({5}, -3, 3, float32);
  std::vector<Array> parts = split.call({x});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].dtype(), float32);
  EXPECT_EQ(parts[1].dtype(), int32);
  EXPECT_EQ(RecordedKernel(parts[0]).output, 0);
  EXPECT_EQ(RecordedKernel(parts[1]).output, 1);
  // Output arrays given after the inputs resolve placeholders and stand for the results.
  ElementwiseKernel twice("T x", "U y", "y = 2 * x", "twice");
  Array out = zeros({5}, float64);
  Array alias = out;
  Array result = twice({x, out});
  EXPECT_EQ(result.dtype(), float64);
  EXPECT_EQ(detail::ImplOf(out, "test").node, detail::ImplOf(result, "test").node);
  EXPECT_EQ(detail::ImplOf(alias, "test").node, detail::ImplOf(result, "test").node);
}

TEST(ElementwiseKernelTest, BadParametersAndArgumentsAreClearErrors) {
  EXPECT_TRUE(absl::StrContains(ErrorOf([] { ElementwiseKernel("raw T x", "T y", "y = x[0]"); }),
                                "raw parameters"));
  EXPECT_TRUE(absl::StrContains(
      ErrorOf([] { ElementwiseKernel("complex64 x", "float32 y", "y = 0"); }), "real dtypes"));
  EXPECT_TRUE(absl::StrContains(ErrorOf([] { ElementwiseKernel("T x y", "T z", "z = x"); }),
                                "is not 'type name'"));
  EXPECT_TRUE(absl::StrContains(ErrorOf([] { ElementwiseKernel("T x", "", "x"); }),
                                "no output parameters"));
  ElementwiseKernel add("T x, T y", "T z", "z = x + y", "add_them");
  Array f = random::uniform({3}, 0, 1, float32);
  Array d = random::uniform({3}, 0, 1, float64);
  const std::string mixed = ErrorOf([&] { add({f, d}); });
  EXPECT_TRUE(absl::StrContains(mixed, "'add_them'")) << mixed;
  EXPECT_TRUE(absl::StrContains(mixed, "type T is float32")) << mixed;
  EXPECT_TRUE(absl::StrContains(mixed, "float64")) << mixed;
  EXPECT_TRUE(absl::StrContains(ErrorOf([&] { add({f}); }), "takes 2 inputs"));
  ElementwiseKernel typed("float32 x", "float32 y", "y = x", "typed");
  EXPECT_TRUE(absl::StrContains(ErrorOf([&] { typed({d}); }), "astype(float32)"));
  // Shapes that do not broadcast name both shapes; the other arrays stay usable.
  const std::string shapes = ErrorOf([&] { add({f, random::uniform({4}, 0, 1, float32)}); });
  EXPECT_TRUE(absl::StrContains(shapes, "(3)") || absl::StrContains(shapes, "[3]")) << shapes;
  EXPECT_EQ(f.shape(), (std::vector<int64_t>{3}));
}

TEST(ElementwiseKernelTest, CompileErrorsNameTheKernelAndTheLineOfTheOperation) {
  if (absl::StatusOr<const codegen::Nvrtc*> nvrtc = codegen::GetNvrtc(); !nvrtc.ok()) {
    GTEST_SKIP() << nvrtc.status().message();
  }
  ElementwiseKernel broken("T x", "T y", "T t = x * 2;\ny = t + undefined_thing", "broken");
  const std::string message = ErrorOf([&] { broken({random::uniform({8}, 0, 1, float32)}); });
  EXPECT_TRUE(absl::StrContains(message, "ElementwiseKernel 'broken'")) << message;
  EXPECT_TRUE(absl::StrContains(message, "line 2 of the operation")) << message;
  EXPECT_TRUE(absl::StrContains(message, "undefined_thing")) << message;
  EXPECT_TRUE(absl::StrContains(message, "NVRTC log")) << message;
}

TEST(ElementwiseKernelTest, WithoutAGpuEvaluationSaysWhy) {
  if (detail::GpuExecutor::Get().ok()) GTEST_SKIP() << "a GPU is present: see raw_kernel_gpu_test";
  ElementwiseKernel square("T x", "T y", "y = x * x", "square");
  Array x = random::uniform({16}, -1, 1, float32);
  Array y = square({x});
  const std::string message = ErrorOf([&] { y.to_host<float>(); });
  EXPECT_TRUE(absl::StrContains(message, "user_elementwise 'square'")) << message;
  EXPECT_TRUE(absl::StrContains(message, "only on a GPU")) << message;
  // Nothing is lost: x still evaluates.
  EXPECT_EQ(x.to_host<float>().size(), 16u);
}

TEST(ReductionKernelTest, RecordsMapReducePostMap) {
  ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  Array x = random::uniform({6, 5}, -1, 1, float32);
  Array all = l2norm({x});
  EXPECT_EQ(all.shape(), std::vector<int64_t>{});
  EXPECT_EQ(all.dtype(), float32);
  const ir::UserElementwise post = RecordedKernel(all);
  EXPECT_EQ(post.name, "l2norm_post_map");
  EXPECT_EQ(post.operation, "y = sqrt(a)");
  Array rows = l2norm({x}, {1}, /*keepdims=*/true);
  EXPECT_EQ(rows.shape(), (std::vector<int64_t>{6, 1}));
  // A trivial post-map records no user node: the result is the reduction's.
  ReductionKernel sum_abs("T x", "T y", "abs(x)", "a + b", "y = a", "0", "sum_abs");
  EXPECT_EQ(detail::ImplOf(sum_abs({x}, {0}), "test").node->op(), ir::OpCode::kReduceSum);
}

TEST(ReductionKernelTest, UnsupportedCombinationsAreClearErrors) {
  EXPECT_TRUE(absl::StrContains(
      ErrorOf([] { ReductionKernel("T x", "T y", "x", "a - b", "y = a", "0", "diff"); }),
      "reduce_expr 'a - b'"));
  EXPECT_TRUE(absl::StrContains(
      ErrorOf([] { ReductionKernel("T x", "T y", "x", "a + b", "y = a", "zero", "z"); }),
      "identity 'zero'"));
  EXPECT_TRUE(absl::StrContains(
      ErrorOf([] { ReductionKernel("T x", "T y, T w", "x", "a + b", "y = a", "0", "two"); }),
      "exactly one output"));
}

/// exp(x) -> user op -> sum over x: f32[4096], as gpuc would see it.
ir::Graph ExpUserSumGraph() {
  ir::NodeRef x = ir::Node::Create(
      ir::OpCode::kParameter, ir::TensorType{ir::DType::kFloat32, ir::Shape{4096}}, {}, {}, "x");
  ir::NodeRef e = ir::Node::Create(ir::OpCode::kExp, x->type(), {x});
  ir::UserElementwise kernel{"soft_clip",
                             {{ir::DType::kFloat32, "v"}, {ir::DType::kFloat32, "w"}},
                             {{ir::DType::kFloat32, "y"}},
                             "y = v / (1.0f + fabsf(v)) + w * (i % 3)",
                             "",
                             0};
  ir::Attributes attrs = ir::UserElementwiseAttributes(kernel);
  absl::StatusOr<ir::TensorType> type = ir::InferResultType(
      ir::OpCode::kUserElementwise, {e->type(), x->type()}, attrs, std::nullopt);
  EXPECT_TRUE(type.ok()) << type.status();
  ir::NodeRef u = ir::Node::Create(ir::OpCode::kUserElementwise, *type, {e, x}, attrs);
  ir::Attributes sum_attrs;
  sum_attrs.Set("axes", std::vector<int64_t>{0});
  sum_attrs.Set("keepdims", false);
  ir::NodeRef s = ir::Node::Create(
      ir::OpCode::kReduceSum, ir::TensorType{ir::DType::kFloat32, ir::Shape{}}, {u}, sum_attrs);
  return ir::Graph::FromResults("exp_user_sum", {x}, {s});
}

TEST(UserFusionTest, ExpUserOpSumIsOneKernelLinkedWithTheUserFunction) {
  ir::Graph graph = ExpUserSumGraph();
  const passes::FusionPlan plan = passes::PlanFusion(graph);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const passes::FusedKernel& fused = plan.kernels[0];
  const passes::BufferPlan buffers = passes::PlanBuffers(graph, plan);
  absl::StatusOr<codegen::KernelSpec> spec =
      codegen::BuildKernelSpec(fused, detail::InPlaceOutputs(fused, buffers));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(codegen::UsesUserFunctions(*spec));
  // The host back end cannot call CUDA C++: it says so instead of computing anything.
  absl::StatusOr<std::vector<ir::HostTensor>> host = detail::HostExecutor::Get().Run(
      graph, {ir::HostTensor(ir::TensorType{ir::DType::kFloat32, ir::Shape{4096}})});
  ASSERT_FALSE(host.ok());
  EXPECT_TRUE(absl::StrContains(host.status().message(), "soft_clip")) << host.status();

  absl::StatusOr<std::unique_ptr<codegen::NvptxCompiler>> compiler =
      codegen::NvptxCompiler::Create(codegen::GpuCompileOptions{});
  if (!compiler.ok()) GTEST_SKIP() << "no CUDA toolkit: " << compiler.status().message();
  absl::StatusOr<codegen::GpuCompiledKernel> ptx = codegen::CompileGpuKernel(*spec, **compiler);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  const ir::Node* user = nullptr;
  for (const ir::Node* member : spec->members) {
    if (member->op() == ir::OpCode::kUserElementwise) user = member;
  }
  ASSERT_NE(user, nullptr);
  const std::string symbol =
      codegen::UserFunctionSymbol(*ir::ReadUserElementwise(user->attrs()), 0);
  EXPECT_TRUE(absl::StrContains(ptx->ptx, ".extern .func")) << ptx->ptx;
  EXPECT_TRUE(absl::StrContains(ptx->ptx, symbol)) << ptx->ptx;

  if (absl::StatusOr<const codegen::NvJitLink*> link = codegen::GetNvJitLink(); !link.ok()) {
    GTEST_SKIP() << link.status().message();
  }
  absl::StatusOr<std::string> cubin =
      codegen::LinkWithUserFunctions(*spec, ptx->ptx, "sm_90", nullptr);
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_EQ(cubin->substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_NE(cubin->find(spec->phases[0].function_name), std::string::npos);
}

}  // namespace
}  // namespace gpuc
