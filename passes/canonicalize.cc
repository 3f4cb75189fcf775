//===- canonicalize.cc - Constant folding and algebraic identities --------===//
//
// Local rewrites that make a graph smaller without changing any bit of any result:
//  - folding: an elementwise op of constants, and a view (broadcast_to, reshape, transpose) of
//    a constant, become one constant;
//  - identities, only where IEEE arithmetic keeps them exact: x*1, x/1, x+0 and x-0 for
//    integers, x-(+0.0) and x+(-0.0) for floats (x+(+0.0) is not x for x = -0.0, and x*0 is
//    not 0 for NaN or infinities, so neither is rewritten), -(-x), x|0, x^0;
//  - casts: a cast to the operand's own dtype goes; cast(cast(x, T1), T2) becomes cast(x, T2)
//    when every value of x's dtype is exact in T1 (and T1 is not a float with T2 an integer);
//  - views: transpose of transpose composes (and the identity permutation goes), reshape
//    chains collapse, broadcast_to of broadcast_to collapses, a reshape, broadcast_to or slice
//    that changes nothing goes;
//  - library operands: a matmul converts operands of another dtype to its result's first, so
//    that conversion becomes an explicit cast (an elementwise producer that fuses) and every
//    matmul multiplies operands of its own dtype, which is what a BLAS call takes; a
//    transpose of an operand's last two axes becomes the matmul's transpose_a / transpose_b
//    flag (ir/matmul_semantics.h), read by the BLAS instead of materialized.
// An identity applies only when the result type equals the kept operand's type, so no rule
// changes a dtype or a shape.
//
//===----------------------------------------------------------------------===//
#include <cmath>

#include "passes/constant_value.h"
#include "passes/graph_rewriter.h"
#include "passes/passes.h"

