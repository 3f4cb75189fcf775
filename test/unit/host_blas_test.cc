//===- host_blas_test.cc - matmul through the CPU BLAS against the oracle -===//
//
// The host executor runs matmuls of f32, f64, complex64 and complex128 through OpenBLAS
// (lib/backend/host/host_blas.h). Each case here runs a matmul graph on the host executor and on
// the reference interpreter (a triple loop) and compares: 1-D operands on either side, batch axes
// that broadcast, mixed operand dtypes converted first, empty extents, a size large enough for
// the BLAS's blocked kernels, half types (float32 sums rounded once, as NumPy's), and the
// dtypes that stay on the interpreter.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "lib/backend/host/host_blas.h"
#include "lib/backend/host/host_executor.h"
#include "lib/backend/host/host_sparse.h"
#include "passes/fusion.h"
#include "test/unit/host_check.h"

namespace gpuc {
namespace {

using ir::DType;

/// Summation order differs from the interpreter's sequential loop: a relative bound.
std::string GemmTolerance(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kComplex64:
      return "rel1e-4";
    case DType::kFloat64:
    case DType::kComplex128:
      return "rel1e-12";
    case DType::kFloat16:  // f32 sums in another order, then one rounding: an ulp at most
      return "rel1e-3";
    case DType::kBFloat16:
      return "rel8e-3";
    default:
      return "exact";
  }
}

void CheckMatmul(const std::string& a, const std::string& b, const std::string& result,
                 uint64_t seed, const std::string& attrs = "") {
  const std::string text = absl::StrCat(
      "func @f(%a: ", a, ", %b: ", b, ") -> (", result, ") {\n  %c = matmul %a, %b",
      attrs.empty() ? "" : absl::StrCat(" {", attrs, "}"), " : ", result, "\n  return %c\n}\n");
  const ir::Graph graph = test::ParseVerified(text);
  const DType dtype = graph.results[0]->dtype();
  test::ExpectHostMatchesInterpreter(text, seed, GemmTolerance(dtype));
  // The node really takes the BLAS path for the floating and complex dtypes.
  EXPECT_EQ(detail::HostBlasHandles(*graph.results[0]),
            dtype != DType::kBool && !ir::IsInteger(dtype));
}

TEST(HostBlasTest, MatricesOfEveryBlasDtypeAgreeWithTheInterpreter) {
  CheckMatmul("f32[7,5]", "f32[5,3]", "f32[7,3]", 1);
  CheckMatmul("f64[7,5]", "f64[5,3]", "f64[7,3]", 2);
  CheckMatmul("c64[4,6]", "c64[6,5]", "c64[4,5]", 3);
  CheckMatmul("c128[4,6]", "c128[6,5]", "c128[4,5]", 4);
  // Large enough for the blocked, vectorized kernels and their edge tiles.
  CheckMatmul("f32[67,203]", "f32[203,45]", "f32[67,45]", 5);
  CheckMatmul("f64[130,70]", "f64[70,129]", "f64[130,129]", 6);
}

TEST(HostBlasTest, VectorsAndBroadcastBatchesFollowNumPy) {
  CheckMatmul("f32[5]", "f32[5,4]", "f32[4]", 7);     // a row vector on the left
  CheckMatmul("c128[3,4]", "c128[4]", "c128[3]", 8);  // a column vector on the right
  CheckMatmul("f64[6]", "f64[6]", "f64[]", 9);        // a dot product
  CheckMatmul("f64[2,1,4,6]", "f64[3,6,2]", "f64[2,3,4,2]", 10);
  CheckMatmul("c64[5,3,2]", "c64[2,4]", "c64[5,3,4]", 11);
  CheckMatmul("f32[4]", "f32[2,4,3]", "f32[2,3]", 12);
}

TEST(HostBlasTest, MixedOperandsAreConvertedToTheResultTypeFirst) {
  CheckMatmul("i32[4,3]", "f32[3,2]", "f64[4,2]", 13);
  CheckMatmul("f32[4,3]", "c128[3,2]", "c128[4,2]", 14);
}

TEST(HostBlasTest, EmptyExtentsGiveEmptyOrZeroResults) {
  CheckMatmul("f32[0,3]", "f32[3,4]", "f32[0,4]", 15);
  CheckMatmul("f64[2,0]", "f64[0,3]", "f64[2,3]", 16);  // an empty sum: zeros
  CheckMatmul("c64[0,2,3]", "c64[3,2]", "c64[0,2,2]", 17);
}

TEST(HostBlasTest, HalfTypesSumInFloat32AndRoundOnce) {
  CheckMatmul("f16[9,300]", "f16[300,7]", "f16[9,7]", 20);
  CheckMatmul("bf16[5,64]", "bf16[64,3]", "bf16[5,3]", 21);
  CheckMatmul("i16[4,3]", "f16[3,2]", "f32[4,2]", 22);  // NumPy: i16 with f16 is f32
}

// Operands stored transposed (the flags canonicalization sets for a transpose feeding a
// matmul) go to the BLAS as transpose flags; the interpreter indexes them directly.
TEST(HostBlasTest, TransposedOperandsAreBlasFlags) {
  CheckMatmul("f32[5,7]", "f32[5,3]", "f32[7,3]", 23, "transpose_a = true");
  CheckMatmul("f64[7,5]", "f64[3,5]", "f64[7,3]", 24, "transpose_b = true");
  CheckMatmul("c64[6,4]", "c64[5,6]", "c64[4,5]", 25, "transpose_a = true, transpose_b = true");
  CheckMatmul("f32[2,1,6,4]", "f32[3,2,6]", "f32[2,3,4,2]", 26,
              "transpose_a = true, transpose_b = true");
  CheckMatmul("f64[4,6,5]", "f64[6,3]", "f64[4,5,3]", 27, "transpose_a = true");
  CheckMatmul("f16[40,9]", "f16[40,7]", "f16[9,7]", 28, "transpose_a = true");
  CheckMatmul("f32[6]", "f32[4,6]", "f32[4]", 29, "transpose_b = true");
  CheckMatmul("f32[0,3]", "f32[4,0]", "f32[3,4]", 30, "transpose_a = true, transpose_b = true");
}

// Explicit transposes against the interpreter's reading of them: the host's canonicalized
// graph multiplies the untransposed values with flags, and the results are the same.
// A dimension of 1 goes through ?gemv (as NumPy's matmul does): a row times a matrix, a matrix
// times a column, each with the matrix stored either way, and a 1-D dot, for every BLAS dtype
// and sizes past the BLAS's unrolling.
TEST(HostBlasTest, MatrixVectorShapesTakeGemvOrDotAndAgreeWithTheInterpreter) {
  uint64_t seed = 60;
  for (const char* d : {"f32", "f64", "c64", "c128"}) {
    const std::string t(d);
    CheckMatmul(t + "[37]", t + "[37,29]", t + "[29]", ++seed);
    CheckMatmul(t + "[37]", t + "[29,37]", t + "[29]", ++seed, "transpose_b = true");
    CheckMatmul(t + "[1,37]", t + "[37,29]", t + "[1,29]", ++seed);
    CheckMatmul(t + "[29,37]", t + "[37]", t + "[29]", ++seed);
    CheckMatmul(t + "[37,29]", t + "[37]", t + "[29]", ++seed, "transpose_a = true");
    CheckMatmul(t + "[29,37]", t + "[37,1]", t + "[29,1]", ++seed);
    CheckMatmul(t + "[37]", t + "[37]", t + "[]", ++seed);  // ?dot
    CheckMatmul(t + "[1,37]", t + "[37,1]", t + "[1,1]", ++seed);
    CheckMatmul(t + "[3,1,37]", t + "[37,29]", t + "[3,1,29]", ++seed);
  }
}

TEST(HostBlasTest, TransposesFeedingAMatmulBecomeFlags) {
  const std::string text =
      R"(func @f(%a: f32[3,5,4], %b: f32[6,5], %c: f64[7,4]) -> (f32[3,4,6], f64[4,4]) {
  %at = transpose %a {perm = [0, 2, 1]} : f32[3,4,5]
  %bt = transpose %b {perm = [1, 0]} : f32[5,6]
  %m = matmul %at, %bt : f32[3,4,6]
  %ct = transpose %c {perm = [1, 0]} : f64[4,7]
  %n = matmul %ct, %c : f64[4,4]
  return %m, %n
}
)";
  test::ExpectHostMatchesInterpreter(text, 31, "rel1e-5");
}

