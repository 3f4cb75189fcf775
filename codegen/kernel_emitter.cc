//===- kernel_emitter.cc - A fused kernel as an LLVM module ---------------===//
#include "codegen/kernel_emitter.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "codegen/element_emitter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace gpuc::codegen {
namespace {

using ir::DType;
using ir::Node;
using ir::OpCode;

/// for (iv = begin; iv < end; iv = next(iv)), where `body` emits the work and returns the
/// next value of iv (iv + 1 when it returns null).
void EmitLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end,
              const std::function<llvm::Value*(llvm::Value*)>& body, const char* name) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& c = b.getContext();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(c, absl::StrCat(name, ".header"), f);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(c, absl::StrCat(name, ".body"), f);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, absl::StrCat(name, ".exit"), f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(begin->getType(), 2, name);
  iv->addIncoming(begin, preheader);
  b.CreateCondBr(b.CreateICmpULT(iv, end), body_block, exit);
  b.SetInsertPoint(body_block);
  llvm::Value* next = body(iv);
  if (!next) next = b.CreateAdd(iv, llvm::ConstantInt::get(iv->getType(), 1), "", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

/// The running state of one reduction over a row (ir/interpreter_reduction.cc's
/// Accumulator, in registers).
class Accumulator {
 public:
  Accumulator(const Node& node, ElementEmitter& emitter, ValueLowering& values,
              FunctionFrame& frame)
      : node_(node), emitter_(emitter), values_(values), frame_(frame) {
    in_ = node.operand(0).dtype();
    out_ = node.dtype();
  }

  /// Allocates the state; false (with the emitter told why) when there is no lowering.
  bool Prepare();
  void Start();
  void Add(llvm::Value* x, llvm::Value* position);
  /// The row's result in the node's dtype; `count` is how many elements the row had.
  llvm::Value* Finish(llvm::Value* count);

 private:
  bool IsExtremum() const {
    return op() == OpCode::kReduceMax || op() == OpCode::kReduceMin || op() == OpCode::kArgMax ||
           op() == OpCode::kArgMin;
  }
  bool WantsMax() const { return op() == OpCode::kReduceMax || op() == OpCode::kArgMax; }
  OpCode op() const { return node_.op(); }

  const Node& node_;
  ElementEmitter& emitter_;
  ValueLowering& values_;
  FunctionFrame& frame_;
  DType in_, out_;
  DType acc_ = DType::kBool;  // the register dtype of the running value
  llvm::AllocaInst* value_ = nullptr;
  llvm::AllocaInst* index_ = nullptr;
};

bool Accumulator::Prepare() {
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
  value_ = frame_.EntryAlloca(values_.RegisterType(acc_), "acc");
  if (op() == OpCode::kArgMax || op() == OpCode::kArgMin) {
    index_ = frame_.EntryAlloca(values_.builder().getInt64Ty(), "acc_index");
  }
  return true;
}

void Accumulator::Start() {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Value* init = nullptr;
  switch (op()) {
    case OpCode::kReduceSum:
      init = values_.ConstantOf(acc_, 0.0);
      break;
    case OpCode::kReduceProd:
      init = values_.ConstantOf(acc_, 1.0);
      break;
    case OpCode::kReduceAny:
      init = b.getFalse();
      break;
    case OpCode::kReduceAll:
      init = b.getTrue();
      break;
    default: {
      // Start below (above) every value, so the first element replaces it unless it is the
      // extreme itself, which then stands at index 0 either way.
      const bool max = WantsMax();
      llvm::Type* t = values_.RegisterType(acc_);
      switch (ir::KindOf(acc_)) {
        case ir::DTypeKind::kFloat:
          init = llvm::ConstantFP::getInfinity(t, max);
          break;
        case ir::DTypeKind::kSigned:
          init = max ? llvm::ConstantInt::get(
                           t, llvm::APInt::getSignedMinValue(t->getIntegerBitWidth()))
                     : llvm::ConstantInt::get(
                           t, llvm::APInt::getSignedMaxValue(t->getIntegerBitWidth()));
          break;
        case ir::DTypeKind::kUnsigned:
          init = max ? llvm::ConstantInt::get(t, 0) : llvm::ConstantInt::getAllOnesValue(t);
          break;
        default:
          init = b.getInt1(!max);
          break;
      }
      break;
    }
  }
  b.CreateStore(init, value_);
  if (index_) b.CreateStore(b.getInt64(0), index_);
}

void Accumulator::Add(llvm::Value* x, llvm::Value* position) {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Value* acc = b.CreateLoad(value_->getAllocatedType(), value_);
  llvm::Value* next = nullptr;
  switch (op()) {
    case OpCode::kReduceSum:
    case OpCode::kReduceProd: {
      const bool sum = op() == OpCode::kReduceSum;
      llvm::Value* v = emitter_.ConvertAny(emitter_.ConvertAny(x, in_, out_), out_, acc_);
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
      next = b.CreateOr(acc, values_.Truthy(x, in_));
      break;
    case OpCode::kReduceAll:
      next = b.CreateAnd(acc, values_.Truthy(x, in_));
      break;
    default: {
      const bool max = WantsMax();
      llvm::Value* replace;
      switch (ir::KindOf(acc_)) {
        case ir::DTypeKind::kFloat: {
          // NaN wins and the first NaN stays (NumPy's max and argmax).
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
  if (index_) return b.CreateLoad(b.getInt64Ty(), index_);
  llvm::Value* acc = b.CreateLoad(value_->getAllocatedType(), value_);
  if (IsExtremum()) {
    // An empty row has no extreme; the interpreter stores 0 (the front end rejects it).
    return b.CreateSelect(b.CreateICmpEQ(count, llvm::ConstantInt::get(count->getType(), 0)),
                          values_.ConstantOf(out_, 0.0), acc);
  }
  return emitter_.ConvertAny(acc, acc_, out_);
}

class PhaseEmitter {
 public:
  PhaseEmitter(const KernelSpec& spec, const Phase& phase, llvm::Module& module)
      : spec_(spec),
        phase_(phase),
        module_(module),
        b_(module.getContext()),
        values_(b_),
        emitter_(spec, values_, frame_) {}

  std::string Emit();

 private:
  void EmitStores();
  void EmitReductions();

  const KernelSpec& spec_;
  const Phase& phase_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  ValueLowering values_;
  FunctionFrame frame_;
  ElementEmitter emitter_;
  llvm::Value* begin_ = nullptr;
  llvm::Value* end_ = nullptr;
};

std::string PhaseEmitter::Emit() {
  llvm::LLVMContext& c = module_.getContext();
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::FunctionType* type =
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, i64, i64, ptr}, false);
  llvm::Function* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                             phase_.function_name, module_);
  f->setDoesNotThrow();
  frame_.function = f;
  const char* arg_names[] = {"buffers", "extents", "begin", "end", "error"};
  for (unsigned i = 0; i < 5; ++i) f->getArg(i)->setName(arg_names[i]);
  b_.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", f));
  llvm::Value* buffers = f->getArg(0);
  llvm::Value* extents = f->getArg(1);
  // 32-bit kernels (KernelSpec::index_bits) narrow their arguments once here.
  begin_ = b_.CreateTrunc(f->getArg(2), emitter_.IndexType(), "begin");
  end_ = b_.CreateTrunc(f->getArg(3), emitter_.IndexType(), "end");
  frame_.error = f->getArg(4);
  for (int i = 0; i < spec_.num_buffers(); ++i) {
    frame_.buffers.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, buffers, i), "buffer"));
  }
  for (size_t i = 0; i < spec_.extents.size(); ++i) {
    llvm::Value* extent = b_.CreateLoad(i64, b_.CreateConstGEP1_64(i64, extents, i), "extent");
    frame_.extents.push_back(b_.CreateTrunc(extent, emitter_.IndexType()));
  }
  if (phase_.kind == Phase::Kind::kStore) {
    EmitStores();
  } else {
    EmitReductions();
  }
  b_.CreateRetVoid();
  return emitter_.unsupported();
}

