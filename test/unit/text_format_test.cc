//===- text_format_test.cc - .gir printer/parser and JSON round trips -----===//
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "ir/json.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/type_inference.h"
#include "ir/user_kernel_semantics.h"
#include "ir/verifier.h"
#include "test/unit/test_util.h"

namespace gpuc::ir {
namespace {

NodeRef Param(DType d, Shape s, const std::string& name) {
  return Node::Create(OpCode::kParameter, TensorType{d, std::move(s)}, {}, {}, name);
}

/// One valid use of `op`, with the parameters it needs appended to `params`.
NodeRef ExampleNode(OpCode op, std::vector<NodeRef>& params) {
  auto param = [&](DType d, Shape s) {
    params.push_back(Param(d, std::move(s), absl::StrCat("p", params.size())));
    return params.back();
  };
  const OpInfo& info = GetOpInfo(op);
  std::vector<NodeRef> operands;
  Attributes attrs;
  std::optional<TensorType> requested;
  switch (op) {
    case OpCode::kWhere:
      operands = {param(DType::kBool, {2, 3}), param(DType::kFloat32, {2, 3}),
                  param(DType::kFloat64, {3})};
      break;
    case OpCode::kCast:
      operands = {param(DType::kFloat32, {2, 3})};
      requested = TensorType{DType::kFloat16, {2, 3}};
      break;
    case OpCode::kBroadcastTo:
      operands = {param(DType::kFloat32, {3})};
      requested = TensorType{DType::kFloat32, {2, 3}};
      break;
    case OpCode::kReshape:
      operands = {param(DType::kFloat32, {2, 3})};
      requested = TensorType{DType::kFloat32, {6}};
      break;
    case OpCode::kTranspose:
      operands = {param(DType::kFloat32, {2, 3})};
      attrs.Set("perm", std::vector<int64_t>{1, 0});
      break;
    case OpCode::kSlice:
      operands = {param(DType::kFloat32, {5, 3})};
      attrs.Set("start", std::vector<int64_t>{4, 0});
      attrs.Set("stop", std::vector<int64_t>{-1, 3});
      attrs.Set("step", std::vector<int64_t>{-2, 1});
      break;
    case OpCode::kUpdateSlice:
      operands = {param(DType::kFloat32, {5, 3}), param(DType::kFloat32, {3, 3})};
      attrs.Set("start", std::vector<int64_t>{4, 0});
      attrs.Set("stop", std::vector<int64_t>{-1, 3});
      attrs.Set("step", std::vector<int64_t>{-2, 1});
      break;
    case OpCode::kConcatenate:
      operands = {param(DType::kFloat32, {2, 3}), param(DType::kFloat32, {1, 3})};
      attrs.Set("axis", int64_t{0});
      break;
    case OpCode::kPad:
      operands = {param(DType::kFloat32, {2, 3})};
      attrs.Set("low", std::vector<int64_t>{1, 0});
      attrs.Set("high", std::vector<int64_t>{0, 2});
      attrs.Set("value", -0.0);
      break;
    case OpCode::kIota:
      attrs.Set("axis", int64_t{0});
      requested = TensorType{DType::kInt32, {4}};
      break;
    case OpCode::kConstant:
      attrs.Set("value", std::complex<double>(1e-7, -NAN));
      requested = TensorType{DType::kComplex64, {}};
      break;
    case OpCode::kMatmul:
      operands = {param(DType::kFloat32, {2, 3}), param(DType::kFloat32, {3, 4})};
      break;
    case OpCode::kFft:
      operands = {param(DType::kComplex64, {2, 8})};
      attrs.Set("axes", std::vector<int64_t>{1});
      attrs.Set("inverse", true);
      attrs.Set("norm", std::string("ortho"));
      break;
    case OpCode::kSpmv:
      operands = {param(DType::kFloat32, {5}), param(DType::kInt32, {5}), param(DType::kInt32, {4}),
                  param(DType::kFloat32, {6})};
      break;
    case OpCode::kSpsolve:
      operands = {param(DType::kFloat64, {5}), param(DType::kInt64, {5}), param(DType::kInt64, {4}),
                  param(DType::kFloat64, {3, 2})};
      break;
    case OpCode::kLinalg:
      operands = {param(DType::kFloat64, {2, 3, 3}), param(DType::kFloat64, {2, 3, 4})};
      attrs.Set("routine", std::string("solve"));
      break;
    case OpCode::kSort:
    case OpCode::kArgSort:
      operands = {param(DType::kComplex64, {2, 5})};
      attrs.Set("axis", int64_t{1});
      break;
    case OpCode::kMatmulBias:
      operands = {param(DType::kFloat32, {4, 3}), param(DType::kFloat32, {2, 3}),
                  param(DType::kFloat32, {2})};
      attrs.Set("transpose_b", true);
      attrs.Set("activation", std::string("relu"));
      break;
    case OpCode::kTake:
      operands = {param(DType::kFloat32, {2, 3}), param(DType::kInt32, {4})};
      attrs.Set("axis", int64_t{1});
      break;
    case OpCode::kScatter:
      operands = {param(DType::kFloat32, {4, 3}), param(DType::kInt32, {5}),
                  param(DType::kFloat64, {5, 3})};
      attrs.Set("axis", int64_t{0});
      attrs.Set("combiner", std::string("add"));
      attrs.Set("wrap", false);
      break;
    case OpCode::kUserElementwise:
      // Quotes, backslashes and newlines in the code must survive both forms.
      operands = {param(DType::kFloat32, {2, 3}), param(DType::kInt32, {3})};
      attrs = UserElementwiseAttributes({"scaled",
                                         {{DType::kFloat32, "x"}, {DType::kInt32, "n"}},
                                         {{DType::kFloat32, "y"}},
                                         "y = x * n; // \"twice\"\n",
                                         "#define TWO 2.0f\n",
                                         0});
      break;
    default: {
      DType d = Contains(info.loops, DType::kFloat32) ? DType::kFloat32
                : Contains(info.loops, DType::kInt32) ? DType::kInt32
                                                      : DType::kUInt64;
      if (info.kind == OpKind::kScan) {
        operands = {param(d, {2, 3})};
        attrs.Set("axis", int64_t{1});
      } else if (info.kind == OpKind::kReduction) {
        operands = {param(d, {2, 3})};
        attrs.Set("axes", std::vector<int64_t>{1});
        attrs.Set("keepdims", true);
      } else {
        for (int i = 0; i < info.arity; ++i) operands.push_back(param(d, {2, 3}));
      }
    }
  }
  std::vector<TensorType> types;
  for (const NodeRef& o : operands) types.push_back(o->type());
  absl::StatusOr<TensorType> type = InferResultType(op, types, attrs, requested);
  EXPECT_TRUE(type.ok()) << OpName(op) << ": " << type.status();
  return Node::Create(op, type.value_or(TensorType{}), operands, attrs, "r");
}

TEST(TextFormat, EveryOpRoundTripsThroughTextAndJson) {
  for (OpCode op : AllOps()) {
    if (op == OpCode::kParameter) continue;
    std::vector<NodeRef> params;
    NodeRef node = ExampleNode(op, params);
    Graph graph = Graph::FromResults(std::string(OpName(op)), params, {node});
    ASSERT_TRUE(Verify(graph).ok()) << Verify(graph);
    std::string text = Print(graph);
    absl::StatusOr<Graph> parsed = Parse(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
    EXPECT_TRUE(Verify(*parsed).ok()) << Verify(*parsed);
    EXPECT_EQ(Print(*parsed), text);
    // The parsed node equals the original, attribute by attribute (NaN compares unequal, so
    // the printed forms are compared for the constant).
    const Node& reparsed = *parsed->nodes.back();
    EXPECT_EQ(reparsed.op(), op);
    EXPECT_EQ(reparsed.type(), node->type());
    if (op != OpCode::kConstant) {
      EXPECT_TRUE(reparsed.attrs() == node->attrs()) << text;
    }
    absl::StatusOr<Graph> from_json = FromJson(ToJson(graph));
    ASSERT_TRUE(from_json.ok()) << from_json.status();
    EXPECT_EQ(Print(*from_json), text);
    // And through the serialized JSON text.
    absl::StatusOr<Graph> from_dump = FromJson(nlohmann::json::parse(ToJson(graph).dump()));
    ASSERT_TRUE(from_dump.ok()) << from_dump.status();
    EXPECT_EQ(Print(*from_dump), text);
  }
}

TEST(TextFormat, DoublesKeepTheirBits) {
  for (double d : {0.1, -0.0, 1e-7, 5e-324, 1.7976931348623157e308, 2.0, -3.25, 1e22}) {
    Graph g = Graph::FromResults(
        "c", {},
        {Node::Create(OpCode::kConstant, TensorType{DType::kFloat64, {}}, {}, {{"value", d}})});
    absl::StatusOr<Graph> parsed = Parse(Print(g));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    double back = *parsed->nodes[0]->attrs().Get<double>("value");
    EXPECT_EQ(std::bit_cast<uint64_t>(back), std::bit_cast<uint64_t>(d)) << PrintDouble(d);
  }
  EXPECT_EQ(PrintDouble(2.0), "2.0");
  EXPECT_EQ(PrintDouble(-0.0), "-0.0");
  EXPECT_EQ(PrintDouble(-INFINITY), "-inf");
}

TEST(TextFormat, NamesArePreservedAndMadeUnique) {
  NodeRef x = Param(DType::kFloat32, {4}, "x");
  NodeRef a = Node::Create(OpCode::kExp, TensorType{DType::kFloat32, {4}}, {x}, {}, "x");
  NodeRef b = Node::Create(OpCode::kNeg, TensorType{DType::kFloat32, {4}}, {a}, {}, "");
  NodeRef c = Node::Create(OpCode::kAbs, TensorType{DType::kFloat32, {4}}, {b}, {}, "not valid!");
  std::string text = Print(Graph::FromResults("f", {x}, {c}));
  EXPECT_NE(text.find("(%x: f32[4])"), std::string::npos) << "the parameter keeps 'x'";
  EXPECT_NE(text.find("%x.0 = exp %x"), std::string::npos) << text;
  absl::StatusOr<Graph> parsed = Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << text;
  EXPECT_EQ(Print(*parsed), text);
}

struct BadText {
  const char* text;
  const char* message;  // a substring of the error, which starts with line:column
};

TEST(TextFormat, ParseErrorsGivePositionAndExpectation) {
  const BadText cases[] = {
      {"", "1:1: expected 'func'"},
      {"func @f(%x: f32[2]) -> (f32[2]) {\n  return %y\n}", "2:10: use of undefined value '%y'"},
      {"func @f(%x: f32[2]) -> (f32[2]) {\n  %y = frob %x : f32[2]\n  return %y\n}",
       "2:8: unknown op 'frob'"},
      {"func @f(%x: f33[2]) -> (f32[2]) { return %x }", "1:13: unknown dtype 'f33'"},
      {"func @f(%x: f32[2]) -> (f32[2]) {\n  %y = exp %x f32[2]\n  return %y\n}",
       "2:15: expected ':' before the result type"},
      {"func @f(%x: f32[2]) -> (f32[2]) {\n  %x = exp %x : f32[2]\n  return %x\n}",
       "2:3: value '%x' is defined twice"},
      {"func @f(%x: f32[99999999999999999999]) -> () { return }", "does not fit in 64 bits"},
      {"func @f(%x: f32[2]) -> (f32[3]) { return %x }", "signature declares f32[3]"},
      {"func @f(%x: f32[2]) -> (f32[2]) {\n  %y = neg %x {a = 1, a = 2} : f32[2]\n  return %y\n}",
       "given twice"},
      {"func @f(%x: f32[2]) -> (f32[2]) { return %x } extra", "expected end of input"},
      {"func @f(%x: f32[2]) -> (f32[2]) {\n  %y = neg %x {s = \"open} : f32[2]\n}",
       "unexpected character '\"'"},
      {"func @f(%x: f32[2]) -> (f32[2]) { return %x $ }", "unexpected character '$'"},
  };
  for (const BadText& c : cases) {
    absl::StatusOr<Graph> g = Parse(c.text);
    ASSERT_FALSE(g.ok()) << c.text;
    EXPECT_NE(g.status().message().find(c.message), std::string::npos)
        << "got: " << g.status().message() << "\nwant: " << c.message;
  }
}

TEST(TextFormat, JsonErrorsNameTheField) {
  nlohmann::json bad = {
      {"name", "f"},
      {"params", nlohmann::json::array()},
      {"nodes", {{{"name", "y"}, {"op", "exp"}, {"operands", {"q"}}, {"type", "f32[2]"}}}},
      {"results", {"y"}}};
  absl::StatusOr<Graph> g = FromJson(bad);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("undefined value 'q'"), std::string::npos) << g.status();
  EXPECT_FALSE(FromJson(nlohmann::json::array()).ok());
  EXPECT_FALSE(FromJson({{"name", 3}}).ok());
}

}  // namespace
}  // namespace gpuc::ir
