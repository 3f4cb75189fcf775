//===- matmul_semantics.h - The operands a matmul node multiplies ---------===//
//
// A matmul node multiplies op(a) @ op(b) with NumPy's matmul rules, where op swaps the last
// two axes of an operand whose attribute `transpose_a` / `transpose_b` is true (a rank >= 2
// operand only). Canonicalization sets them when a transpose feeds a matmul, so the BLAS
// reads the stored operand with its transpose flag instead of a kernel materializing it.
// Type inference, the interpreter and both executors read the flags through this header.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_MATMUL_SEMANTICS_H_
#define GPUC_IR_MATMUL_SEMANTICS_H_

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

/// The flags of a matmul node that passed the verifier.
MatmulTransposes TransposesOf(const Node& matmul);

}  // namespace gpuc::ir

#endif  // GPUC_IR_MATMUL_SEMANTICS_H_