void PhaseEmitter::EmitStores() {
  const ir::Shape& shape = phase_.shape;
  auto store_all = [&](const Index& index, llvm::Value* linear) {
    emitter_.PushScope();
    // Every value first, then every store: an output written in place over an input must not
    // change what the other outputs read at this index.
    std::vector<llvm::Value*> results;
    for (const Node* out : phase_.stores) results.push_back(emitter_.Emit(out, index));
    for (size_t i = 0; i < results.size(); ++i) {
      const Node* out = phase_.stores[i];
      values_.Store(out->dtype(), results[i], emitter_.ElementPointer(out, linear));
    }
    emitter_.PopScope();
  };
  if (shape.rank() == 0) {
    EmitLoop(
        b_, begin_, end_,
        [&](llvm::Value* i) {
          store_all({}, i);
          return nullptr;
        },
        "element");
    return;
  }
  // Rows of the innermost axis, entered and left anywhere in [begin, end): one division per
  // row, and an inner loop with unit-stride stores.
  const int last = shape.rank() - 1;
  llvm::Value* n = emitter_.Extent(shape[last]);
  const ir::Shape outer(std::vector<int64_t>(shape.dims().begin(), shape.dims().end() - 1));
  EmitLoop(
      b_, begin_, end_,
      [&](llvm::Value* position) {
        llvm::Value* row = b_.CreateUDiv(position, n);
        llvm::Value* row_start = b_.CreateMul(row, n, "", true, true);
        llvm::Value* first = b_.CreateSub(position, row_start);
        llvm::Value* stop = b_.CreateBinaryIntrinsic(
            llvm::Intrinsic::umin, n, b_.CreateAdd(first, b_.CreateSub(end_, position)));
        Index row_index = emitter_.Delinearize(row, outer);
        EmitLoop(
            b_, first, stop,
            [&](llvm::Value* j) {
              Index index = row_index;
              index.push_back(j);
              store_all(index, b_.CreateAdd(row_start, j, "", true, true));
              return nullptr;
            },
            "inner");
        return b_.CreateAdd(row_start, stop, "", true, true);
      },
      "row");
}

