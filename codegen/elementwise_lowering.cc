//===- elementwise_lowering.cc - One elementwise op as LLVM instructions --===//
#include "codegen/elementwise_lowering.h"

#include <limits>

#include "llvm/IR/Intrinsics.h"

namespace gpuc::codegen {
namespace {

using ir::DType;
using ir::DTypeKind;
using ir::OpCode;

std::optional<llvm::CmpInst::Predicate> Comparison(OpCode op, DTypeKind kind) {
  using P = llvm::CmpInst::Predicate;
  const bool is_float = kind == DTypeKind::kFloat, is_signed = kind == DTypeKind::kSigned;
  switch (op) {
    case OpCode::kEq:
      return is_float ? P::FCMP_OEQ : P::ICMP_EQ;
    case OpCode::kNe:
      return is_float ? P::FCMP_UNE : P::ICMP_NE;
    case OpCode::kLt:
      return is_float ? P::FCMP_OLT : (is_signed ? P::ICMP_SLT : P::ICMP_ULT);
    case OpCode::kLe:
      return is_float ? P::FCMP_OLE : (is_signed ? P::ICMP_SLE : P::ICMP_ULE);
    case OpCode::kGt:
      return is_float ? P::FCMP_OGT : (is_signed ? P::ICMP_SGT : P::ICMP_UGT);
    case OpCode::kGe:
      return is_float ? P::FCMP_OGE : (is_signed ? P::ICMP_SGE : P::ICMP_UGE);
    default:
      return std::nullopt;
  }
}

/// The ops that mean the same in bool, signed and unsigned loops.
llvm::Value* EmitExactCommon(llvm::IRBuilder<>& b, OpCode op, DTypeKind kind, llvm::Value* a,
                             llvm::Value* c) {
  const bool is_signed = kind == DTypeKind::kSigned;
  switch (op) {
    case OpCode::kMaximum:
    case OpCode::kFmax:
      return b.CreateSelect(is_signed ? b.CreateICmpSGE(a, c) : b.CreateICmpUGE(a, c), a, c);
    case OpCode::kMinimum:
    case OpCode::kFmin:
      return b.CreateSelect(is_signed ? b.CreateICmpSLE(a, c) : b.CreateICmpULE(a, c), a, c);
    case OpCode::kBitwiseAnd:
      return b.CreateAnd(a, c);
    case OpCode::kBitwiseOr:
      return b.CreateOr(a, c);
    case OpCode::kBitwiseXor:
      return b.CreateXor(a, c);
    case OpCode::kIsNan:
    case OpCode::kIsInf:
      return b.getFalse();
    case OpCode::kIsFinite:
      return b.getTrue();
    default:
      return nullptr;
  }
}

llvm::Value* EmitBool(llvm::IRBuilder<>& b, OpCode op, llvm::Value* a, llvm::Value* c) {
  switch (op) {
    case OpCode::kAdd:
      return b.CreateOr(a, c);
    case OpCode::kMul:
      return b.CreateAnd(a, c);
    case OpCode::kInvert:
      return b.CreateNot(a);
    case OpCode::kAbs:
      return a;
    default:
      return nullptr;
  }
}

llvm::Value* EmitInteger(llvm::IRBuilder<>& b, OpCode op, bool is_signed, int bits, llvm::Value* a,
                         llvm::Value* c) {
  llvm::Type* t = a->getType();
  auto k = [&](int64_t v) { return llvm::ConstantInt::get(t, static_cast<uint64_t>(v), true); };
  switch (op) {
    case OpCode::kAdd:
      return b.CreateAdd(a, c);
    case OpCode::kSub:
      return b.CreateSub(a, c);
    case OpCode::kMul:
      return b.CreateMul(a, c);
    case OpCode::kNeg:
      return b.CreateNeg(a);
    case OpCode::kSquare:
      return b.CreateMul(a, a);
    case OpCode::kRound:
      return a;
    case OpCode::kInvert:
      return b.CreateNot(a);
    case OpCode::kAbs:
      return is_signed ? b.CreateSelect(b.CreateICmpSLT(a, k(0)), b.CreateNeg(a), a) : a;
    case OpCode::kSign:
      if (!is_signed) return b.CreateZExt(b.CreateICmpNE(a, k(0)), t);
      return b.CreateSub(b.CreateZExt(b.CreateICmpSGT(a, k(0)), t),
                         b.CreateZExt(b.CreateICmpSLT(a, k(0)), t));
    case OpCode::kReciprocal: {
      llvm::Value* one = b.CreateICmpEQ(a, k(1));
      if (!is_signed) return b.CreateZExt(one, t);
      return b.CreateSelect(one, k(1), b.CreateSelect(b.CreateICmpEQ(a, k(-1)), k(-1), k(0)));
    }
    case OpCode::kFloorDivide:
    case OpCode::kMod: {
      // x // 0 and x % 0 are 0; x // -1 is -x (wrapping) and x % -1 is 0. Other divisors
      // cannot overflow, so the division runs on a divisor made safe for those two lanes.
      llvm::Value* zero = b.CreateICmpEQ(c, k(0));
      llvm::Value* minus_one = is_signed ? b.CreateICmpEQ(c, k(-1)) : b.getFalse();
      llvm::Value* special = b.CreateOr(zero, minus_one);
      llvm::Value* divisor = b.CreateSelect(special, k(1), c);
      if (!is_signed) {
        llvm::Value* r = op == OpCode::kMod ? b.CreateURem(a, divisor) : b.CreateUDiv(a, divisor);
        return b.CreateSelect(zero, k(0), r);
      }
      llvm::Value* q = b.CreateSDiv(a, divisor);
      llvm::Value* r = b.CreateSRem(a, divisor);
      // Round toward -inf: when the remainder is nonzero and its sign differs from the
      // divisor's, step the quotient down and the remainder into the divisor's sign.
      llvm::Value* adjust =
          b.CreateAnd(b.CreateICmpNE(r, k(0)),
                      b.CreateICmpNE(b.CreateICmpSLT(r, k(0)), b.CreateICmpSLT(divisor, k(0))));
      if (op == OpCode::kMod) {
        llvm::Value* mod = b.CreateSelect(adjust, b.CreateAdd(r, divisor), r);
        return b.CreateSelect(special, k(0), mod);
      }
      llvm::Value* floor = b.CreateSelect(adjust, b.CreateSub(q, k(1)), q);
      return b.CreateSelect(zero, k(0), b.CreateSelect(minus_one, b.CreateNeg(a), floor));
    }
    case OpCode::kShiftLeft:
    case OpCode::kShiftRight: {
      // Counts below 0 or of the width or more shift every bit out (NumPy's result).
      llvm::Value* out_of_range =
          is_signed ? b.CreateOr(b.CreateICmpSLT(c, k(0)), b.CreateICmpSGE(c, k(bits)))
                    : b.CreateICmpUGE(c, k(bits));
      llvm::Value* count = b.CreateSelect(out_of_range, k(0), c);
      if (op == OpCode::kShiftLeft)
        return b.CreateSelect(out_of_range, k(0), b.CreateShl(a, count));
      if (!is_signed) return b.CreateSelect(out_of_range, k(0), b.CreateLShr(a, count));
      llvm::Value* fill = b.CreateSelect(b.CreateICmpSLT(a, k(0)), k(-1), k(0));
      return b.CreateSelect(out_of_range, fill, b.CreateAShr(a, count));
    }
    default:
      return nullptr;
  }
}

/// libm's name for a function of a float loop: "tanh" or "tanhf".
const char* LibmName(OpCode op) {
  switch (op) {
    case OpCode::kExpm1:
      return "expm1";
    case OpCode::kLog1p:
      return "log1p";
    case OpCode::kCbrt:
      return "cbrt";
    case OpCode::kTan:
      return "tan";
    case OpCode::kAsin:
      return "asin";
    case OpCode::kAcos:
      return "acos";
    case OpCode::kAtan:
      return "atan";
    case OpCode::kAtan2:
      return "atan2";
    case OpCode::kSinh:
      return "sinh";
    case OpCode::kCosh:
      return "cosh";
    case OpCode::kTanh:
      return "tanh";
    case OpCode::kAsinh:
      return "asinh";
    case OpCode::kAcosh:
      return "acosh";
    case OpCode::kAtanh:
      return "atanh";
    case OpCode::kErf:
      return "erf";
    case OpCode::kErfc:
      return "erfc";
    default:
      return nullptr;
  }
}

std::optional<llvm::Intrinsic::ID> FloatIntrinsic(OpCode op) {
  switch (op) {
    case OpCode::kExp:
      return llvm::Intrinsic::exp;
    case OpCode::kExp2:
      return llvm::Intrinsic::exp2;
    case OpCode::kLog:
      return llvm::Intrinsic::log;
    case OpCode::kLog2:
      return llvm::Intrinsic::log2;
    case OpCode::kLog10:
      return llvm::Intrinsic::log10;
    case OpCode::kSqrt:
      return llvm::Intrinsic::sqrt;
    case OpCode::kSin:
      return llvm::Intrinsic::sin;
    case OpCode::kCos:
      return llvm::Intrinsic::cos;
    case OpCode::kFloor:
      return llvm::Intrinsic::floor;
    case OpCode::kCeil:
      return llvm::Intrinsic::ceil;
    case OpCode::kTrunc:
      return llvm::Intrinsic::trunc;
    case OpCode::kRound:  // nearbyint in the default mode: half to even
      return llvm::Intrinsic::roundeven;
    case OpCode::kAbs:
      return llvm::Intrinsic::fabs;
    case OpCode::kPow:
      return llvm::Intrinsic::pow;
    default:
      return std::nullopt;
  }
}

/// NumPy's npy_divmod in double, as the interpreter's FloorDivFloat and ModFloat compute it
/// (ir/elementwise_semantics.cc), branch-free: fmod is exact (frem: libm's fmod on the host,
/// libdevice's on the GPU), and every comparison keeps C++'s NaN behaviour.
llvm::Value* EmitFloatDivMod(llvm::IRBuilder<>& b, OpCode op, llvm::Value* a, llvm::Value* c) {
  llvm::Type* t = a->getType();
  llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
  llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
  llvm::Value* mod = b.CreateFRem(a, c);
  llvm::Value* divisor_zero = b.CreateFCmpOEQ(c, zero);
  llvm::Value* mod_nonzero = b.CreateFCmpUNE(mod, zero);
  llvm::Value* signs_differ = b.CreateXor(b.CreateFCmpOLT(c, zero), b.CreateFCmpOLT(mod, zero));
  llvm::Value* adjust = b.CreateAnd(mod_nonzero, signs_differ);
  if (op == OpCode::kMod) {
    llvm::Value* adjusted = b.CreateSelect(adjust, b.CreateFAdd(mod, c), mod);
    llvm::Value* signed_zero = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, c);
    llvm::Value* result = b.CreateSelect(mod_nonzero, adjusted, signed_zero);
    return b.CreateSelect(divisor_zero, mod, result);
  }
  llvm::Value* quotient = b.CreateFDiv(a, c);
  llvm::Value* div = b.CreateFDiv(b.CreateFSub(a, mod), c);
  div = b.CreateSelect(adjust, b.CreateFSub(div, one), div);
  llvm::Value* floor = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div);
  llvm::Value* round_up = b.CreateFCmpOGT(b.CreateFSub(div, floor), llvm::ConstantFP::get(t, 0.5));
  llvm::Value* floordiv = b.CreateSelect(round_up, b.CreateFAdd(floor, one), floor);
  llvm::Value* signed_zero = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, quotient);
  llvm::Value* result = b.CreateSelect(b.CreateFCmpOEQ(div, zero), signed_zero, floordiv);
  return b.CreateSelect(divisor_zero, quotient, result);
}

