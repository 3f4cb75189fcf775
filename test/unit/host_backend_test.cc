//===- host_backend_test.cc - The compiled host back end against the oracle ===//
//
// Differential tests: seeded random graphs over every dtype, elementwise op, reduction and
// view (test/unit/random_graph.h) run through the default passes, fusion, LLVM code
// generation and the host JIT, and must agree with the reference interpreter on the
// unoptimized graph: integers and bools exactly, floats within a few units of rounding of
// their dtype (elementwise math is bit-identical; only summation order differs). Hundreds
// of graphs per run, with 32-bit and with 64-bit index arithmetic; GPUC_DIFFERENTIAL_GRAPHS=N
// runs more, GPUC_DIFFERENTIAL_SEED=S one.
//
//===----------------------------------------------------------------------===//
#include <cstdlib>
#include <iostream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "lib/backend/host/host_executor.h"
#include "lib/exec/options.h"
#include "passes/pass_manager.h"
#include "test/unit/host_check.h"
#include "test/unit/random_graph.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc {
namespace {

using ir::DType;

void CheckGraph(uint64_t seed) {
  test::RandomGraphOptions options;
  options.all_dtypes = true;
  options.all_ops = true;
  const ir::Graph graph = test::RandomGraph(seed, options);
  SCOPED_TRACE(absl::StrCat("seed ", seed, "\n", ir::Print(graph)));
  const std::vector<ir::HostTensor> args = tool::RandomArguments(graph, seed);
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);