void PhaseEmitter::EmitReductions() {
  const ir::Shape& full = spec_.reduced_shape;
  const std::vector<int> kept_axes = spec_.KeptAxes();
  const std::vector<int> reduced_axes(spec_.reduced_axes.begin(), spec_.reduced_axes.end());
  std::vector<int64_t> kept_dims, reduced_dims;
  for (int d : kept_axes) kept_dims.push_back(full[d]);
  for (int d : reduced_axes) reduced_dims.push_back(full[d]);
  std::vector<Accumulator> accumulators;
  for (const Node* r : phase_.reductions) accumulators.emplace_back(*r, emitter_, values_, frame_);
  for (Accumulator& acc : accumulators) {
    if (!acc.Prepare()) return;
  }
  llvm::Value* count = emitter_.IndexConstant(1);
  for (int64_t d : reduced_dims) count = b_.CreateMul(count, emitter_.Extent(d));
  EmitLoop(
      b_, begin_, end_,
      [&](llvm::Value* row) {
        Index kept = emitter_.Delinearize(row, ir::Shape(kept_dims));
        for (Accumulator& acc : accumulators) acc.Start();
        Index full_index(full.rank());
        for (size_t k = 0; k < kept_axes.size(); ++k) full_index[kept_axes[k]] = kept[k];
        // One loop per reduced axis, outermost first; the position within the reduced sub-shape
        // (argmin/argmax's answer) is their row-major linearization.
        std::function<void(size_t, llvm::Value*)> nest = [&](size_t level, llvm::Value* position) {
          if (level == reduced_axes.size()) {
            emitter_.PushScope();
            for (size_t i = 0; i < accumulators.size(); ++i) {
              const Node* r = phase_.reductions[i];
              accumulators[i].Add(emitter_.Emit(&r->operand(0), full_index), position);
            }
            emitter_.PopScope();
            return;
          }
          llvm::Value* extent = emitter_.Extent(reduced_dims[level]);
          EmitLoop(
              b_, emitter_.IndexConstant(0), extent,
              [&](llvm::Value* i) {
                full_index[reduced_axes[level]] = i;
                nest(level + 1, b_.CreateAdd(b_.CreateMul(position, extent, "", true, true), i, "",
                                             true, true));
                return nullptr;
              },
              "reduce");
        };
        nest(0, emitter_.IndexConstant(0));
        for (size_t i = 0; i < accumulators.size(); ++i) {
          const Node* r = phase_.reductions[i];
          values_.Store(r->dtype(), accumulators[i].Finish(count), emitter_.ElementPointer(r, row));
        }
        return nullptr;
      },
      "row");
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitKernel(const KernelSpec& spec,
                                                         llvm::LLVMContext& context) {
  auto module = std::make_unique<llvm::Module>(spec.name, context);
  for (const Phase& phase : spec.phases) {
    std::string unsupported = PhaseEmitter(spec, phase, *module).Emit();
    if (!unsupported.empty()) {
      return absl::UnimplementedError(
          absl::StrCat("code generation has no lowering for ", unsupported));
    }
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os)) {
    return absl::InternalError(
        absl::StrCat("generated LLVM IR for ", spec.name, " does not verify: ", problems));
  }
  return module;
}

}  // namespace gpuc::codegen