// A matmul reading slices, reshapes and transposes of a stored array takes them where they
// lie (pointer, leading dimension, increment: passes/fusion.h's library_reads_views), as NumPy
// hands `data[:, i:]` to the BLAS; views the BLAS cannot take (a stepped last axis of a
// matrix, a reshape merging axes apart in memory, a dtype to convert) are copied first. Each
// agrees with the interpreter, and the views join the matmul's step: no copy kernel.
void CheckMatmulOfViews(const std::string& text, uint64_t seed) {
  SCOPED_TRACE(text);
  const ir::Graph graph = test::ParseVerified(text);
  passes::FusionBudgets budgets;
  budgets.library_reads_views = true;
  const passes::FusionPlan plan = passes::PlanFusion(graph, budgets);
  ASSERT_EQ(plan.kernels.size(), graph.results.size()) << passes::PrintFusionPlan(graph, plan);
  for (const passes::FusedKernel& k : plan.kernels) EXPECT_EQ(k.kind, passes::KernelKind::kLibrary);
  const std::string tolerance = GemmTolerance(graph.results[0]->dtype());
  test::ExpectHostMatchesInterpreter(text, seed, tolerance);
}

TEST(HostBlasTest, MatmulsReadSlicesReshapesAndTransposesWhereTheyLie) {
  // A row-by-row covariance's step: column i as a vector, columns i: as a matrix.
  CheckMatmulOfViews(R"(func @f(%d: f64[40,40]) -> (f64[33]) {
  %c = slice %d {start = [0, 7], stop = [40, 8], step = [1, 1]} : f64[40,1]
  %v = reshape %c : f64[40]
  %m = slice %d {start = [0, 7], stop = [40, 40], step = [1, 1]} : f64[40,33]
  %r = matmul %v, %m : f64[33]
  return %r
}
)",
                     80);
  // Both operands matrices, rows stepped (a larger leading dimension), and a transposed
  // window (the BLAS's transpose flag).
  CheckMatmulOfViews(R"(func @f(%a: f32[30,20], %b: f32[16,25]) -> (f32[13,9]) {
  %x = slice %a {start = [2, 3], stop = [28, 19], step = [2, 1]} : f32[13,16]
  %y = slice %b {start = [0, 4], stop = [16, 22], step = [1, 2]} : f32[16,9]
  %z = matmul %x, %y : f32[13,9]
  return %z
}
)",
                     81);
  CheckMatmulOfViews(R"(func @f(%a: c128[12,10], %b: c128[12,7]) -> (c128[8,7]) {
  %x = slice %a {start = [1, 2], stop = [12, 10], step = [1, 1]} : c128[11,8]
  %t = transpose %x {perm = [1, 0]} : c128[8,11]
  %y = slice %b {start = [1, 0], stop = [12, 7], step = [1, 1]} : c128[11,7]
  %z = matmul %t, %y : c128[8,7]
  return %z
}
)",
                     82);
  // A matrix times a stepped column (a vector's increment), and a dot of two strided vectors.
  CheckMatmulOfViews(R"(func @f(%a: c64[9,31], %b: c64[31,6]) -> (c64[9], c64[]) {
  %c = slice %b {start = [0, 4], stop = [31, 5], step = [1, 1]} : c64[31,1]
  %v = reshape %c : c64[31]
  %y = matmul %a, %v : c64[9]
  %r = slice %a {start = [3, 0], stop = [4, 31], step = [1, 1]} : c64[1,31]
  %w = reshape %r : c64[31]
  %c2 = slice %b {start = [0, 1], stop = [31, 2], step = [1, 1]} : c64[31,1]
  %v2 = reshape %c2 : c64[31]
  %s = matmul %w, %v2 : c64[]
  return %y, %s
}
)",
                     83);
}