/// NumPy's complex product (ir/complex_arithmetic.h's NumpyMultiply): the schoolbook
/// products in the parts' precision, each rounded (no contraction into fma), no recovery of
/// infinities.
std::pair<llvm::Value*, llvm::Value*> EmitComplexMul(llvm::IRBuilder<>& b, llvm::Value* a,
                                                     llvm::Value* bi, llvm::Value* c,
                                                     llvm::Value* d) {
  llvm::Value* x = b.CreateFSub(b.CreateFMul(a, c), b.CreateFMul(bi, d));
  llvm::Value* y = b.CreateFAdd(b.CreateFMul(a, d), b.CreateFMul(bi, c));
  return {x, y};
}

/// NumPy's |z| (ir/complex_arithmetic.h's NumpyAbs): larger * sqrt(fma(r, r, 1)) for the
/// ratio r of the smaller part to the larger, inf for an infinite part, else NaN for a NaN.
/// Selects only, so the loop vectorizes (libm's hypot was a call per element).
llvm::Value* EmitComplexAbs(llvm::IRBuilder<>& b, llvm::Value* re, llvm::Value* im) {
  llvm::Type* t = re->getType();
  llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
  llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
  llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
  re = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, re);
  im = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, im);
  im = b.CreateSelect(b.CreateFCmpOEQ(re, inf), inf, im);
  re = b.CreateSelect(b.CreateFCmpOEQ(im, inf), inf, re);
  im = b.CreateSelect(b.CreateFCmpUNO(re, re), re, im);
  re = b.CreateSelect(b.CreateFCmpUNO(im, im), im, re);
  llvm::Value* larger = b.CreateSelect(b.CreateFCmpOGT(re, im), re, im);
  llvm::Value* smaller = b.CreateSelect(b.CreateFCmpOLT(im, re), im, re);
  llvm::Value* no_ratio = b.CreateOr(b.CreateFCmpOEQ(larger, zero), b.CreateFCmpOEQ(smaller, inf));
  llvm::Value* ratio = b.CreateSelect(no_ratio, zero, b.CreateFDiv(smaller, larger));
  llvm::Value* root = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::sqrt, b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {ratio, ratio, one}));
  return b.CreateFMul(root, larger);
}