  ir::Graph optimized = graph;
  absl::StatusOr<passes::PassManager> pipeline =
      passes::BuildPipeline(passes::DefaultPipeline(), passes::PassManagerOptions{});
  ASSERT_TRUE(pipeline.ok());
  ASSERT_TRUE(pipeline->Run(optimized).ok());
  absl::StatusOr<std::vector<ir::HostTensor>> got =
      detail::HostExecutor::Get().Run(optimized, args);
  if (!want.ok()) {
    ASSERT_FALSE(got.ok()) << "the interpreter failed (" << want.status() << ") but not the host";
    EXPECT_EQ(got.status().message(), want.status().message());
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  for (size_t r = 0; r < want->size(); ++r) {
    const std::string difference = test::CompareTensors(
        (*got)[r], (*want)[r], test::DifferentialTolerance(graph, (*want)[r].dtype()));
    EXPECT_EQ(difference, "") << "result " << r;
  }
}

TEST(HostBackendTest, RandomGraphsAgreeWithTheInterpreter) {
  if (const char* one = std::getenv("GPUC_DIFFERENTIAL_SEED")) {
    CheckGraph(std::strtoull(one, nullptr, 10));
    return;
  }
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  for (int seed = 0; seed < test::DifferentialGraphCount(); ++seed) {
    CheckGraph(static_cast<uint64_t>(seed));
    if (HasFailure()) return;  // one graph's report is enough to debug from
  }
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  const int64_t compiled = after.kernel_runs - before.kernel_runs;
  const int64_t interpreted = after.interpreted_kernels - before.interpreted_kernels;
  std::cout << compiled << " compiled kernel runs (" << after.compiles - before.compiles
            << " compiles, " << after.disk_hits - before.disk_hits << " disk hits), " << interpreted
            << " kernels interpreted (last: " << after.last_interpreted_reason << "), "
            << after.library_steps - before.library_steps << " library steps, "
            << after.in_place_outputs - before.in_place_outputs << " outputs in place\n";
  // The suite is about compiled code: the kernels without a lowering must stay the exception.
  EXPECT_GT(compiled, 10 * interpreted);
}

TEST(HostBackendTest, ComplexProductsAndMagnitudesAreTheInterpretersOnSpecialValues) {
  // Every pair of parts from zeros of both signs, finite, huge, tiny, infinite and NaN values:
  // the native complex multiply and square (NumPy's schoolbook products in the parts'
  // precision) must give the interpreter's result exactly, signs of zero included, in both
  // precisions; and |z| (NumPy's larger * sqrt(fma(r, r, 1)), vectorized) over the same values.
  // NumPy itself is the reference in graph_cases.json (complex_*_specials).
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> parts = {0.0, -0.0, 1.0, -2.0, inf, -inf, std::nan(""), 1e308, 1e-320};
  std::vector<double> a, b;
  for (double ar : parts)
    for (double ai : parts)
      for (double br : parts)
        for (double bi : parts) {
          a.insert(a.end(), {ar, ai});
          b.insert(b.end(), {br, bi});
        }
  const int64_t n = static_cast<int64_t>(a.size() / 2);
  std::string text =
      "func @f(%a: c128[N], %b: c128[N], %c: c64[N], %d: c64[N]) -> (c128[N], c64[N], c128[N], "
      "f64[N], f32[N]) {\n"
      "  %p = mul %a, %b : c128[N]\n  %q = mul %c, %d : c64[N]\n"
      "  %s = square %a : c128[N]\n  %m = abs %a : f64[N]\n  %k = abs %c : f32[N]\n"
      "  return %p, %q, %s, %m, %k\n}\n";
  text = absl::StrReplaceAll(text, {{"N", absl::StrCat(n)}});
  absl::StatusOr<ir::Graph> graph = ir::Parse(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto complex = [&](ir::DType dtype, const std::vector<double>& values) {
    ir::HostTensor t(ir::TensorType{dtype, ir::Shape({n})});
    for (int64_t i = 0; i < 2 * n; ++i) {
      if (dtype == ir::DType::kComplex128) {
        t.data_as<double>()[i] = values[i];
      } else {
        t.data_as<float>()[i] = static_cast<float>(values[i]);
      }
    }
    return t;
  };
  const std::vector<ir::HostTensor> args = {
      complex(ir::DType::kComplex128, a), complex(ir::DType::kComplex128, b),
      complex(ir::DType::kComplex64, a), complex(ir::DType::kComplex64, b)};
  test::ExpectHostMatchesInterpreter(*graph, args, "exact");
}

TEST(HostBackendTest, MaxAndMinOfSignedZerosAndNansDoNotDependOnTheOrder) {
  // reduce_max/min are IEEE maximum/minimum (+0.0 above -0.0, any NaN wins), so vectorized
  // and tree-combined code agrees with the interpreter whatever order it takes the elements
  // in. Rows of 100 zeros with one zero of the other sign at a different place in each row,
  // and rows with one NaN among numbers; each row's max and min, and over everything.
  constexpr int64_t kRows = 8, kColumns = 100;
  ir::HostTensor zeros(ir::TensorType{DType::kFloat32, ir::Shape({kRows, kColumns})});
  ir::HostTensor nans(ir::TensorType{DType::kFloat64, ir::Shape({kRows, kColumns})});
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kColumns; ++c) {
      const bool odd_one = c == (r * 13) % kColumns;
      zeros.data_as<float>()[r * kColumns + c] = (r % 2 == 0) == odd_one ? 0.0f : -0.0f;
      nans.data_as<double>()[r * kColumns + c] =
          odd_one ? std::nan("") : std::sin(static_cast<double>(r * kColumns + c));
    }
  }
  const ir::Graph graph = test::ParseVerified(
      "func @f(%z: f32[8,100], %n: f64[8,100]) -> (f32[8], f32[8], f32[], f32[], f64[8], f64[8]) "
      "{\n  %a = reduce_max %z {axes = [1]} : f32[8]\n  %b = reduce_min %z {axes = [1]} : f32[8]\n"
      "  %c = reduce_max %z {axes = [0, 1]} : f32[]\n  %d = reduce_min %z {axes = [0, 1]} : f32[]\n"
      "  %e = reduce_max %n {axes = [1]} : f64[8]\n  %f = reduce_min %n {axes = [1]} : f64[8]\n"
      "  return %a, %b, %c, %d, %e, %f\n}\n");
  const std::vector<ir::HostTensor> args = {zeros, nans};
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  for (const std::vector<ir::HostTensor>* results : {&*want, &*got}) {
    const std::vector<ir::HostTensor>& v = *results;
    for (int64_t r = 0; r < kRows; ++r) {
      EXPECT_EQ(v[0].data_as<float>()[r], 0.0f);
      EXPECT_FALSE(std::signbit(v[0].data_as<float>()[r])) << "max of row " << r;
      EXPECT_TRUE(std::signbit(v[1].data_as<float>()[r])) << "min of row " << r;
      EXPECT_TRUE(std::isnan(v[4].data_as<double>()[r])) << "max of row " << r;
      EXPECT_TRUE(std::isnan(v[5].data_as<double>()[r])) << "min of row " << r;
    }
    EXPECT_FALSE(std::signbit(v[2].data_as<float>()[0]));
    EXPECT_TRUE(std::signbit(v[3].data_as<float>()[0]));
  }
}

