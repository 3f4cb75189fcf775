//===- verifier_test.cc - Every rejection of the verifier -----------------===//
#include "ir/verifier.h"

#include <functional>

#include <gtest/gtest.h>

#include "ir/parser.h"

namespace gpuc::ir {
namespace {

TensorType T(DType d, Shape s) { return TensorType{d, std::move(s)}; }
NodeRef P(DType d, Shape s, const char* name = "x") {
  return Node::Create(OpCode::kParameter, T(d, std::move(s)), {}, {}, name);
}

/// Rejections that are easiest to state in text: the body parses, the verifier refuses it.
struct TextCase {
  const char* body;  // the statements of func @f(%x: f32[2,3], %b: bool[2,3], %i: i32[4])
  const char* result_type;
  const char* message;
};

TEST(Verifier, RejectsIllTypedNodesWithTheNodesName) {
  const TextCase cases[] = {
      {"%y = add %x : f32[2,3]", "f32[2,3]", "%y = add: takes 2 operands, got 1"},
      {"%y = add %x, %x : f64[2,3]", "f64[2,3]", "does not match the inferred f32[2,3]"},
      {"%y = add %x, %x : f32[3,2]", "f32[3,2]", "does not match the inferred f32[2,3]"},
      {"%y = sub %b, %b : bool[2,3]", "bool[2,3]", "%y = sub: not supported for dtype bool, bool"},
      {"%y = bitwise_and %x, %x : f32[2,3]", "f32[2,3]", "not supported for dtype f32"},
      {"%y = add %x, %i : f32[2,4]", "f32[2,4]", "cannot be broadcast together"},
      {"%y = where %x, %x, %x : f32[2,3]", "f32[2,3]", "condition must be bool"},
      {"%y = reduce_sum %x {axes = [2]} : f32[2]", "f32[2]", "axis 2 is out of range"},
      {"%y = reduce_sum %x {axes = [1, 0]} : f32[]", "f32[]", "must be sorted and unique"},
      {"%y = reduce_sum %x : f32[]", "f32[]", "missing attribute 'axes'"},
      {"%y = reduce_sum %x {axes = [0], keepdim = true} : f32[3]", "f32[3]",
       "unknown attribute 'keepdim'"},
      {"%y = reduce_sum %x {axes = 0} : f32[3]", "f32[3]",
       "'axes' must be a list of ints, not int"},
      {"%y = transpose %x {perm = [0, 0]} : f32[2,2]", "f32[2,2]", "is not a permutation"},
      {"%y = slice %x {start = [0, 0], stop = [3, 3], step = [1, 1]} : f32[3,3]", "f32[3,3]",
       "is not a normalized slice of extent 2"},
      {"%y = slice %x {start = [0, 0], stop = [2, 3], step = [1, 0]} : f32[2,3]", "f32[2,3]",
       "step 0"},
      {"%y = slice %x {start = [1, 0], stop = [0, 3], step = [-9223372036854775808, 1]} : f32[1,3]",
       "f32[1,3]", "is not a normalized slice"},
      {"%y = reshape %x : f32[7]", "f32[7]", "cannot reshape f32[2,3] (6 elements) to [7]"},
      {"%y = broadcast_to %x : f32[2,4]", "f32[2,4]", "cannot broadcast f32[2,3] to [2,4]"},
      {"%y = reshape %x : f64[6]", "f64[6]", "result dtype f64 differs"},
      {"%y = concatenate %x, %i {axis = 0} : f32[3,3]", "f32[3,3]", "operands must share a dtype"},
      {"%y = pad %x {low = [-1, 0], high = [0, 0]} : f32[1,3]", "f32[1,3]", "must be in [0, 2^56]"},
      {"%y = pad %x {low = [0], high = [0]} : f32[2,3]", "f32[2,3]", "need 2 entries"},
      {"%y = iota {axis = 1} : f32[4]", "f32[4]", "axis 1 is out of range"},
      {"%y = iota {axis = 0} : bool[4]", "bool[4]", "dtype bool is not supported"},
      {"%y = constant : f32[]", "f32[]", "missing attribute 'value'"},
      {"%y = constant {value = f32} : f32[]", "f32[]", "must be a number, not dtype"},
      {"%y = matmul %x, %x : f32[2,3]", "f32[2,3]", "contracted extents differ"},
      {"%y = matmul %i, %x {transpose_a = true} : f32[3]", "f32[3]",
       "transpose_a needs an operand of rank >= 2"},
      {"%y = matmul %x, %x {transpose_b = 1} : f32[2,2]", "f32[2,2]", "transpose_b"},
      {"%y = fft %x {axes = [1]} : f32[2,3]", "f32[2,3]", "must be complex64 or complex128"},
      {"%y = fft %x {axes = [1], kind = \"r2c\", inverse = true} : c64[2,2]", "c64[2,2]",
       "an r2c transform is forward"},
      {"%y = fft %i {axes = [0], kind = \"r2c\"} : c64[3]", "c64[3]",
       "an r2c operand must be float32 or float64, not i32"},
      {"%y = fft %x {axes = [1], kind = \"c2r\", inverse = true} : f32[2,4]", "f32[2,4]",
       "needs n, its output length"},
      {"%y = fft %x {axes = [1], kind = \"c2r\", inverse = true, n = 4} : f32[2,4]", "f32[2,4]",
       "a c2r operand must be complex64 or complex128, not f32"},
      {"%y = fft %x {axes = [1], kind = \"r2c\"} : c64[2,3]", "c64[2,3]",
       "does not match the inferred c64[2,2]"},
      {"%y = fft %x {axes = [1], kind = \"dct\"} : c64[2,2]", "c64[2,2]",
       "kind must be c2c, r2c or c2r, not 'dct'"},
      {"%y = fft %x {axes = [1], n = 3} : c64[2,3]", "c64[2,3]", "only a c2r transform takes n"},
      {"%y = cast %x : f16[3,2]", "f16[3,2]", "differs from the operand's [2,3]"},
      {"%y = spmv %x, %i, %i, %x : f32[3]", "f32[3]", "expects values T[nnz]"},
      {"%y = spmv %e, %i, %i, %e : f32[3]", "f32[3]", "x T[cols] or T[cols,k]"},
      {"%y = reduce_max %e {axes = [0]} : f32[3]", "f32[3]", "has no identity"},
      {"%y = exp %x : f32[-2,3]", "f32[-2,3]", "negative extent"},
  };
  for (const TextCase& c : cases) {
    std::string text =
        std::string("func @f(%x: f32[2,3], %b: bool[2,3], %i: i32[4], %e: f32[0,3]) -> (") +
        c.result_type + ") {\n  " + c.body + "\n  return %y\n}\n";
    absl::StatusOr<Graph> graph = Parse(text);
    ASSERT_TRUE(graph.ok()) << graph.status() << "\n" << text;
    absl::Status s = Verify(*graph);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.message().find(c.message), std::string::npos)
        << "got: " << s.message() << "\nwant: " << c.message;
    EXPECT_NE(s.message().find("@f: %y"), std::string::npos) << s.message();
  }
}

TEST(Verifier, RejectsBrokenStructure) {
  NodeRef x = P(DType::kFloat32, {2});
  NodeRef a = Node::Create(OpCode::kNeg, T(DType::kFloat32, {2}), {x}, {}, "a");
  NodeRef b = Node::Create(OpCode::kNeg, T(DType::kFloat32, {2}), {a}, {}, "b");
  NodeRef stranger = P(DType::kFloat32, {2}, "stranger");
  NodeRef c = Node::Create(OpCode::kNeg, T(DType::kFloat32, {2}), {stranger}, {}, "c");
  struct Case {
    Graph graph;
    const char* message;
  } cases[] = {
      {Graph{"f", {x}, {b, a}, {b}}, "%b = neg: operand 0 (%a) is not defined before its use"},
      {Graph{"f", {x}, {a, a}, {a}}, "%a = neg: is defined twice"},
      {Graph{"f", {a}, {}, {a}}, "is a 'neg' node, not a parameter"},
      {Graph{"f", {x, x}, {}, {x}}, "is a parameter twice"},
      {Graph{"f", {x}, {stranger, c}, {c}}, "is a parameter that is not in the function signature"},
      {Graph{"f", {x}, {c}, {c}}, "operand 0 (%stranger) is not defined before its use"},
      {Graph{"f", {x}, {a}, {}}, "returns no values"},
      {Graph{"f", {x}, {a}, {b}}, "result 'neg' is not defined in the graph"},
  };
  for (const Case& k : cases) {
    absl::Status s = Verify(k.graph);
    ASSERT_FALSE(s.ok()) << k.message;
    EXPECT_NE(s.message().find(k.message), std::string::npos)
        << "got: " << s.message() << "\nwant: " << k.message;
  }
  EXPECT_TRUE(Verify(Graph{"f", {x}, {a, b}, {b, a, x}}).ok());
}

TEST(Graph, UseListsCountEveryOperandSlotAndResult) {
  NodeRef x = P(DType::kFloat32, {2});
  NodeRef sq = Node::Create(OpCode::kMul, T(DType::kFloat32, {2}), {x, x}, {}, "sq");
  NodeRef n = Node::Create(OpCode::kNeg, T(DType::kFloat32, {2}), {sq}, {}, "n");
  Graph g = Graph::FromResults("f", {x}, {n, sq, n});
  ASSERT_TRUE(Verify(g).ok());
  UseLists uses(g);
  EXPECT_EQ(uses.UsersOf(x.get()), (std::vector<const Node*>{sq.get(), sq.get()}));
  EXPECT_EQ(uses.UsersOf(sq.get()), (std::vector<const Node*>{n.get()}));
  EXPECT_TRUE(uses.UsersOf(n.get()).empty());
  EXPECT_EQ(uses.ResultUses(n.get()), 2);
  EXPECT_EQ(uses.ResultUses(sq.get()), 1);
  EXPECT_EQ(uses.ResultUses(x.get()), 0);
}

TEST(Verifier, FromResultsBuildsAValidOrderForDeepChains) {
  // 100000 chained nodes: the walk must not recurse.
  NodeRef x = P(DType::kFloat32, {1});
  NodeRef v = x;
  for (int i = 0; i < 100000; ++i) v = Node::Create(OpCode::kNeg, T(DType::kFloat32, {1}), {v});
  Graph g = Graph::FromResults("deep", {x}, {v});
  EXPECT_EQ(g.nodes.size(), 100000u);
  EXPECT_TRUE(Verify(g).ok());
  // Releasing the chain must not recurse either (Node's destructor unlinks iteratively).
  g = Graph{};
  v.reset();
}

}  // namespace
}  // namespace gpuc::ir