TEST(HostBlasTest, ViewsTheBlasCannotTakeAreCopiedFirst) {
  // A stepped last axis on both sides of a GEMM: neither axis has unit stride.
  CheckMatmulOfViews(R"(func @f(%a: f64[10,20], %b: f64[20,12]) -> (f64[10,6]) {
  %x = slice %a {start = [0, 0], stop = [10, 20], step = [1, 2]} : f64[10,10]
  %y = slice %b {start = [0, 0], stop = [20, 12], step = [2, 2]} : f64[10,6]
  %z = matmul %x, %y : f64[10,6]
  return %z
}
)",
                     84);
  // A reshape merging rows of a window (apart in memory), and a batch of windows.
  CheckMatmulOfViews(
      R"(func @f(%a: f32[6,8], %b: f32[12,5], %c: f32[3,4,9]) -> (f32[5], f32[3,4,4]) {
  %x = slice %a {start = [0, 2], stop = [4, 5], step = [1, 1]} : f32[4,3]
  %v = reshape %x : f32[12]
  %y = matmul %v, %b : f32[5]
  %w = slice %c {start = [0, 0, 1], stop = [3, 4, 9], step = [1, 1, 2]} : f32[3,4,4]
  %z = matmul %w, %w : f32[3,4,4]
  return %y, %z
}
)",
      85);
}