TEST(HostBackendTest, RowKernelsReadBackWhatTheirReducePhaseLeftInAnOutput) {
  // Softmax in f32 and f64 (the exp is computed once, left in the result's storage by the
  // sum's phase: KernelSpec::carried); a log-softmax whose two outputs share the exp; a
  // value of another dtype than the output (not carried); and a row wider than a vector.
  for (int64_t columns : {1, 5, 16, 300}) {
    SCOPED_TRACE(absl::StrCat(columns, " columns"));
    const std::string text = absl::StrReplaceAll(
        "func @f(%x: f32[37,C], %y: f64[9,C]) -> (f32[37,C], f64[9,C], f64[9,C], f32[37,C]) {\n"
        "  %m = reduce_max %x {axes = [1], keepdims = true} : f32[37,1]\n"
        "  %d = sub %x, %m : f32[37,C]\n  %e = exp %d : f32[37,C]\n"
        "  %s = reduce_sum %e {axes = [1], keepdims = true} : f32[37,1]\n"
        "  %p = div %e, %s : f32[37,C]\n"
        "  %n = reduce_max %y {axes = [1], keepdims = true} : f64[9,1]\n"
        "  %t = sub %y, %n : f64[9,C]\n  %u = exp %t : f64[9,C]\n"
        "  %v = reduce_sum %u {axes = [1], keepdims = true} : f64[9,1]\n"
        "  %q = div %u, %v : f64[9,C]\n  %l = log %v : f64[9,1]\n  %w = sub %t, %l : f64[9,C]\n"
        "  %c = cast %e : f64[37,C]\n  %k = reduce_sum %c {axes = [1], keepdims = true} : "
        "f64[37,1]\n"
        "  %z = cast %k : f32[37,1]\n  %r = mul %e, %z : f32[37,C]\n"
        "  return %p, %q, %w, %r\n}\n",
        {{"C", absl::StrCat(columns)}});
    const ir::Graph graph = test::ParseVerified(text);
    const std::vector<ir::HostTensor> args = tool::RandomArguments(graph, columns);
    absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(graph, args);
    ASSERT_TRUE(got.ok()) << got.status();
    for (size_t r = 0; r < want->size(); ++r) {
      // libmvec's exp is within 4 ulp of libm's, and the vectorized sums reassociate.
      EXPECT_EQ(test::CompareTensors((*got)[r], (*want)[r],
                                     test::DifferentialTolerance((*want)[r].dtype())),
                "")
          << "result " << r;
    }
  }
}

TEST(HostBackendTest, TakesOutOfBoundsInVectorizedLoopsAreReportedAfterTheLoop) {
  // A take's bounds check folds into two reductions reported when the phase function ends
  // (FunctionFrame::defer_take_errors), so the gathers vectorize: good indices (negative ones
  // wrapping) gather what the interpreter gathers; one bad index anywhere is reported by
  // value; of several, the largest.
  const ir::Graph graph = test::ParseVerified(
      "func @f(%d: f64[101], %i: i64[1000]) -> (f64[1000]) {\n"
      "  %t = take %d, %i {axis = 0} : f64[1000]\n  %u = mul %t, %t : f64[1000]\n"
      "  return %u\n}\n");
  std::vector<ir::HostTensor> args = tool::RandomArguments(graph, 3);
  int64_t* index = args[1].data_as<int64_t>();
  for (int64_t k = 0; k < 1000; ++k) index[k] = (k * 37) % 202 - 101;  // [-101, 100]
  test::ExpectHostMatchesInterpreter(graph, args, "exact");
  for (int64_t bad_at : {0, 7, 500, 999}) {
    SCOPED_TRACE(absl::StrCat("bad index at ", bad_at));
    std::vector<ir::HostTensor> bad = args;
    bad[1] = args[1].Clone();
    bad[1].data_as<int64_t>()[bad_at] = 101 + bad_at;
    absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(graph, bad);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(std::string(got.status().message()),
                ::testing::HasSubstr(absl::StrCat("index ", 101 + bad_at, " is out of bounds")));
  }
  std::vector<ir::HostTensor> two_bad = args;
  two_bad[1] = args[1].Clone();
  two_bad[1].data_as<int64_t>()[3] = -500;
  two_bad[1].data_as<int64_t>()[900] = 300;
  absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(graph, two_bad);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(std::string(got.status().message()), ::testing::HasSubstr("index 300 is out of"));
  // The executor stays usable.
  test::ExpectHostMatchesInterpreter(graph, args, "exact");
}

