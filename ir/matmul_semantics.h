//===- matmul_semantics.h - The operands a matmul node multiplies ---------===//
//
// A matmul node multiplies op(a) @ op(b) with NumPy's matmul rules, where op swaps the last
// two axes of an operand whose attribute `transpose_a` / `transpose_b` is true (a rank >= 2
// operand only). Canonicalization sets them when a transpose feeds a matmul, so the BLAS
// reads the stored operand with its transpose flag instead of a kernel materializing it.
// Type inference, the interpreter and both executors read the flags through this header.
//
// matmul_bias(a, b, bias) {transpose_a, transpose_b, activation} is what the GPU lowering's
// epilogue fusion (passes/fuse_matmul_epilogue.cc) makes of `maximum(matmul(a, b) + bias, 0)`
// or `matmul(a, b) + bias`: f32 or f64 a [..., m, k] and b [k, n], bias [n] of their dtype, each
// element the same bits as the unfused ops (the add and the maximum in the dtype, NaN
// propagating), so the interpreter and the host compute it as those ops.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_MATMUL_SEMANTICS_H_
#define GPUC_IR_MATMUL_SEMANTICS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "ir/attributes.h"
#include "ir/node.h"

namespace gpuc::ir {

struct MatmulTransposes {
  bool a = false, b = false;
};

/// The flags of a matmul over operands of ranks `rank_a` and `rank_b`; an error (without the
/// op's name) when a flag is not a bool or is set on a 1-D operand.
absl::StatusOr<MatmulTransposes> ReadMatmulTransposes(const Attributes& attrs, int rank_a,
                                                      int rank_b);

/// `type` with its last two axes swapped (itself below rank 2).
TensorType SwapLastTwoAxes(const TensorType& type);

/// The flags of a matmul or matmul_bias node that passed the verifier.
MatmulTransposes TransposesOf(const Node& matmul);

/// Whether `node` is a view a matmul may read where it lies, as NumPy hands `a[:, i:]` to
/// the BLAS with a leading dimension: a slice with positive steps, a reshape, a transpose.
bool IsStridedViewOp(const Node& node);

enum class MatmulActivation : uint8_t { kNone, kRelu };

/// matmul_bias's `activation` ("none", the default, or "relu"); an error naming the value.
absl::StatusOr<MatmulActivation> ReadMatmulActivation(const Attributes& attrs);

/// Whether a matmul_bias node that passed the verifier applies the ReLU.
bool AppliesRelu(const Node& matmul_bias);

}  // namespace gpuc::ir

#endif  // GPUC_IR_MATMUL_SEMANTICS_H_
