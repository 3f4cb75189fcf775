//===- value_lowering.h - gpuc dtypes as LLVM values ----------------------===//
//
// How an element of each dtype lives in generated code:
//   storage (in a buffer)        register (while computing)
//   bool      i8 (0 or 1)        i1
//   iN / uN   iN                 iN (signedness is in the op, as in LLVM)
//   f16, bf16 i16 bit pattern    float holding a value the dtype can represent: every op
//                                computes in float and rounds back to the dtype, which for
//                                + - * / sqrt is exactly IEEE half/bfloat16 arithmetic
//                                (float has more than 2p+2 bits; Figueroa 1995)
//   f32, f64  float, double      float, double
//   c64, c128 [2 x float/double] the same
//
// Conversions follow the reference interpreter (ir/wide_value.cc) bit for bit: float to
// integer truncates and saturates with NaN to 0 (llvm.fpto[su]i.sat), integers reach a float
// through double as the interpreter's does, and double rounds to half or bfloat16 once.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_VALUE_LOWERING_H_
#define GPUC_CODEGEN_VALUE_LOWERING_H_

#include "ir/dtype.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace gpuc::codegen {

/// Functions of the host support library (host_support.h) that generated code calls.
inline constexpr const char* kHalfToFloat = "gpuc_rt_half_to_float";
inline constexpr const char* kFloatToHalf = "gpuc_rt_float_to_half";
inline constexpr const char* kDoubleToHalf = "gpuc_rt_double_to_half";
inline constexpr const char* kDoubleToBFloat16 = "gpuc_rt_double_to_bfloat16";
inline constexpr const char* kElementwiseHelper = "gpuc_rt_elementwise";

class ValueLowering {
 public:
  explicit ValueLowering(llvm::IRBuilder<>& b) : b_(b) {}

  /// Math functions (exp, log, sin, tanh, pow, ...) of f32, f16 and bf16 loops compute in
  /// float instead of double: CUDA's libdevice accuracy (a few ulp, as every GPU library),
  /// at float speed. Off (the host, and GPUC_GPU_MATH=exact), results are bit-identical to
  /// the interpreter's.
  void set_float_math_in_float(bool on) { float_math_in_float_ = on; }
  bool float_math_in_float() const { return float_math_in_float_; }

  llvm::Type* StorageType(ir::DType dtype) const;
  llvm::Type* RegisterType(ir::DType dtype) const;

  llvm::Value* Load(ir::DType dtype, llvm::Value* pointer);
  void Store(ir::DType dtype, llvm::Value* value, llvm::Value* pointer);
  /// The register value from/to its storage bits, without memory.
  llvm::Value* FromStorage(ir::DType dtype, llvm::Value* bits);
  llvm::Value* ToStorage(ir::DType dtype, llvm::Value* value);

  /// Converts between non-complex dtypes (ConvertTo of the interpreter).
  llvm::Value* Convert(llvm::Value* value, ir::DType from, ir::DType to);
  /// Rounds a float register to the precision of `dtype` (f16, bf16; others unchanged).
  llvm::Value* Round(llvm::Value* value, ir::DType dtype);
  /// Whether a value of `dtype` is nonzero (NaN is).
  llvm::Value* Truthy(llvm::Value* value, ir::DType dtype);

  llvm::Value* ConstantOf(ir::DType dtype, double value);
  llvm::IRBuilder<>& builder() { return b_; }
  llvm::Module& module() { return *b_.GetInsertBlock()->getModule(); }

  /// A declared external function of the support library or libm, side-effect free.
  llvm::FunctionCallee PureFunction(const char* name, llvm::Type* result,
                                    llvm::ArrayRef<llvm::Type*> params);

 private:
  llvm::Value* HalfBitsToFloat(llvm::Value* bits);
  llvm::Value* FloatToBFloat16Bits(llvm::Value* f);

  llvm::IRBuilder<>& b_;
  bool float_math_in_float_ = false;
};

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_VALUE_LOWERING_H_
