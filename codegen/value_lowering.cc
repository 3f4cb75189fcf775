//===- value_lowering.cc - gpuc dtypes as LLVM values ---------------------===//
#include "codegen/value_lowering.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace gpuc::codegen {

using ir::DType;
using ir::DTypeKind;

llvm::Type* ValueLowering::StorageType(DType dtype) const {
  llvm::LLVMContext& c = b_.getContext();
  switch (dtype) {
    case DType::kBool:
      return llvm::Type::getInt8Ty(c);
    case DType::kFloat16:
    case DType::kBFloat16:
      return llvm::Type::getInt16Ty(c);
    default:
      return RegisterType(dtype);
  }
}

llvm::Type* ValueLowering::RegisterType(DType dtype) const {
  llvm::LLVMContext& c = b_.getContext();
  switch (dtype) {
    case DType::kBool:
      return llvm::Type::getInt1Ty(c);
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
      return llvm::Type::getFloatTy(c);
    case DType::kFloat64:
      return llvm::Type::getDoubleTy(c);
    case DType::kComplex64:
      return llvm::ArrayType::get(llvm::Type::getFloatTy(c), 2);
    case DType::kComplex128:
      return llvm::ArrayType::get(llvm::Type::getDoubleTy(c), 2);
    default:
      return llvm::Type::getIntNTy(c, ir::IntegerBits(dtype));
  }
}

llvm::FunctionCallee ValueLowering::PureFunction(const char* name, llvm::Type* result,
                                                 llvm::ArrayRef<llvm::Type*> params) {
  llvm::FunctionType* type = llvm::FunctionType::get(result, params, false);
  llvm::FunctionCallee callee = module().getOrInsertFunction(name, type);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setWillReturn();
    f->setDoesNotAccessMemory();
  }
  return callee;
}

llvm::Value* ValueLowering::HalfBitsToFloat(llvm::Value* bits) {
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::FunctionCallee f = PureFunction(kHalfToFloat, b_.getFloatTy(), {i32});
  return b_.CreateCall(f, {b_.CreateZExt(bits, i32)});
}

llvm::Value* ValueLowering::FloatToBFloat16Bits(llvm::Value* f) {
  // Round to nearest even on the bit pattern; a NaN stays a (quiet) NaN.
  llvm::Value* bits = b_.CreateBitCast(f, b_.getInt32Ty());
  llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
  llvm::Value* rounded =
      b_.CreateLShr(b_.CreateAdd(b_.CreateAdd(bits, b_.getInt32(0x7FFF)), lsb), 16);
  llvm::Value* quiet = b_.CreateOr(b_.CreateLShr(bits, 16), 0x40);
  llvm::Value* is_nan = b_.CreateFCmpUNO(f, f);
  return b_.CreateTrunc(b_.CreateSelect(is_nan, quiet, rounded), b_.getInt16Ty());
}

llvm::Value* ValueLowering::FromStorage(DType dtype, llvm::Value* bits) {
  switch (dtype) {
    case DType::kBool:
      return b_.CreateICmpNE(bits, b_.getInt8(0));
    case DType::kFloat16:
      return HalfBitsToFloat(bits);
    case DType::kBFloat16:
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16),
                              b_.getFloatTy());
    default:
      return bits;
  }
}

llvm::Value* ValueLowering::ToStorage(DType dtype, llvm::Value* value) {
  switch (dtype) {
    case DType::kBool:
      return b_.CreateZExt(value, b_.getInt8Ty());
    case DType::kFloat16: {
      llvm::FunctionCallee f = PureFunction(kFloatToHalf, b_.getInt32Ty(), {b_.getFloatTy()});
      return b_.CreateTrunc(b_.CreateCall(f, {value}), b_.getInt16Ty());
    }
    case DType::kBFloat16:
      // The register already holds a bfloat16 value: its top 16 bits are exact.
      return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(value, b_.getInt32Ty()), 16),
                            b_.getInt16Ty());
    default:
      return value;
  }
}

llvm::Value* ValueLowering::Load(DType dtype, llvm::Value* pointer) {
  return FromStorage(dtype, b_.CreateLoad(StorageType(dtype), pointer));
}

void ValueLowering::Store(DType dtype, llvm::Value* value, llvm::Value* pointer) {
  b_.CreateStore(ToStorage(dtype, value), pointer);
}

llvm::Value* ValueLowering::Round(llvm::Value* value, DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return FromStorage(dtype, ToStorage(dtype, value));
    case DType::kBFloat16:
      return FromStorage(dtype, FloatToBFloat16Bits(value));
    default:
      return value;
  }
}

