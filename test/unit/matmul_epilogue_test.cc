//===- matmul_epilogue_test.cc - Bias and ReLU folded into the GEMM -------===//
//
// passes/fuse_matmul_epilogue.cc against the interpreter: the fused matmul_bias node gives
// the same bits as the matmul, add and maximum it replaces (NaN and infinite inputs
// included), it fuses only what it may (one reader, f32/f64, a bias row, 2-D operands), and
// the host's BLAS path for matmul_bias agrees with the interpreter.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "passes/pass_manager.h"
#include "test/unit/host_check.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc {
namespace {

ir::Graph Fused(const ir::Graph& graph) {
  absl::StatusOr<passes::PassManager> pipeline =
      passes::BuildPipeline("fuse-matmul-epilogue", passes::PassManagerOptions{});
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  ir::Graph fused = graph;
  EXPECT_TRUE(pipeline->Run(fused).ok());
  return fused;
}

int Count(const ir::Graph& graph, ir::OpCode op) {
  int n = 0;
  for (const ir::NodeRef& node : graph.nodes) n += node->op() == op ? 1 : 0;
  return n;
}

/// Fuses `text`, expects `fused` matmul_bias nodes, and the same bits from the interpreter
/// before and after, with a NaN and infinities planted in the first operand.
void CheckFusion(const std::string& text, int fused, uint64_t seed) {
  SCOPED_TRACE(text);
  const ir::Graph graph = test::ParseVerified(text);
  const ir::Graph after = Fused(graph);
  EXPECT_EQ(Count(after, ir::OpCode::kMatmulBias), fused) << ir::Print(after);
  std::vector<ir::HostTensor> args = tool::RandomArguments(graph, seed);
  ir::HostTensor& a = args[0];
  if (a.dtype() == ir::DType::kFloat32 && a.num_elements() > 3) {
    float* p = reinterpret_cast<float*>(a.data());
    p[0] = std::numeric_limits<float>::quiet_NaN();
    p[1] = std::numeric_limits<float>::infinity();
    p[2] = -std::numeric_limits<float>::infinity();
  }
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  absl::StatusOr<std::vector<ir::HostTensor>> got = ir::Interpret(after, args);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t r = 0; r < want->size(); ++r) {
    EXPECT_EQ(test::CompareTensors((*got)[r], (*want)[r], "exact"), "") << "result " << r;
  }
}

TEST(MatmulEpilogue, BiasAndReluBecomeOneNodeWithTheSameBits) {
  // relu(x @ w^T + b), as a dense layer stores w: the transpose is already a flag.
  CheckFusion(R"(func @f(%x: f32[9,7], %w: f32[5,7], %b: f32[5]) -> (f32[9,5]) {
  %m = matmul %x, %w {transpose_b = true} : f32[9,5]
  %s = add %m, %b : f32[9,5]
  %zero = constant {value = 0.0} : f32[]
  %r = maximum %zero, %s : f32[9,5]
  return %r
}
)",
              1, 1);
  // A dense layer over a batch: a [2, 9, 7] stack against one matrix is one GEMM of 18 rows.
  CheckFusion(R"(func @f(%x: f32[2,9,7], %w: f32[7,5], %b: f32[5]) -> (f32[2,9,5]) {
  %m = matmul %x, %w : f32[2,9,5]
  %s = add %m, %b : f32[2,9,5]
  %zero = constant {value = 0.0} : f32[]
  %r = maximum %s, %zero : f32[2,9,5]
  return %r
}
)",
              1, 9);
  // The bias on the left and through an explicit broadcast; f64; no activation.
  CheckFusion(R"(func @f(%x: f64[4,6], %w: f64[6,3], %b: f64[3]) -> (f64[4,3]) {
  %m = matmul %x, %w : f64[4,3]
  %bb = broadcast_to %b : f64[4,3]
  %s = add %bb, %m : f64[4,3]
  return %s
}
)",
              1, 2);
}

TEST(MatmulEpilogue, OnlyWhatIsExactAndReadOnceFuses) {
  // The product is also a result: it must exist on its own.
  CheckFusion(R"(func @f(%x: f32[4,6], %w: f32[6,3], %b: f32[3]) -> (f32[4,3], f32[4,3]) {
  %m = matmul %x, %w : f32[4,3]
  %s = add %m, %b : f32[4,3]
  return %s, %m
}
)",
              0, 3);
  // The sum has a second reader: the bias fuses, the ReLU stays an op of its own.
  CheckFusion(R"(func @f(%x: f32[4,6], %w: f32[6,3], %b: f32[3]) -> (f32[4,3], f32[4,3]) {
  %m = matmul %x, %w : f32[4,3]
  %s = add %m, %b : f32[4,3]
  %zero = constant {value = 0.0} : f32[]
  %r = maximum %s, %zero : f32[4,3]
  %t = mul %s, %s : f32[4,3]
  return %r, %t
}
)",
              1, 4);
  // A bias that is a matrix, a half-precision product (two roundings apart), a stack read
  // transposed (not one GEMM), a batched right operand.
  CheckFusion(
      R"(func @f(%x: f32[4,6], %w: f32[6,3], %c: f32[4,3], %h: f16[4,6], %hw: f16[6,3], %hb: f16[3], %bx: f32[2,6,4], %bb: f32[3], %bw: f32[2,6,3]) -> (f32[4,3], f16[4,3], f32[2,4,3], f32[2,4,3]) {
  %m = matmul %x, %w : f32[4,3]
  %s = add %m, %c : f32[4,3]
  %hm = matmul %h, %hw : f16[4,3]
  %hs = add %hm, %hb : f16[4,3]
  %bm = matmul %bx, %w {transpose_a = true} : f32[2,4,3]
  %bs = add %bm, %bb : f32[2,4,3]
  %xw = matmul %x, %bw : f32[2,4,3]
  %xs = add %xw, %bb : f32[2,4,3]
  return %s, %hs, %bs, %xs
}
)",
      0, 5);
  // maximum with something other than zero is not a ReLU.
  CheckFusion(R"(func @f(%x: f32[4,6], %w: f32[6,3], %b: f32[3]) -> (f32[4,3]) {
  %m = matmul %x, %w : f32[4,3]
  %s = add %m, %b : f32[4,3]
  %one = constant {value = 1.0} : f32[]
  %r = maximum %s, %one : f32[4,3]
  return %r
}
)",
              1, 6);
}

TEST(MatmulEpilogue, TheHostRunsMatmulBiasThroughItsBlas) {
  for (const char* act : {"none", "relu"}) {
    test::ExpectHostMatchesInterpreter(
        absl::StrCat(R"(func @f(%x: f32[33,20], %w: f32[17,20], %b: f32[17]) -> (f32[33,17]) {
  %r = matmul_bias %x, %w, %b {activation = ")",
                     act, R"(", transpose_b = true} : f32[33,17]
  return %r
}
)"),
        7, "rel1e-5");
  }
  test::ExpectHostMatchesInterpreter(
      R"(func @f(%x: f64[12,8], %w: f64[12,5], %b: f64[5]) -> (f64[8,5]) {
  %r = matmul_bias %x, %w, %b {transpose_a = true} : f64[8,5]
  return %r
}
)",
      8, "rel1e-12");
}

}  // namespace
}  // namespace gpuc