TEST(HostBackendTest, ColumnReductionsInTilesAgreeWithTheInterpreter) {
  // Reducing leading axes into the last one runs tiles of 256 columns whose states sit side
  // by side (kernel_emitter.cc): widths below, at and across a tile, every combiner, argmax's
  // first extreme, two reduced axes, and integers and bools.
  for (int64_t columns : {1, 7, 255, 256, 257, 600}) {
    SCOPED_TRACE(absl::StrCat(columns, " columns"));
    const std::string text = absl::StrReplaceAll(
        "func @f(%x: f32[37,C], %y: i32[3,5,C], %z: bool[9,C]) -> (f32[C], f32[C], i64[C], "
        "f64[C], i64[C], bool[C], f32[C]) {\n"
        "  %e = exp %x : f32[37,C]\n"
        "  %s = reduce_sum %e {axes = [0]} : f32[C]\n"
        "  %m = reduce_max %x {axes = [0]} : f32[C]\n"
        "  %a = argmax %x {axes = [0]} : i64[C]\n"
        "  %xd = cast %x : f64[37,C]\n"
        "  %mean = reduce_sum %xd {axes = [0]} : f64[C]\n"
        "  %t = reduce_sum %y {axes = [0, 1]} : i64[C]\n"
        "  %any = reduce_any %z {axes = [0]} : bool[C]\n"
        "  %mn = reduce_min %x {axes = [0]} : f32[C]\n"
        "  return %s, %m, %a, %mean, %t, %any, %mn\n}\n",
        {{"C", absl::StrCat(columns)}});
    absl::StatusOr<ir::Graph> graph = ir::Parse(text);
    ASSERT_TRUE(graph.ok()) << graph.status() << "\n" << text;
    test::ExpectHostMatchesInterpreter(*graph, tool::RandomArguments(*graph, columns), "exact");
  }
}

TEST(HostBackendTest, IntegerPowersWrapAndHandleNegativeExponentsAsTheInterpreterDoes) {
  std::vector<double> bases, exponents;
  for (double base : {-7.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 7.0}) {
    for (double exponent : {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 7.0, 31.0, 62.0, 63.0, 100.0}) {
      bases.push_back(base);
      exponents.push_back(exponent);
    }
  }
  const int64_t n = static_cast<int64_t>(bases.size());
  const std::string text = absl::StrReplaceAll(
      "func @f(%a: i64[N], %b: i64[N], %c: i8[N], %d: i8[N], %e: u32[N], %g: u32[N]) ->"
      " (i64[N], i8[N], u32[N]) {\n  %p = pow %a, %b : i64[N]\n  %q = pow %c, %d : i8[N]\n"
      "  %r = pow %e, %g : u32[N]\n  return %p, %q, %r\n}\n",
      {{"N", absl::StrCat(n)}});
  absl::StatusOr<ir::Graph> graph = ir::Parse(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<double> unsigned_bases;
  for (double v : bases) unsigned_bases.push_back(v < 0 ? -v : v);
  std::vector<double> unsigned_exponents;
  for (double v : exponents) unsigned_exponents.push_back(v < 0 ? -v : v);
  const std::vector<ir::HostTensor> args = {test::MakeTensor(DType::kInt64, bases),
                                            test::MakeTensor(DType::kInt64, exponents),
                                            test::MakeTensor(DType::kInt8, bases),
                                            test::MakeTensor(DType::kInt8, exponents),
                                            test::MakeTensor(DType::kUInt32, unsigned_bases),
                                            test::MakeTensor(DType::kUInt32, unsigned_exponents)};
  test::ExpectHostMatchesInterpreter(*graph, args, "exact");
  absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(*graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].data_as<int64_t>()[0], 0) << "(-7)^-3 truncates to 0";
}

TEST(HostBackendTest, RandomGraphsAgreeWithSixtyFourBitIndexing) {
  // Kernels index in 32 bits below 2^31 elements; this runs the 64-bit path on the same
  // kind of graphs (other seeds), so both widths stay tested.
  exec::Options wide = exec::CurrentOptions();
  wide.min_index_bits = 64;
  exec::ScopedOptions scope(wide);
  for (int seed = 100000; seed < 100000 + test::DifferentialGraphCount() / 3; ++seed) {
    CheckGraph(static_cast<uint64_t>(seed));
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace gpuc
