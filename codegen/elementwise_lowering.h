//===- elementwise_lowering.h - One elementwise op as LLVM instructions ---===//
//
// The native lowering of each elementwise op in a non-complex loop dtype, matching the
// interpreter's semantics (ir/elementwise_semantics.cc): NumPy's integer division and modulo
// signs with x // 0 == 0, wrap-around integer arithmetic, shifts past the width, NaN
// propagation in maximum/minimum and IEEE 754-2019 signed-zero order. Floats of at most 32
// bits compute in float where float arithmetic rounds exactly as the interpreter's double
// arithmetic followed by one rounding (+ - * / sqrt, by the 2p+2 theorem); math functions
// run in double through libm and round once. Either way every element is bit-identical to
// the interpreter's.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_ELEMENTWISE_LOWERING_H_
#define GPUC_CODEGEN_ELEMENTWISE_LOWERING_H_

#include <vector>

#include "codegen/value_lowering.h"
#include "ir/op.h"

namespace gpuc::codegen {

/// The instructions for `op` on `args` (already converted to `loop`, in registers), or null
/// when the op has no native lowering for that loop (complex division, functions and
/// ordering): the caller then calls the support library.
llvm::Value* EmitNativeElementwise(ValueLowering& values, ir::OpCode op, ir::DType loop,
                                   const std::vector<llvm::Value*>& args);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_ELEMENTWISE_LOWERING_H_