/// Complex add, sub, neg, mul, square, eq and ne in the parts' precision, as NumPy's loops
/// (a float sum rounds the same once in double or in float; products round per part, so
/// they must be floats for complex64). Other complex ops (division, functions, ordering) go
/// to the support library.
llvm::Value* EmitComplex(llvm::IRBuilder<>& b, OpCode op, DType loop, llvm::Value* a,
                         llvm::Value* c) {
  llvm::Type* part = loop == DType::kComplex64 ? b.getFloatTy() : b.getDoubleTy();
  auto get = [&](llvm::Value* v, unsigned i) { return b.CreateExtractValue(v, i); };
  auto make = [&](llvm::Value* x, llvm::Value* y) {
    llvm::Value* r = llvm::PoisonValue::get(llvm::ArrayType::get(part, 2));
    r = b.CreateInsertValue(r, x, 0);
    return b.CreateInsertValue(r, y, 1);
  };
  switch (op) {
    case OpCode::kAdd:
      return make(b.CreateFAdd(get(a, 0), get(c, 0)), b.CreateFAdd(get(a, 1), get(c, 1)));
    case OpCode::kSub:
      return make(b.CreateFSub(get(a, 0), get(c, 0)), b.CreateFSub(get(a, 1), get(c, 1)));
    case OpCode::kNeg:
      return make(b.CreateFNeg(get(a, 0)), b.CreateFNeg(get(a, 1)));
    case OpCode::kMul:
    case OpCode::kSquare: {
      llvm::Value* other = op == OpCode::kSquare ? a : c;
      auto [x, y] = EmitComplexMul(b, get(a, 0), get(a, 1), get(other, 0), get(other, 1));
      return make(x, y);
    }
    case OpCode::kAbs:
      return EmitComplexAbs(b, get(a, 0), get(a, 1));
    case OpCode::kEq:
    case OpCode::kNe: {
      llvm::Value* equal =
          b.CreateAnd(b.CreateFCmpOEQ(get(a, 0), get(c, 0)), b.CreateFCmpOEQ(get(a, 1), get(c, 1)));
      return op == OpCode::kEq ? equal : b.CreateNot(equal);
    }
    default:
      return nullptr;
  }
}