// Which views the BLAS takes as they lie, and that its product is the copied views' product.
TEST(HostBlasTest, TheBlasTakesAUnitStrideAxisAndALeadingDimension) {
  const ir::Graph graph = test::ParseVerified(R"(func @f(%a: f64[8,6], %b: f64[6,5]) -> (f64[8,5]) {
  %c = matmul %a, %b : f64[8,5]
  return %c
}
)");
  const std::vector<ir::HostTensor> args = tool::RandomArguments(graph, 90);
  const ir::HostTensor big = tool::RandomArguments(
      test::ParseVerified("func @g(%x: f64[20,30]) -> (f64[20,30]) {\n  return %x\n}\n"), 91)[0];
  auto window = [&](int64_t offset, std::vector<int64_t> shape, std::vector<int64_t> strides) {
    detail::StridedView v;
    v.base = big;
    v.offset = offset;
    v.shape = std::move(shape);
    v.strides = std::move(strides);
    return v;
  };
  const ir::Node& matmul = *graph.results[0];
  // Rows 30 apart with unit columns (a window of a wider array), and its transpose read the
  // other way: both BLAS forms.
  const detail::StridedView a = window(33, {8, 6}, {30, 1});
  const detail::StridedView b_transposed = window(7, {6, 5}, {1, 30});
  absl::StatusOr<std::optional<ir::HostTensor>> got =
      detail::HostMatmulOfViews(matmul, a, b_transposed);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->has_value());
  absl::StatusOr<ir::HostTensor> want =
      detail::HostMatmul(matmul, detail::Materialize(a), detail::Materialize(b_transposed));
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(test::CompareTensors(**got, *want, "rel1e-12"), "");
  // No unit stride on either axis: the caller copies.
  got = detail::HostMatmulOfViews(matmul, window(0, {8, 6}, {60, 2}), b_transposed);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
  // A leading dimension shorter than a row would overlap rows: not a BLAS form either.
  got = detail::HostMatmulOfViews(matmul, window(0, {8, 6}, {3, 1}), b_transposed);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
}

