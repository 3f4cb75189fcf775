//===- matmul_semantics.cc - The operands a matmul node multiplies --------===//
#include "ir/matmul_semantics.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace gpuc::ir {

absl::StatusOr<MatmulTransposes> ReadMatmulTransposes(const Attributes& attrs, int rank_a,
                                                      int rank_b) {
  MatmulTransposes t;
  absl::StatusOr<bool> a = attrs.GetBool("transpose_a", false);
  if (!a.ok()) return a.status();
  absl::StatusOr<bool> b = attrs.GetBool("transpose_b", false);
  if (!b.ok()) return b.status();
  if ((*a && rank_a < 2) || (*b && rank_b < 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("transpose_", *a && rank_a < 2 ? "a" : "b", " needs an operand of rank >= 2"));
  }
  t.a = *a;
  t.b = *b;
  return t;
}

TensorType SwapLastTwoAxes(const TensorType& type) {
  std::vector<int64_t> dims = type.shape.ToVector();
  if (dims.size() >= 2) std::swap(dims[dims.size() - 2], dims.back());
  return TensorType{type.dtype, Shape(std::move(dims))};
}

MatmulTransposes TransposesOf(const Node& matmul) {
  absl::StatusOr<MatmulTransposes> t = ReadMatmulTransposes(
      matmul.attrs(), matmul.operand(0).shape().rank(), matmul.operand(1).shape().rank());
  return t.ok() ? *t : MatmulTransposes{};
}

absl::StatusOr<MatmulActivation> ReadMatmulActivation(const Attributes& attrs) {
  if (!attrs.Has("activation")) return MatmulActivation::kNone;
  absl::StatusOr<std::string> name = attrs.GetString("activation");
  if (!name.ok()) return name.status();
  if (*name == "none") return MatmulActivation::kNone;
  if (*name == "relu") return MatmulActivation::kRelu;
  return absl::InvalidArgumentError(
      absl::StrCat("activation must be none or relu, not '", *name, "'"));
}

bool AppliesRelu(const Node& matmul_bias) {
  return ReadMatmulActivation(matmul_bias.attrs()).value_or(MatmulActivation::kNone) ==
         MatmulActivation::kRelu;
}

bool IsStridedViewOp(const Node& node) {
  switch (node.op()) {
    case OpCode::kReshape:
    case OpCode::kTranspose:
      return true;
    case OpCode::kSlice: {
      const std::vector<int64_t>* step = node.attrs().Get<std::vector<int64_t>>("step");
      if (step == nullptr) return false;
      for (int64_t s : *step) {
        if (s <= 0) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace gpuc::ir
