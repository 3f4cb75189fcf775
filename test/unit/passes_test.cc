//===- passes_test.cc - Passes keep every bit of every result -------------===//
//
// Canonicalization's claims checked exhaustively where they can be: every cast chain over
// every triple of dtypes on edge values, every folded constant op, evaluated before and after
// the pass. The lit tests (test/lit/passes/) check the rewrites themselves.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "ir/wide_value.h"
#include "passes/pass_manager.h"

namespace gpuc::passes {
namespace {

using ir::DType;

// Values at the edges of every dtype's range and precision, given to each dtype through the
// interpreter's own conversion.
std::vector<ir::WideValue> EdgeValues() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<ir::WideValue> v;
  for (double d : {0.0,          -0.0,
                   1.0,          -1.0,
                   0.1,          1.0 / 3,
                   2.5,          -2.5,
                   127.0,        128.0,
                   255.0,        256.0,
                   -129.0,       32767.0,
                   65504.0,      65505.0,
                   65536.0,      16777217.0,
                   2147483647.0, -2147483648.0,
                   4294967295.0, 9007199254740993.0,
                   1e300,        -1e300,
                   inf,          -inf,
                   std::nan("")}) {
    v.push_back(ir::WideValue::Float(d));
  }
  for (int64_t i : {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                    int64_t{9007199254740993}, int64_t{-9007199254740993}}) {
    v.push_back(ir::WideValue::Signed(i));
  }
  v.push_back(ir::WideValue::Unsigned(std::numeric_limits<uint64_t>::max()));
  v.push_back(ir::WideValue::Complex({1.5, -2.0}));
  return v;
}

ir::HostTensor EdgeTensor(DType dtype) {
  const std::vector<ir::WideValue> values = EdgeValues();
  ir::HostTensor t(ir::TensorType{dtype, ir::Shape{static_cast<int64_t>(values.size())}});
  for (size_t i = 0; i < values.size(); ++i) {
    ir::StoreElement(dtype, t.element(static_cast<int64_t>(i)), ir::ConvertTo(dtype, values[i]));
  }
  return t;
}

std::vector<ir::HostTensor> Evaluate(const ir::Graph& graph,
                                     const std::vector<ir::HostTensor>& args) {
  absl::StatusOr<std::vector<ir::HostTensor>> out = ir::Interpret(graph, args);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<ir::HostTensor>{};
}

// Bytewise equality, except that any NaN equals any NaN (payloads are not part of NumPy's
// semantics).
bool SameValues(const ir::HostTensor& a, const ir::HostTensor& b) {
  if (!(a.type() == b.type())) return false;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (std::memcmp(a.element(i), b.element(i), ir::DTypeSize(a.dtype())) == 0) continue;
    const ir::WideValue x = ir::LoadElement(a.dtype(), a.element(i));
    const ir::WideValue y = ir::LoadElement(b.dtype(), b.element(i));
    const bool both_nan = x.domain == ir::DTypeKind::kFloat ? std::isnan(x.f) && std::isnan(y.f)
                          : x.domain == ir::DTypeKind::kComplex
                              ? std::isnan(std::abs(x.c)) && std::isnan(std::abs(y.c))
                              : false;
    if (!both_nan) return false;
  }
  return true;
}

ir::Graph Optimize(ir::Graph graph, const std::string& pipeline = DefaultPipeline()) {
  PassManagerOptions options;
  options.verify_each = true;
  absl::StatusOr<PassManager> manager = BuildPipeline(pipeline, options);
  EXPECT_TRUE(manager.ok()) << manager.status();
  EXPECT_TRUE(manager->Run(graph).ok());
  return graph;
}