/// The interpreter's PowUnsigned/PowSigned (ir/elementwise_semantics.cc): square-and-multiply
/// over every bit of the exponent, wrapping in the loop's width (the low bits of the 64-bit
/// product are the same), branch-free. A negative signed exponent gives 1/base truncated:
/// 1 for base 1, +-1 for base -1, 0 otherwise.
llvm::Value* EmitIntegerPow(llvm::IRBuilder<>& b, bool is_signed, llvm::Value* base,
                            llvm::Value* exponent) {
  llvm::Type* t = base->getType();
  const unsigned bits = t->getIntegerBitWidth();
  auto k = [&](int64_t v) { return llvm::ConstantInt::get(t, static_cast<uint64_t>(v), true); };
  llvm::Value* result = k(1);
  llvm::Value* power = base;
  llvm::Value* e = exponent;
  for (unsigned i = 0; i < bits; ++i) {
    llvm::Value* odd = b.CreateTrunc(e, b.getInt1Ty());
    result = b.CreateSelect(odd, b.CreateMul(result, power), result);
    power = b.CreateMul(power, power);
    e = b.CreateLShr(e, k(1));
  }
  if (!is_signed) return result;
  llvm::Value* odd = b.CreateTrunc(exponent, b.getInt1Ty());
  llvm::Value* negative_power = b.CreateSelect(
      b.CreateICmpEQ(base, k(1)), k(1),
      b.CreateSelect(b.CreateICmpEQ(base, k(-1)), b.CreateSelect(odd, k(-1), k(1)), k(0)));
  return b.CreateSelect(b.CreateICmpSLT(exponent, k(0)), negative_power, result);
}