namespace gpuc::passes {
namespace {

using ir::DType;
using ir::Node;
using ir::NodeRef;
using ir::OpCode;

// Whether every value of `from` is exactly representable in `to`.
bool IsLosslessCast(DType from, DType to) {
  if (from == to || from == DType::kBool) return true;
  const int from_bits = static_cast<int>(ir::DTypeSize(from)) * 8;
  const int to_bits = static_cast<int>(ir::DTypeSize(to)) * 8;
  // Significand bits (with the implicit one) of the real floats, and of a complex's parts.
  auto significand = [](DType d) {
    switch (d) {
      case DType::kFloat16:
        return 11;
      case DType::kBFloat16:
        return 8;
      case DType::kFloat32:
      case DType::kComplex64:
        return 24;
      case DType::kFloat64:
      case DType::kComplex128:
        return 53;
      default:
        return 0;
    }
  };
  const ir::DTypeKind fk = ir::KindOf(from), tk = ir::KindOf(to);
  if (tk == ir::DTypeKind::kBool) return false;
  if (fk == ir::DTypeKind::kSigned) {
    if (tk == ir::DTypeKind::kSigned) return to_bits >= from_bits;
    if (tk == ir::DTypeKind::kUnsigned) return false;
    return significand(to) >= from_bits - 1;
  }
  if (fk == ir::DTypeKind::kUnsigned) {
    if (tk == ir::DTypeKind::kUnsigned) return to_bits >= from_bits;
    if (tk == ir::DTypeKind::kSigned) return to_bits > from_bits;
    return significand(to) >= from_bits;
  }
  if (fk == ir::DTypeKind::kFloat) {
    if (tk != ir::DTypeKind::kFloat && tk != ir::DTypeKind::kComplex) return false;
    // bfloat16 has float32's exponent range: only float32 and wider hold it; float16's range
    // fits in every wider float but not bfloat16's 8-bit significand.
    if (from == DType::kBFloat16) return significand(to) >= 24;
    return significand(to) >= significand(from) && to != DType::kBFloat16;
  }
  if (fk == ir::DTypeKind::kComplex) return tk == ir::DTypeKind::kComplex && to_bits >= from_bits;
  return false;
}

// Whether constant `c` is, in its own dtype, the value that makes `op` an identity on the
// other operand (`on_right`: x op c; otherwise c op x).
bool IsIdentityOperand(OpCode op, const Node& c, bool on_right) {
  std::optional<ir::WideValue> v = ConstantValue(c);
  if (!v) return false;
  const DType d = c.dtype();
  const bool integral = ir::IsInteger(d) || d == DType::kBool;
  const bool zero = v->domain == ir::DTypeKind::kBool       ? !v->b
                    : v->domain == ir::DTypeKind::kSigned   ? v->i == 0
                    : v->domain == ir::DTypeKind::kUnsigned ? v->u == 0
                    : v->domain == ir::DTypeKind::kFloat    ? v->f == 0
                                                            : false;
  const bool one = v->domain == ir::DTypeKind::kSigned     ? v->i == 1
                   : v->domain == ir::DTypeKind::kUnsigned ? v->u == 1
                   : v->domain == ir::DTypeKind::kFloat    ? v->f == 1
                                                           : false;
  const bool real_float = v->domain == ir::DTypeKind::kFloat;
  switch (op) {
    case OpCode::kAdd:  // -0.0 + x and x + -0.0 are x for every float x, +0.0 is not
      return integral ? zero : real_float && zero && std::signbit(v->f);
    case OpCode::kSub:  // x - (+0.0) is x, including x = -0.0; 0 - x is not x
      return on_right &&
             (integral ? zero && d != DType::kBool : real_float && zero && !std::signbit(v->f));
    case OpCode::kMul:
      return one && (integral || real_float);
    case OpCode::kDiv:
      return on_right && one && real_float;
    case OpCode::kBitwiseOr:
    case OpCode::kBitwiseXor:
      return integral && zero;
    default:
      return false;
  }
}

bool IsIdentityPerm(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Whether `n` is a transpose that swaps the last two axes and keeps the others in place.
bool SwapsLastTwoAxes(const Node& n) {
  if (n.op() != OpCode::kTranspose) return false;
  const std::vector<int64_t>* perm = n.attrs().Get<std::vector<int64_t>>("perm");
  const int64_t rank = perm ? static_cast<int64_t>(perm->size()) : 0;
  if (rank < 2) return false;
  for (int64_t i = 0; i < rank - 2; ++i) {
    if ((*perm)[i] != i) return false;
  }
  return (*perm)[rank - 2] == rank - 1 && (*perm)[rank - 1] == rank - 2;
}

NodeRef Recreate(const Node& like, OpCode op, std::vector<NodeRef> operands, ir::Attributes attrs) {
  return Node::Create(op, like.type(), std::move(operands), std::move(attrs), like.name(),
                      like.location());
}

// One rewrite of `node` (its operands already canonical), or null when no rule applies.
NodeRef SimplifyOnce(const NodeRef& node) {
  const Node& n = *node;
  const ir::OpKind kind = n.info().kind;
  // Folding evaluates the op on the host: a user's CUDA C++ cannot be (and philox is kept for
  // the kernel that draws it).
  if (kind == ir::OpKind::kElementwise && n.num_operands() > 0 && n.op() != OpCode::kPhilox &&
      n.op() != OpCode::kUserElementwise) {
    bool all_constant = true;
    for (const NodeRef& operand : n.operands()) {
      all_constant = all_constant && operand->op() == OpCode::kConstant;
    }
    if (all_constant) return FoldElementwise(n);
  }
  switch (n.op()) {
    case OpCode::kBroadcastTo:
    case OpCode::kReshape:
    case OpCode::kTranspose:
      if (std::optional<ir::WideValue> v = ConstantValue(n.operand(0))) {
        return MakeConstant(n.type(), *v, n.name(), n.location());
      }
      break;
    default:
      break;
  }
  switch (n.op()) {
    case OpCode::kAdd:
    case OpCode::kSub:
    case OpCode::kMul:
    case OpCode::kDiv:
    case OpCode::kBitwiseOr:
    case OpCode::kBitwiseXor: {
      const NodeRef& x = n.operands()[0];
      const NodeRef& y = n.operands()[1];
      if (x->type() == n.type() && IsIdentityOperand(n.op(), *y, true)) return x;
      if (y->type() == n.type() && IsIdentityOperand(n.op(), *x, false)) return y;
      break;
    }
    case OpCode::kNeg:
      if (n.operand(0).op() == OpCode::kNeg && n.operand(0).operand(0).type() == n.type()) {
        return n.operand(0).operands()[0];
      }
      break;
    case OpCode::kCast: {
      const NodeRef& x = n.operands()[0];
      if (x->dtype() == n.dtype()) return x;
      if (x->op() == OpCode::kCast) {
        const NodeRef& inner = x->operands()[0];
        // Out-of-range float-to-integer casts are the interpreter's choice (NumPy leaves them
        // undefined), and they differ from integer wrap-around: i8 -1 -> f32 -> u8 is not
        // i8 -1 -> u8. So a chain through a float that ends in an integer stays.
        const bool float_to_integer = ir::IsInexact(x->dtype()) && ir::IsInteger(n.dtype());
        if (IsLosslessCast(inner->dtype(), x->dtype()) && !float_to_integer) {
          if (inner->dtype() == n.dtype()) return inner;
          return Recreate(n, OpCode::kCast, {inner}, n.attrs());
        }
      }
      break;
    }
    case OpCode::kTranspose: {
      const std::vector<int64_t>* perm = n.attrs().Get<std::vector<int64_t>>("perm");
      if (perm == nullptr) break;
      if (IsIdentityPerm(*perm)) return n.operands()[0];
      const Node& inner = n.operand(0);
      const std::vector<int64_t>* inner_perm = inner.attrs().Get<std::vector<int64_t>>("perm");
      if (inner.op() == OpCode::kTranspose && inner_perm != nullptr) {
        // Result axis k is inner's axis perm[k], which is x's axis inner_perm[perm[k]].
        std::vector<int64_t> composed(perm->size());
        for (size_t k = 0; k < perm->size(); ++k) composed[k] = (*inner_perm)[(*perm)[k]];
        if (IsIdentityPerm(composed)) return inner.operands()[0];
        return Recreate(n, OpCode::kTranspose, {inner.operands()[0]},
                        ir::Attributes{{"perm", composed}});
      }
      break;
    }
    case OpCode::kReshape:
    case OpCode::kBroadcastTo: {
      const NodeRef& x = n.operands()[0];
      if (x->type() == n.type()) return x;
      if (x->op() == n.op()) return Recreate(n, n.op(), {x->operands()[0]}, n.attrs());
      break;
    }
    case OpCode::kMatmul: {
      std::vector<NodeRef> operands = n.operands();
      bool converted = false;
      for (NodeRef& operand : operands) {
        if (operand->dtype() == n.dtype()) continue;
        operand = Node::Create(OpCode::kCast, ir::TensorType{n.dtype(), operand->type().shape},
                               {operand}, {}, "", n.location());
        converted = true;
      }
      if (converted) return Recreate(n, OpCode::kMatmul, std::move(operands), n.attrs());
      // A transpose of an operand's matrix axes becomes the matmul's flag for that operand:
      // the BLAS reads the untransposed value with a transpose flag, nothing materializes it.
      for (size_t i = 0; i < 2; ++i) {
        if (!SwapsLastTwoAxes(*operands[i])) continue;
        const std::string flag = i == 0 ? "transpose_a" : "transpose_b";
        ir::Attributes attrs = n.attrs();
        if (n.attrs().GetBool(flag, false).value_or(false)) {
          attrs.Erase(flag);
        } else {
          attrs.Set(flag, true);
        }
        operands[i] = operands[i]->operands()[0];
        return Recreate(n, OpCode::kMatmul, std::move(operands), std::move(attrs));
      }
      break;
    }
    case OpCode::kSlice: {
      const NodeRef& x = n.operands()[0];
      const std::vector<int64_t>* start = n.attrs().Get<std::vector<int64_t>>("start");
      const std::vector<int64_t>* step = n.attrs().Get<std::vector<int64_t>>("step");
      if (x->type() != n.type() || start == nullptr || step == nullptr) break;
      bool whole = true;
      for (size_t i = 0; i < start->size(); ++i)
        whole = whole && (*start)[i] == 0 && (*step)[i] == 1;
      if (whole) return x;
      break;
    }
    default:
      break;
  }
  return nullptr;
}

class Canonicalize final : public Pass {
 public:
  absl::string_view name() const override { return "canonicalize"; }
  absl::string_view description() const override {
    return "fold constants, apply IEEE-exact algebraic identities, collapse cast and view chains";
  }
  absl::StatusOr<bool> Run(ir::Graph& graph, PassContext& context) override {
    bool changed = false;
    ir::Graph rewritten =
        RewriteGraph(graph, [&](const NodeRef& node, std::vector<NodeRef> operands) {
          NodeRef current = WithOperands(node, std::move(operands));
          // A rewrite can enable another on the same node (a cast chain that ends at the
          // operand's dtype), so apply rules until none does; each one shrinks the node's
          // operand chain or makes it a constant, so this ends.
          while (NodeRef simpler = SimplifyOnce(current)) {
            if (!context.ConsumeFuel()) break;
            current = std::move(simpler);
            changed = true;
          }
          return current;
        });
    if (!changed) return false;
    graph = std::move(rewritten);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateCanonicalize() { return std::make_unique<Canonicalize>(); }

}  // namespace gpuc::passes