TEST(Canonicalize, CastChainsKeepEveryValueForEveryDtypeTriple) {
  int collapsed = 0;
  for (int a = 0; a < ir::kNumDTypes; ++a) {
    const DType from = static_cast<DType>(a);
    const ir::HostTensor x = EdgeTensor(from);
    for (int b = 0; b < ir::kNumDTypes; ++b) {
      for (int c = 0; c < ir::kNumDTypes; ++c) {
        const DType mid = static_cast<DType>(b), to = static_cast<DType>(c);
        const ir::Shape shape = x.shape();
        ir::NodeRef p = ir::Node::Create(ir::OpCode::kParameter, {from, shape}, {}, {}, "x");
        ir::NodeRef m = ir::Node::Create(ir::OpCode::kCast, {mid, shape}, {p});
        ir::NodeRef r = ir::Node::Create(ir::OpCode::kCast, {to, shape}, {m});
        ir::Graph graph = ir::Graph::FromResults("chain", {p}, {r});
        ir::Graph optimized = Optimize(graph);
        if (optimized.nodes.size() < graph.nodes.size()) ++collapsed;
        const std::vector<ir::HostTensor> want = Evaluate(graph, {x}),
                                          got = Evaluate(optimized, {x});
        ASSERT_EQ(want.size(), 1u);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_TRUE(SameValues(got[0], want[0]))
            << ir::DTypeName(from) << " -> " << ir::DTypeName(mid) << " -> " << ir::DTypeName(to)
            << " became\n"
            << ir::Print(optimized);
      }
    }
  }
  // The rule must fire for a good share of the 3375 chains, or this test checks nothing.
  EXPECT_GT(collapsed, 600);
}

TEST(Canonicalize, FoldedBinaryOpsMatchTheInterpreterOnEdgeValues) {
  // Each binary op on a few constant pairs of each dtype, folded and not.
  const char* kOps[] = {"add",     "sub",     "mul",   "div", "floor_divide", "mod",         "pow",
                        "maximum", "minimum", "atan2", "shl", "shr",          "bitwise_and", "lt"};
  int folded = 0;
  for (const char* op : kOps) {
    for (const char* type : {"i8", "u8", "i32", "i64", "u64", "f16", "bf16", "f32", "f64"}) {
      for (const char* a : {"-7", "3", "0", "127"}) {
        for (const char* b : {"2", "-1", "0", "200"}) {
          const std::string text =
              absl::StrCat("func @f() -> (", type, "[2]) {\n  %a = constant {value = ", a,
                           "} : ", type, "[2]\n  %b = constant {value = ", b, "} : ", type,
                           "[2]\n  %r = ", op, " %a, %b : ", type, "[2]\n  return %r\n}\n");
          absl::StatusOr<ir::Graph> graph = ir::Parse(text);
          if (!graph.ok() || !ir::Verify(*graph).ok()) continue;  // op not defined on the type
          const ir::Graph optimized = Optimize(*graph, "canonicalize");
          const std::vector<ir::HostTensor> want = Evaluate(*graph, {}),
                                            got = Evaluate(optimized, {});
          if (want.empty()) continue;
          folded += optimized.nodes.size() == 1 ? 1 : 0;
          EXPECT_TRUE(SameValues(got[0], want[0])) << text << "became\n" << ir::Print(optimized);
        }
      }
    }
  }
  EXPECT_GT(folded, 1000);
}

TEST(PassManager, FuelLimitsTheRewritesOfAWholeRun) {
  const std::string text = R"(func @f(%x: f32[4]) -> (f32[4]) {
  %one = constant {value = 1.0} : f32[4]
  %a = mul %x, %one : f32[4]
  %b = mul %a, %one : f32[4]
  %c = mul %b, %one : f32[4]
  return %c
})";
  for (int fuel = 0; fuel <= 4; ++fuel) {
    ir::Graph graph = *ir::Parse(text);
    PassManagerOptions options;
    options.fuel = fuel;
    absl::StatusOr<PassManager> manager = BuildPipeline(DefaultPipeline(), options);
    ASSERT_TRUE(manager.ok());
    ASSERT_TRUE(manager->Run(graph).ok());
    // Each allowed rewrite removes one multiplication (the constant goes with the last).
    const int muls = std::max(0, 3 - fuel);
    int seen = 0;
    for (const ir::NodeRef& n : graph.nodes) seen += n->op() == ir::OpCode::kMul ? 1 : 0;
    EXPECT_EQ(seen, muls) << "fuel " << fuel;
    EXPECT_EQ(manager->rewrites(), std::min(fuel, 3));
  }
}

TEST(PassManager, UnknownPassesAreNamedWithTheKnownOnes) {
  absl::StatusOr<PassManager> manager = BuildPipeline("cse,fusion2", {});
  ASSERT_FALSE(manager.ok());
  EXPECT_NE(manager.status().message().find("unknown pass 'fusion2'"), std::string::npos);
  EXPECT_NE(manager.status().message().find("canonicalize, cse, dce"), std::string::npos);
}

}  // namespace
}  // namespace gpuc::passes
