//===- accumulator.cc - The running state of one reduction, in registers --===//
#include "codegen/accumulator.h"

#include "absl/strings/str_cat.h"

namespace gpuc::codegen {

using ir::DType;
using ir::OpCode;

bool Accumulator::Prepare(bool combinable) {
  switch (op()) {
    case OpCode::kReduceSum:
    case OpCode::kReduceProd:
      // The interpreter accumulates every float sum in double and rounds once at the end;
      // so does this (f16, bf16 and f32 sums are then more accurate than NumPy's pairwise).
      acc_ = out_;
      if (ir::IsFloat(out_)) acc_ = DType::kFloat64;
      if (ir::IsComplex(out_)) acc_ = DType::kComplex128;
      if (op() == OpCode::kReduceProd && ir::IsComplex(out_)) {
        emitter_.Unsupported("a complex reduce_prod");
        return false;
      }
      break;
    case OpCode::kReduceAny:
    case OpCode::kReduceAll:
      acc_ = DType::kBool;
      break;
    default:
      acc_ = in_;
      if (ir::IsComplex(in_)) {
        emitter_.Unsupported(absl::StrCat("a complex ", ir::OpName(op())));
        return false;
      }
      break;
  }
  value_type_ = values_.RegisterType(acc_);
  value_ = frame_.EntryAlloca(value_type_, "acc");
  if (op() == OpCode::kArgMax || op() == OpCode::kArgMin || (combinable && IsExtremum())) {
    index_ = frame_.EntryAlloca(values_.builder().getInt64Ty(), "acc_index");
  }
  return true;
}

bool Accumulator::PrepareSlots(int slots) {
  if (!Prepare()) return false;
  value_slots_ = frame_.EntryAlloca(llvm::ArrayType::get(value_type_, slots), "acc_slots");
  if (index_) {
    index_slots_ = frame_.EntryAlloca(llvm::ArrayType::get(values_.builder().getInt64Ty(), slots),
                                      "acc_index_slots");
  }
  return true;
}

void Accumulator::SelectSlot(llvm::Value* slot) {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Value* zero = b.getInt64(0);
  llvm::Value* at = b.CreateZExt(slot, b.getInt64Ty());
  value_ = b.CreateInBoundsGEP(value_slots_->getAllocatedType(), value_slots_, {zero, at});
  if (index_) {
    index_ = b.CreateInBoundsGEP(index_slots_->getAllocatedType(), index_slots_, {zero, at});
  }
}

llvm::Value* Accumulator::InitialValue() {
  llvm::IRBuilder<>& b = values_.builder();
  switch (op()) {
    case OpCode::kReduceSum:
      return values_.ConstantOf(acc_, 0.0);
    case OpCode::kReduceProd:
      return values_.ConstantOf(acc_, 1.0);
    case OpCode::kReduceAny:
      return b.getFalse();
    case OpCode::kReduceAll:
      return b.getTrue();
    default:
      break;
  }
  // Extrema start below (above) every value, so the first element replaces it unless it is
  // the extreme itself, which then stands at index 0 either way.
  const bool max = WantsMax();
  llvm::Type* t = values_.RegisterType(acc_);
  switch (ir::KindOf(acc_)) {
    case ir::DTypeKind::kFloat:
      return llvm::ConstantFP::getInfinity(t, max);
    case ir::DTypeKind::kSigned:
      return max ? llvm::ConstantInt::get(t,
                                          llvm::APInt::getSignedMinValue(t->getIntegerBitWidth()))
                 : llvm::ConstantInt::get(t,
                                          llvm::APInt::getSignedMaxValue(t->getIntegerBitWidth()));
    case ir::DTypeKind::kUnsigned:
      return max ? llvm::ConstantInt::get(t, 0) : llvm::ConstantInt::getAllOnesValue(t);
    default:
      return b.getInt1(!max);
  }
}

void Accumulator::Start() {
  llvm::IRBuilder<>& b = values_.builder();
  b.CreateStore(InitialValue(), value_);
  if (index_) b.CreateStore(b.getInt64(0), index_);
}

llvm::Value* Accumulator::Element(llvm::Value* x) {
  switch (op()) {
    case OpCode::kReduceSum:
    case OpCode::kReduceProd:
      return emitter_.ConvertAny(emitter_.ConvertAny(x, in_, out_), out_, acc_);
    case OpCode::kReduceAny:
    case OpCode::kReduceAll:
      return values_.Truthy(x, in_);
    default:
      return x;
  }
}

void Accumulator::Add(llvm::Value* x, llvm::Value* position) {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Value* acc = b.CreateLoad(value_type_, value_);
  llvm::Value* next = nullptr;
  switch (op()) {
    case OpCode::kReduceSum:
    case OpCode::kReduceProd: {
      const bool sum = op() == OpCode::kReduceSum;
      llvm::Value* v = Element(x);
      if (ir::IsComplex(acc_)) {
        next = acc;
        for (unsigned part = 0; part < 2; ++part) {
          llvm::Value* s =
              b.CreateFAdd(b.CreateExtractValue(acc, part), b.CreateExtractValue(v, part));
          next = b.CreateInsertValue(next, s, part);
        }
      } else if (ir::IsFloat(acc_)) {
        next = sum ? b.CreateFAdd(acc, v) : b.CreateFMul(acc, v);
        // Reassociation lets the vectorizer keep several partial sums, as NumPy's pairwise
        // summation does in its own order; results agree within the documented tolerance.
        llvm::cast<llvm::Instruction>(next)->setHasAllowReassoc(true);
      } else if (acc_ == DType::kBool) {
        next = sum ? b.CreateOr(acc, v) : b.CreateAnd(acc, v);
      } else {
        next = sum ? b.CreateAdd(acc, v) : b.CreateMul(acc, v);
      }
      break;
    }
    case OpCode::kReduceAny:
      next = b.CreateOr(acc, Element(x));
      break;
    case OpCode::kReduceAll:
      next = b.CreateAnd(acc, Element(x));
      break;
    default: {
      const bool max = WantsMax();
      llvm::Value* replace;
      switch (ir::KindOf(acc_)) {
        case ir::DTypeKind::kFloat: {
          if (!index_) {
            // max and min: IEEE maximum/minimum (NaN wins, +0.0 above -0.0), which does not
            // depend on the order, so the loop vectorizes (a compare-and-select chain ran at
            // one element per ~5 cycles: 3x NumPy's time on softmax rows).
            b.CreateStore(b.CreateBinaryIntrinsic(
                              max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, acc, x),
                          value_);
            return;
          }
          // NaN wins and the first NaN stays (NumPy's argmax).
          llvm::Value* better = max ? b.CreateFCmpOGT(x, acc) : b.CreateFCmpOLT(x, acc);
          replace =
              b.CreateAnd(b.CreateFCmpORD(acc, acc), b.CreateOr(b.CreateFCmpUNO(x, x), better));
          break;
        }
        case ir::DTypeKind::kSigned:
          replace = max ? b.CreateICmpSGT(x, acc) : b.CreateICmpSLT(x, acc);
          break;
        case ir::DTypeKind::kUnsigned:
          replace = max ? b.CreateICmpUGT(x, acc) : b.CreateICmpULT(x, acc);
          break;
        default:
          replace = max ? b.CreateAnd(x, b.CreateNot(acc)) : b.CreateAnd(b.CreateNot(x), acc);
          break;
      }
      next = b.CreateSelect(replace, x, acc);
      if (index_) {
        llvm::Value* best = b.CreateLoad(b.getInt64Ty(), index_);
        b.CreateStore(b.CreateSelect(replace, b.CreateZExt(position, b.getInt64Ty()), best),
                      index_);
      }
      break;
    }
  }
  b.CreateStore(next, value_);
}

llvm::Value* Accumulator::Finish(llvm::Value* count) {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Value* empty = b.CreateICmpEQ(count, llvm::ConstantInt::get(count->getType(), 0));
  if (op() == OpCode::kArgMax || op() == OpCode::kArgMin) {
    return b.CreateSelect(empty, b.getInt64(0), b.CreateLoad(b.getInt64Ty(), index_));
  }
  llvm::Value* acc = b.CreateLoad(value_type_, value_);
  if (IsExtremum()) {
    // An empty row has no extreme; the interpreter stores 0 (the front end rejects it).
    return b.CreateSelect(empty, values_.ConstantOf(out_, 0.0), acc);
  }
  return emitter_.ConvertAny(acc, acc_, out_);
}

Accumulator::State Accumulator::Identity() {
  State s{InitialValue(), nullptr};
  // No position: every real element is at a smaller one and wins a tie.
  if (index_) s.index = values_.builder().getInt64(INT64_MAX);
  return s;
}

void Accumulator::StartCombinable() { Store(Identity()); }

Accumulator::State Accumulator::Load() {
  llvm::IRBuilder<>& b = values_.builder();
  State s{b.CreateLoad(value_type_, value_), nullptr};
  if (index_) s.index = b.CreateLoad(b.getInt64Ty(), index_);
  return s;
}

void Accumulator::Store(State state) {
  llvm::IRBuilder<>& b = values_.builder();
  b.CreateStore(state.value, value_);
  if (index_) b.CreateStore(state.index, index_);
}

void Accumulator::AddCombinable(llvm::Value* x, llvm::Value* position) {
  llvm::IRBuilder<>& b = values_.builder();
  State element{Element(x), nullptr};
  if (index_) element.index = b.CreateZExt(position, b.getInt64Ty());
  Store(Combine(Load(), element));
}

Accumulator::State Accumulator::Combine(State a, State b_state) {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Value* x = a.value;
  llvm::Value* y = b_state.value;
  switch (op()) {
    case OpCode::kReduceSum:
    case OpCode::kReduceProd: {
      const bool sum = op() == OpCode::kReduceSum;
      if (ir::IsComplex(acc_)) {
        llvm::Value* next = x;
        for (unsigned part = 0; part < 2; ++part) {
          next = b.CreateInsertValue(
              next, b.CreateFAdd(b.CreateExtractValue(x, part), b.CreateExtractValue(y, part)),
              part);
        }
        return {next, nullptr};
      }
      if (ir::IsFloat(acc_)) return {sum ? b.CreateFAdd(x, y) : b.CreateFMul(x, y), nullptr};
      if (acc_ == DType::kBool) return {sum ? b.CreateOr(x, y) : b.CreateAnd(x, y), nullptr};
      return {sum ? b.CreateAdd(x, y) : b.CreateMul(x, y), nullptr};
    }
    case OpCode::kReduceAny:
      return {b.CreateOr(x, y), nullptr};
    case OpCode::kReduceAll:
      return {b.CreateAnd(x, y), nullptr};
    default:
      break;
  }
  const bool max = WantsMax();
  if (ir::KindOf(acc_) == ir::DTypeKind::kFloat && !a.index) {
    return {
        b.CreateBinaryIntrinsic(max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, x, y),
        nullptr};
  }
  llvm::Value* earlier = a.index ? b.CreateICmpULT(b_state.index, a.index) : b.getFalse();
  llvm::Value* better;
  llvm::Value* equal;
  switch (ir::KindOf(acc_)) {
    case ir::DTypeKind::kFloat: {
      // NaN beats every number; between two NaNs (or equal numbers) the earlier one stays.
      llvm::Value* x_nan = b.CreateFCmpUNO(x, x);
      llvm::Value* y_nan = b.CreateFCmpUNO(y, y);
      llvm::Value* y_greater = max ? b.CreateFCmpOGT(y, x) : b.CreateFCmpOLT(y, x);
      better = b.CreateOr(b.CreateAnd(y_nan, b.CreateNot(x_nan)),
                          b.CreateAnd(b.CreateNot(x_nan), y_greater));
      equal = b.CreateOr(b.CreateAnd(x_nan, y_nan), b.CreateFCmpOEQ(x, y));
      break;
    }
    case ir::DTypeKind::kSigned:
      better = max ? b.CreateICmpSGT(y, x) : b.CreateICmpSLT(y, x);
      equal = b.CreateICmpEQ(x, y);
      break;
    case ir::DTypeKind::kUnsigned:
      better = max ? b.CreateICmpUGT(y, x) : b.CreateICmpULT(y, x);
      equal = b.CreateICmpEQ(x, y);
      break;
    default:
      better = max ? b.CreateAnd(y, b.CreateNot(x)) : b.CreateAnd(b.CreateNot(y), x);
      equal = b.CreateICmpEQ(x, y);
      break;
  }
  llvm::Value* replace = b.CreateOr(better, b.CreateAnd(equal, earlier));
  State result{b.CreateSelect(replace, y, x), nullptr};
  if (a.index) result.index = b.CreateSelect(replace, b_state.index, a.index);
  return result;
}

std::vector<llvm::Type*> Accumulator::StateTypes() const {
  std::vector<llvm::Type*> types = {value_type_};
  if (index_) types.push_back(values_.builder().getInt64Ty());
  return types;
}

}  // namespace gpuc::codegen