llvm::Value* ValueLowering::Truthy(llvm::Value* value, DType dtype) {
  switch (ir::KindOf(dtype)) {
    case DTypeKind::kBool:
      return value;
    case DTypeKind::kSigned:
    case DTypeKind::kUnsigned:
      return b_.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
    case DTypeKind::kFloat:
      return b_.CreateFCmpUNE(value, llvm::ConstantFP::get(value->getType(), 0.0));
    case DTypeKind::kComplex: {
      llvm::Value* zero = llvm::ConstantFP::get(value->getType()->getArrayElementType(), 0.0);
      return b_.CreateOr(b_.CreateFCmpUNE(b_.CreateExtractValue(value, 0), zero),
                         b_.CreateFCmpUNE(b_.CreateExtractValue(value, 1), zero));
    }
  }
  return value;
}

llvm::Value* ValueLowering::Convert(llvm::Value* value, DType from, DType to) {
  if (from == to) return value;
  const DTypeKind from_kind = ir::KindOf(from), to_kind = ir::KindOf(to);
  llvm::Type* to_type = RegisterType(to);
  if (to == DType::kBool) return Truthy(value, from);
  if (to_kind == DTypeKind::kSigned || to_kind == DTypeKind::kUnsigned) {
    if (from_kind == DTypeKind::kBool) return b_.CreateZExt(value, to_type);
    if (from_kind == DTypeKind::kSigned) return b_.CreateSExtOrTrunc(value, to_type);
    if (from_kind == DTypeKind::kUnsigned) return b_.CreateZExtOrTrunc(value, to_type);
    // Truncate toward zero, saturate, NaN to 0: exactly the .sat intrinsics.
    const llvm::Intrinsic::ID id =
        to_kind == DTypeKind::kSigned ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {to_type, value->getType()}, {value});
  }
  // To a float dtype. Integers and bools go through double, as the interpreter's do.
  llvm::Value* wide = value;
  if (from_kind == DTypeKind::kBool || from_kind == DTypeKind::kUnsigned) {
    wide = b_.CreateUIToFP(value, b_.getDoubleTy());
  } else if (from_kind == DTypeKind::kSigned) {
    wide = b_.CreateSIToFP(value, b_.getDoubleTy());
  }
  const bool from_double = wide->getType()->isDoubleTy();
  switch (to) {
    case DType::kFloat64:
      return from_double ? wide : b_.CreateFPExt(wide, b_.getDoubleTy());
    case DType::kFloat32:
      return from_double ? b_.CreateFPTrunc(wide, b_.getFloatTy()) : wide;
    case DType::kFloat16:
      if (from_double) {
        llvm::FunctionCallee f = PureFunction(kDoubleToHalf, b_.getInt32Ty(), {b_.getDoubleTy()});
        return FromStorage(to, b_.CreateTrunc(b_.CreateCall(f, {wide}), b_.getInt16Ty()));
      }
      return Round(wide, to);
    case DType::kBFloat16:
      if (from_double) {
        llvm::FunctionCallee f =
            PureFunction(kDoubleToBFloat16, b_.getInt32Ty(), {b_.getDoubleTy()});
        return FromStorage(to, b_.CreateTrunc(b_.CreateCall(f, {wide}), b_.getInt16Ty()));
      }
      return Round(wide, to);
    default:
      return value;  // complex: the caller goes through the support library
  }
}

llvm::Value* ValueLowering::ConstantOf(DType dtype, double value) {
  llvm::Type* type = RegisterType(dtype);
  switch (ir::KindOf(dtype)) {
    case DTypeKind::kBool:
      return b_.getInt1(value != 0);
    case DTypeKind::kSigned:
      return llvm::ConstantInt::get(type, static_cast<uint64_t>(static_cast<int64_t>(value)), true);
    case DTypeKind::kUnsigned:
      return llvm::ConstantInt::get(type, static_cast<uint64_t>(value));
    case DTypeKind::kFloat:
      return llvm::ConstantFP::get(type, value);
    case DTypeKind::kComplex: {
      llvm::Type* part = type->getArrayElementType();
      return llvm::ConstantArray::get(
          llvm::cast<llvm::ArrayType>(type),
          {llvm::ConstantFP::get(part, value), llvm::ConstantFP::get(part, 0.0)});
    }
  }
  return nullptr;
}

}  // namespace gpuc::codegen