/// ir/philox.h's PhiloxBits: ten rounds of Philox4x32 on counter {lo, hi, 0, 0}, words 0
/// and 1 of the block. Integer multiplies and xors only: a few dozen instructions per value,
/// on every target (random arrays are computed where they are used, never stored).
llvm::Value* EmitPhilox(llvm::IRBuilder<>& b, llvm::Value* counter, llvm::Value* key) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  auto low = [&](llvm::Value* v) { return b.CreateTrunc(v, i32); };
  auto high = [&](llvm::Value* v) { return b.CreateTrunc(b.CreateLShr(v, 32), i32); };
  llvm::Value* ctr[4] = {low(counter), high(counter), b.getInt32(0), b.getInt32(0)};
  llvm::Value* k0 = low(key);
  llvm::Value* k1 = high(key);
  for (int round = 0; round < 10; ++round) {
    llvm::Value* p0 = b.CreateMul(b.getInt64(0xD2511F53u), b.CreateZExt(ctr[0], i64), "", true);
    llvm::Value* p1 = b.CreateMul(b.getInt64(0xCD9E8D57u), b.CreateZExt(ctr[2], i64), "", true);
    llvm::Value* next[4] = {b.CreateXor(b.CreateXor(high(p1), ctr[1]), k0), low(p1),
                            b.CreateXor(b.CreateXor(high(p0), ctr[3]), k1), low(p0)};
    for (int i = 0; i < 4; ++i) ctr[i] = next[i];
    k0 = b.CreateAdd(k0, b.getInt32(0x9E3779B9u));
    k1 = b.CreateAdd(k1, b.getInt32(0xBB67AE85u));
  }
  return b.CreateOr(b.CreateShl(b.CreateZExt(ctr[1], i64), 32), b.CreateZExt(ctr[0], i64));
}

/// Ops whose float result is not the correctly rounded value of exact arithmetic (libm
/// functions, and rsqrt's two roundings).
bool ComputesInDouble(OpCode op) {
  if (LibmName(op) != nullptr || op == OpCode::kRsqrt || op == OpCode::kPow) return true;
  switch (op) {
    case OpCode::kExp:
    case OpCode::kExp2:
    case OpCode::kLog:
    case OpCode::kLog2:
    case OpCode::kLog10:
    case OpCode::kSin:
    case OpCode::kCos:
      return true;
    default:
      return false;
  }
}

llvm::Value* EmitFloat(ValueLowering& values, OpCode op, llvm::Value* a, llvm::Value* c) {
  llvm::IRBuilder<>& b = values.builder();
  llvm::Type* t = a->getType();
  auto k = [&](double v) { return llvm::ConstantFP::get(t, v); };
  if (std::optional<llvm::Intrinsic::ID> id = FloatIntrinsic(op)) {
    if (op == OpCode::kPow) return b.CreateBinaryIntrinsic(*id, a, c);
    return b.CreateUnaryIntrinsic(*id, a);
  }
  if (const char* name = LibmName(op)) {
    std::string symbol = name;
    if (t->isFloatTy()) symbol += "f";
    const bool binary = op == OpCode::kAtan2;
    std::vector<llvm::Type*> params(binary ? 2 : 1, t);
    llvm::FunctionCallee f = values.PureFunction(symbol.c_str(), t, params);
    return binary ? b.CreateCall(f, {a, c}) : b.CreateCall(f, {a});
  }
  switch (op) {
    case OpCode::kAdd:
      return b.CreateFAdd(a, c);
    case OpCode::kSub:
      return b.CreateFSub(a, c);
    case OpCode::kMul:
      return b.CreateFMul(a, c);
    case OpCode::kDiv:
      return b.CreateFDiv(a, c);
    case OpCode::kNeg:
      return b.CreateFNeg(a);
    case OpCode::kSquare:
      return b.CreateFMul(a, a);
    case OpCode::kReciprocal:
      return b.CreateFDiv(k(1.0), a);
    case OpCode::kRsqrt:
      return b.CreateFDiv(k(1.0), b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a));
    case OpCode::kSign:
      // NaN stays NaN and zeros keep their sign.
      return b.CreateSelect(b.CreateFCmpOGT(a, k(0)), k(1),
                            b.CreateSelect(b.CreateFCmpOLT(a, k(0)), k(-1), a));
    case OpCode::kMaximum:
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, a, c);
    case OpCode::kMinimum:
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, a, c);
    case OpCode::kFmax:
    case OpCode::kFmin: {
      llvm::Value* both = b.CreateBinaryIntrinsic(
          op == OpCode::kFmax ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, a, c);
      return b.CreateSelect(b.CreateFCmpUNO(a, a), c,
                            b.CreateSelect(b.CreateFCmpUNO(c, c), a, both));
    }
    case OpCode::kIsNan:
      return b.CreateFCmpUNO(a, a);
    case OpCode::kIsInf:
      return b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a),
                             k(std::numeric_limits<double>::infinity()));
    case OpCode::kIsFinite:
      return b.CreateFCmpONE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a),
                             k(std::numeric_limits<double>::infinity()));
    default:
      return nullptr;
  }
}

}  // namespace

