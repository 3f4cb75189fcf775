//===- fuse_matmul_epilogue.cc - Bias and ReLU into the GEMM --------------===//
//
// `matmul(a, b) + bias` with `bias` a row vector, and `maximum(that, 0)` on top, become one
// matmul_bias node (ir/matmul_semantics.h), which the GPU runs as one cuBLASLt GEMM with a
// BIAS or RELU_BIAS epilogue: the bias and the activation are applied as the GEMM writes its
// tile, instead of a kernel reading and writing the product again. Only where that is bit-exact:
// f32 and f64 (the GEMM accumulates in the dtype, so adding the bias to the accumulator rounds
// as the separate add does; f16/bf16 would round twice apart and once fused), one 2-D GEMM
// (matrices, or a [..., m, k] stack against a [k, n] matrix: a dense layer over a batch),
// a product and a sum nothing else reads. The GPU executor runs this pass on its own copy of
// a graph; the host's BLAS has no epilogue, so the default pipeline leaves the ops apart.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "ir/matmul_semantics.h"
#include "passes/constant_value.h"
#include "passes/graph_rewriter.h"
#include "passes/passes.h"

namespace gpuc::passes {
namespace {

using ir::DType;
using ir::Node;
using ir::NodeRef;
using ir::OpCode;

/// Whether `n` is read exactly once, and not as a result.
bool ReadOnce(const ir::UseLists& uses, const Node* n) {
  return uses.UsersOf(n).size() == 1 && uses.ResultUses(n) == 0;
}

/// `n` as a bias row for a [m, cols] product of `dtype`: a [cols] vector, or one broadcast.
NodeRef BiasRow(const NodeRef& n, DType dtype, int64_t cols) {
  const NodeRef& row = n->op() == OpCode::kBroadcastTo ? n->operands()[0] : n;
  if (row->dtype() != dtype || row->shape().rank() != 1 || row->shape()[0] != cols) return nullptr;
  return row;
}

/// Whether `product` is one 2-D GEMM: matrices, or a stack of untransposed matrices against
/// one matrix (the stack's rows are the GEMM's m), which is what one cuBLASLt call takes.
bool IsOneGemm(const Node& product) {
  const int rank_a = product.operand(0).shape().rank();
  if (product.operand(1).shape().rank() != 2 || rank_a < 2) return false;
  return rank_a == 2 || !ir::TransposesOf(product).a;
}

bool IsZero(const Node& n) {
  std::optional<ir::WideValue> v = ConstantValue(n);
  return v && v->domain == ir::DTypeKind::kFloat && v->f == 0;
}

class FuseMatmulEpilogue final : public Pass {
 public:
  absl::string_view name() const override { return "fuse-matmul-epilogue"; }
  absl::string_view description() const override {
    return "fold a bias row and a ReLU after an f32/f64 matmul into one matmul_bias (the GPU's "
           "epilogue GEMM)";
  }
  absl::StatusOr<bool> Run(ir::Graph& graph, PassContext& context) override {
    // Every GPU plan runs this pass: one without a matmul costs a scan, not a rewrite.
    if (std::none_of(graph.nodes.begin(), graph.nodes.end(),
                     [](const NodeRef& n) { return n->op() == OpCode::kMatmul; })) {
      return false;
    }
    const ir::UseLists uses(graph);
    bool changed = false;
    ir::Graph rewritten =
        RewriteGraph(graph, [&](const NodeRef& node, std::vector<NodeRef> operands) {
          NodeRef current = WithOperands(node, std::move(operands));
          NodeRef fused = Fuse(*node, current, uses);
          if (!fused || !context.ConsumeFuel()) return current;
          changed = true;
          return fused;
        });
    if (changed) graph = std::move(rewritten);
    return changed;
  }

 private:
  // `original` is the node in the input graph (its uses are known), `current` the same node
  // over rewritten operands.
  static NodeRef Fuse(const Node& original, const NodeRef& current, const ir::UseLists& uses) {
    const DType dtype = current->dtype();
    if (dtype != DType::kFloat32 && dtype != DType::kFloat64) return nullptr;
    if (current->op() == OpCode::kAdd) {
      for (int side = 0; side < 2; ++side) {
        const NodeRef& product = current->operands()[side];
        if (product->op() != OpCode::kMatmul || product->type() != current->type() ||
            !IsOneGemm(*product) || !ReadOnce(uses, original.operands()[side].get())) {
          continue;
        }
        NodeRef bias = BiasRow(current->operands()[1 - side], dtype,
                               product->shape()[product->shape().rank() - 1]);
        if (!bias) continue;
        return Node::Create(OpCode::kMatmulBias, current->type(),
                            {product->operands()[0], product->operands()[1], bias},
                            product->attrs(), current->name(), current->location());
      }
    }
    if (current->op() == OpCode::kMaximum) {
      for (int side = 0; side < 2; ++side) {
        const NodeRef& sum = current->operands()[side];
        if (sum->op() != OpCode::kMatmulBias || sum->type() != current->type() ||
            sum->attrs().Has("activation") || !ReadOnce(uses, original.operands()[side].get()) ||
            !IsZero(*current->operands()[1 - side])) {
          continue;
        }
        // maximum(x, 0) and maximum(0, x) are both ReLU: NaN propagates either way (the GPU
        // tests check cuBLASLt does the same) and a zero comes out +0.0.
        ir::Attributes attrs = sum->attrs();
        attrs.Set("activation", std::string("relu"));
        return Node::Create(OpCode::kMatmulBias, current->type(), sum->operands(), attrs,
                            current->name(), current->location());
      }
    }
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateFuseMatmulEpilogue() { return std::make_unique<FuseMatmulEpilogue>(); }

}  // namespace gpuc::passes