/// A random CSR product: test::RandomCsr's structure and x of [cols] or [cols, k].
std::vector<ir::HostTensor> RandomProduct(int64_t rows, int64_t cols, int64_t k, DType dtype,
                                          DType index, uint64_t seed) {
  std::vector<ir::HostTensor> args = test::RandomCsr(rows, cols, 3, dtype, index, seed);
  std::vector<double> x;
  for (int64_t i = 0; i < cols * std::max<int64_t>(k, 1); ++i) {
    x.push_back(std::sin(0.37 * static_cast<double>(i + seed)));
  }
  std::vector<int64_t> x_shape = {cols};
  if (k > 0) x_shape.push_back(k);
  args.push_back(test::MakeTensor(dtype, x, x_shape));
  return args;
}

std::string SpmvText(const std::vector<ir::HostTensor>& args, int64_t rows, int64_t k) {
  const std::string t(ir::DTypeName(args[0].dtype())), i(ir::DTypeName(args[1].dtype()));
  const std::string y =
      k > 0 ? absl::StrCat(t, "[", rows, ",", k, "]") : absl::StrCat(t, "[", rows, "]");
  return absl::StrCat("func @f(%v: ", args[0].type().ToString(),
                      ", %c: ", args[1].type().ToString(), ", %o: ", args[2].type().ToString(),
                      ", %x: ", args[3].type().ToString(), ") -> (", y,
                      ") {\n  %y = spmv %v, %c, %o, %x : ", y, "\n  return %y\n}\n");
}

// The typed CSR loop (lib/backend/host/host_sparse.h) against the interpreter's: vectors and
// matrices of right-hand sides, every floating and complex dtype, i32 and i64 indices.
TEST(HostSparseTest, TheTypedCsrLoopAgreesWithTheInterpreter) {
  int seed = 40;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    for (DType index : {DType::kInt32, DType::kInt64}) {
      for (int64_t k : {0, 1, 4}) {
        const std::vector<ir::HostTensor> args = RandomProduct(30, 20, k, dtype, index, ++seed);
        const std::string text = SpmvText(args, 30, k);
        SCOPED_TRACE(text);
        const ir::Graph graph = test::ParseVerified(text);
        EXPECT_TRUE(detail::HostSparseHandles(*graph.results[0]));
        test::ExpectHostMatchesInterpreter(graph, args, GemmTolerance(dtype));
      }
    }
  }
}

// A malformed structure is the same error from the typed loop as from the interpreter.
TEST(HostSparseTest, MalformedStructuresAreErrorsNotReads) {
  std::vector<ir::HostTensor> args = RandomProduct(6, 5, 0, DType::kFloat32, DType::kInt32, 3);
  ASSERT_GT(args[1].num_elements(), 0);
  reinterpret_cast<int32_t*>(args[1].data())[0] = 99;  // a column past the end
  const ir::Graph graph = test::ParseVerified(SpmvText(args, 6, 0));
  absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(graph, args);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("column index 99 at position 0 is outside [0, 5)"),
            std::string::npos)
      << got.status();
  std::vector<ir::HostTensor> bad = RandomProduct(6, 5, 0, DType::kFloat64, DType::kInt64, 4);
  reinterpret_cast<int64_t*>(bad[2].data())[3] = -1;  // offsets that fall
  absl::StatusOr<std::vector<ir::HostTensor>> fell =
      detail::HostExecutor::Get().Run(test::ParseVerified(SpmvText(bad, 6, 0)), bad);
  ASSERT_FALSE(fell.ok());
  EXPECT_NE(fell.status().message().find("row_offsets must start at 0 and rise to nnz"),
            std::string::npos)
      << fell.status();
}

TEST(HostBlasTest, OtherDtypesKeepTheInterpretersDefinition) {
  CheckMatmul("i64[3,4]", "i64[4,2]", "i64[3,2]", 18);
  CheckMatmul("bool[3,4]", "bool[4,2]", "bool[3,2]", 19);
}

}  // namespace
}  // namespace gpuc