llvm::Value* EmitNativeElementwise(ValueLowering& values, OpCode op, DType loop,
                                   const std::vector<llvm::Value*>& args) {
  llvm::IRBuilder<>& b = values.builder();
  llvm::Value* a = args[0];
  llvm::Value* c = args.size() > 1 ? args[1] : args[0];
  switch (op) {
    case OpCode::kLogicalAnd:
      return b.CreateAnd(values.Truthy(a, loop), values.Truthy(c, loop));
    case OpCode::kLogicalOr:
      return b.CreateOr(values.Truthy(a, loop), values.Truthy(c, loop));
    case OpCode::kLogicalXor:
      return b.CreateXor(values.Truthy(a, loop), values.Truthy(c, loop));
    case OpCode::kLogicalNot:
      return b.CreateNot(values.Truthy(a, loop));
    default:
      break;
  }
  const DTypeKind kind = ir::KindOf(loop);
  if (op == OpCode::kPhilox) return EmitPhilox(b, a, c);
  // Parts of complex values; a real value is its own conjugate and real part.
  if (op == OpCode::kConj || op == OpCode::kReal || op == OpCode::kImag) {
    if (kind == DTypeKind::kComplex) {
      if (op == OpCode::kConj) {
        return b.CreateInsertValue(a, b.CreateFNeg(b.CreateExtractValue(a, 1)), 1);
      }
      return b.CreateExtractValue(a, op == OpCode::kReal ? 0 : 1);
    }
    return op == OpCode::kImag ? llvm::Constant::getNullValue(a->getType()) : a;
  }
  if (kind == DTypeKind::kComplex) return EmitComplex(b, op, loop, a, c);
  if (std::optional<llvm::CmpInst::Predicate> p = Comparison(op, kind)) {
    return b.CreateCmp(*p, a, c);
  }
  switch (kind) {
    case DTypeKind::kBool:
      if (llvm::Value* v = EmitExactCommon(b, op, DTypeKind::kUnsigned, a, c)) return v;
      return EmitBool(b, op, a, c);
    case DTypeKind::kSigned:
    case DTypeKind::kUnsigned:
      if (op == OpCode::kPow) return EmitIntegerPow(b, kind == DTypeKind::kSigned, a, c);
      if (llvm::Value* v = EmitExactCommon(b, op, kind, a, c)) return v;
      return EmitInteger(b, op, kind == DTypeKind::kSigned, ir::IntegerBits(loop), a, c);
    case DTypeKind::kFloat: {
      if (op == OpCode::kFloorDivide || op == OpCode::kMod) {
        return values.Convert(EmitFloatDivMod(b, op, values.Convert(a, loop, DType::kFloat64),
                                              values.Convert(c, loop, DType::kFloat64)),
                              DType::kFloat64, loop);
      }
      if (loop == DType::kFloat64 || !ComputesInDouble(op) || values.float_math_in_float()) {
        return EmitFloat(values, op, a, c);
      }
      // Functions that are not correctly rounded run in double and round once to the loop
      // dtype, as the interpreter computes them: the results are then identical.
      llvm::Value* wide_a = values.Convert(a, loop, DType::kFloat64);
      llvm::Value* wide_c = values.Convert(c, loop, DType::kFloat64);
      return values.Convert(EmitFloat(values, op, wide_a, wide_c), DType::kFloat64, loop);
    }
    case DTypeKind::kComplex:
      break;
  }
  return nullptr;
}

}  // namespace gpuc::codegen
