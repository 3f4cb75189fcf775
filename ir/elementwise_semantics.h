//===- elementwise_semantics.h - What each elementwise op computes --------===//
//
// The definition of every elementwise op on one element, in the interpreter's wide domains
// (ir/wide_value.h). This is the oracle for all backends: NumPy's semantics for division and
// modulo signs, NaN-propagating maximum/minimum, shifts past the width, and so on; docs/ir.md
// lists the cases where NumPy raises instead (integer powers with negative exponents).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_ELEMENTWISE_SEMANTICS_H_
#define GPUC_IR_ELEMENTWISE_SEMANTICS_H_

#include "absl/types/span.h"
#include "ir/op.h"
#include "ir/wide_value.h"

namespace gpuc::ir {

/// Applies elementwise `op` (not where or cast) to `args`, which are already converted to the
/// loop dtype `loop` (ir/type_inference.h, ComputeDType). The result is in the loop's domain,
/// or bool for predicates, or float for the magnitude of a complex; the caller rounds it to the
/// result dtype.
WideValue EvalElementwise(OpCode op, DType loop, absl::Span<const WideValue> args);

/// NumPy's total order used by maximum/minimum/sort for complex: real part, then imaginary.
bool ComplexLess(std::complex<double> a, std::complex<double> b);

}  // namespace gpuc::ir

#endif  // GPUC_IR_ELEMENTWISE_SEMANTICS_H_
