//===- element_emitter.cc - The value of a kernel member at an index ------===//
#include "codegen/element_emitter.h"

#include "absl/strings/str_cat.h"
#include "codegen/elementwise_lowering.h"
#include "codegen/user_function.h"
#include "ir/type_inference.h"
#include "ir/user_kernel_semantics.h"
#include "ir/wide_value.h"

namespace gpuc::codegen {

using ir::DType;
using ir::Node;
using ir::OpCode;

llvm::AllocaInst* FunctionFrame::EntryAlloca(llvm::Type* type, const char* name) {
  llvm::BasicBlock& entry = function->getEntryBlock();
  llvm::IRBuilder<> b(&entry, entry.getFirstInsertionPt());
  return b.CreateAlloca(type, nullptr, name);
}

void FunctionFrame::ReportDeferredTakeErrors(llvm::IRBuilder<>& b) {
  for (const DeferredTakeError& e : take_errors) {
    llvm::BasicBlock* report = llvm::BasicBlock::Create(b.getContext(), "take_error", function);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(b.getContext(), "take_checked", function);
    b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), e.bad), report, done);
    b.SetInsertPoint(report);
    // The executor turns this into take's error after the kernel.
    b.CreateStore(b.getInt64(e.member + 1), error);
    b.CreateStore(b.CreateLoad(b.getInt64Ty(), e.largest),
                  b.CreateConstGEP1_64(b.getInt64Ty(), error, 1));
    b.CreateBr(done);
    b.SetInsertPoint(done);
  }
}

llvm::Value* ElementEmitter::Emit(const Node* node, const Index& index) {
  CacheKey key{node, std::vector<llvm::Value*>(index.begin(), index.end())};
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(key);
    if (it != scope->end()) return it->second;
  }
  llvm::Value* value = EmitUncached(node, index);
  scopes_.back()[key] = value;
  return value;
}

llvm::Value* ElementEmitter::Extent(int64_t extent) {
  if (extent == 1) return IndexConstant(1);
  return frame_.extents[spec_.symbol_of.at(extent)];
}

llvm::Value* ElementEmitter::Offset(const Node& node, int axis, int64_t value) {
  auto it = spec_.offset_symbol.find({&node, axis});
  if (it == spec_.offset_symbol.end()) return IndexConstant(value);  // zero: literal
  return frame_.extents[it->second];
}

llvm::Value* ElementEmitter::Linearize(const Index& index, const ir::Shape& shape) {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Value* linear = IndexConstant(0);
  // Positions are below 2^56 (ir::kMaxElements), so nothing here wraps.
  for (int d = 0; d < shape.rank(); ++d) {
    linear = b.CreateAdd(b.CreateMul(linear, Extent(shape[d]), "", true, true), index[d], "", true,
                         true);
  }
  return linear;
}

Index ElementEmitter::Delinearize(llvm::Value* linear, const ir::Shape& shape) {
  llvm::IRBuilder<>& b = values_.builder();
  Index index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    if (shape[d] == 1) {
      index[d] = IndexConstant(0);
      continue;
    }
    llvm::Value* extent = Extent(shape[d]);
    index[d] = d == 0 ? linear : b.CreateURem(linear, extent);
    if (d > 0) linear = b.CreateUDiv(linear, extent);
  }
  return index;
}

llvm::Value* ElementEmitter::ElementPointer(const Node* node, llvm::Value* linear) {
  // An output written in place goes through its input's pointer: the same SSA value lets
  // LLVM see that each element is read before it is overwritten, so the loop still
  // vectorizes without a runtime overlap check (which equal pointers would always fail).
  auto alias = spec_.in_place.find(node);
  const ir::Node* storage = alias == spec_.in_place.end() ? node : alias->second;
  return values_.builder().CreateInBoundsGEP(values_.StorageType(node->dtype()),
                                             frame_.buffers[spec_.BufferIndex(storage)], linear);
}

Index ElementEmitter::BroadcastIndex(const Index& index, const ir::Shape& shape,
                                     const ir::Shape& operand_shape) {
  const int shift = shape.rank() - operand_shape.rank();
  Index out(operand_shape.rank());
  for (int i = 0; i < operand_shape.rank(); ++i) {
    out[i] = operand_shape[i] == 1 ? IndexConstant(0) : index[i + shift];
  }
  return out;
}

llvm::Value* ElementEmitter::ConvertAny(llvm::Value* value, DType from, DType to) {
  if (from == to) return value;
  llvm::IRBuilder<>& b = values_.builder();
  const bool from_complex = ir::IsComplex(from), to_complex = ir::IsComplex(to);
  if (!from_complex && !to_complex) return values_.Convert(value, from, to);
  if (to == DType::kBool) return values_.Truthy(value, from);
  if (!to_complex) {  // the real part, as the interpreter's ToDouble
    return values_.Convert(b.CreateExtractValue(value, 0), ir::RealPart(from), to);
  }
  const DType part = ir::RealPart(to);
  llvm::Value* re;
  llvm::Value* im;
  if (from_complex) {
    re = values_.Convert(b.CreateExtractValue(value, 0), ir::RealPart(from), part);
    im = values_.Convert(b.CreateExtractValue(value, 1), ir::RealPart(from), part);
  } else {
    re = values_.Convert(value, from, part);
    im = values_.ConstantOf(part, 0.0);
  }
  llvm::Value* out = llvm::UndefValue::get(values_.RegisterType(to));
  out = b.CreateInsertValue(out, re, 0);
  return b.CreateInsertValue(out, im, 1);
}

llvm::Value* ElementEmitter::Conditional(llvm::Value* condition,
                                         const std::function<llvm::Value*()>& then_value,
                                         const std::function<llvm::Value*()>& else_value) {
  llvm::IRBuilder<>& b = values_.builder();
  llvm::LLVMContext& c = b.getContext();
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(c, "then", frame_.function);
  llvm::BasicBlock* else_block = llvm::BasicBlock::Create(c, "else", frame_.function);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(c, "merge", frame_.function);
  b.CreateCondBr(condition, then_block, else_block);
  auto arm = [&](llvm::BasicBlock* block, const std::function<llvm::Value*()>& value_of) {
    b.SetInsertPoint(block);
    PushScope();
    llvm::Value* v = value_of();
    PopScope();
    llvm::BasicBlock* end = b.GetInsertBlock();  // the arm may have opened blocks of its own
    b.CreateBr(merge);
    return std::make_pair(v, end);
  };
  auto [then_v, then_end] = arm(then_block, then_value);
  auto [else_v, else_end] = arm(else_block, else_value);
  b.SetInsertPoint(merge);
  llvm::PHINode* phi = b.CreatePHI(then_v->getType(), 2);
  phi->addIncoming(then_v, then_end);
  phi->addIncoming(else_v, else_end);
  return phi;
}

namespace {

const std::vector<int64_t>& Ints(const Node& node, const char* name) {
  return *node.attrs().Get<std::vector<int64_t>>(name);
}

}  // namespace

llvm::Value* ElementEmitter::EmitConstant(const Node& node) {
  const ir::WideValue w = ir::ConvertTo(
      node.dtype(), ir::ScalarAttribute(node.attrs()).value_or(ir::WideValue::Signed(0)));
  llvm::Type* type = values_.RegisterType(node.dtype());
  switch (ir::KindOf(node.dtype())) {
    case ir::DTypeKind::kBool:
      return values_.builder().getInt1(w.b);
    case ir::DTypeKind::kSigned:
      return llvm::ConstantInt::get(type, static_cast<uint64_t>(w.i), true);
    case ir::DTypeKind::kUnsigned:
      return llvm::ConstantInt::get(type, w.u);
    case ir::DTypeKind::kFloat:
      return llvm::ConstantFP::get(type, w.f);
    case ir::DTypeKind::kComplex: {
      llvm::Type* part = type->getArrayElementType();
      return llvm::ConstantArray::get(
          llvm::cast<llvm::ArrayType>(type),
          {llvm::ConstantFP::get(part, w.c.real()), llvm::ConstantFP::get(part, w.c.imag())});
    }
  }
  return nullptr;
}

llvm::Value* ElementEmitter::EmitSupportCall(const Node& node, DType loop,
                                             const std::vector<llvm::Value*>& args,
                                             const std::vector<DType>& arg_dtypes) {
  // The support library runs the interpreter's own semantics on one element: exact, but a
  // call per element, so it serves only what has no native lowering (complex math, philox).
  llvm::IRBuilder<>& b = values_.builder();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* ptr = b.getPtrTy();
  const int n = static_cast<int>(args.size());
  llvm::AllocaInst* dtypes = frame_.EntryAlloca(llvm::ArrayType::get(i32, n), "arg_dtypes");
  llvm::AllocaInst* pointers = frame_.EntryAlloca(llvm::ArrayType::get(ptr, n), "arg_pointers");
  for (int i = 0; i < n; ++i) {
    llvm::AllocaInst* slot = frame_.EntryAlloca(values_.StorageType(arg_dtypes[i]), "arg");
    values_.Store(arg_dtypes[i], args[i], slot);
    b.CreateStore(b.getInt32(static_cast<int>(arg_dtypes[i])),
                  b.CreateConstGEP2_32(dtypes->getAllocatedType(), dtypes, 0, i));
    b.CreateStore(slot, b.CreateConstGEP2_32(pointers->getAllocatedType(), pointers, 0, i));
  }
  llvm::AllocaInst* out = frame_.EntryAlloca(values_.StorageType(node.dtype()), "result");
  llvm::FunctionType* type =
      llvm::FunctionType::get(b.getVoidTy(), {i32, i32, i32, i32, ptr, ptr, ptr}, false);
  llvm::FunctionCallee f = values_.module().getOrInsertFunction(kElementwiseHelper, type);
  b.CreateCall(f,
               {b.getInt32(static_cast<int>(node.op())), b.getInt32(static_cast<int>(loop)),
                b.getInt32(static_cast<int>(node.dtype())), b.getInt32(n), dtypes, pointers, out});
  return values_.Load(node.dtype(), out);
}

llvm::Value* ElementEmitter::EmitElementwise(const Node& node, const Index& index) {
  std::vector<llvm::Value*> args;
  std::vector<DType> dtypes;
  std::vector<ir::TensorType> types;
  for (const ir::NodeRef& op : node.operands()) {
    args.push_back(
        Emit(op.get(), BroadcastIndex(index, spec_.ShapeOf(&node), spec_.ShapeOf(op.get()))));
    dtypes.push_back(op->dtype());
    types.push_back(op->type());
  }
  llvm::IRBuilder<>& b = values_.builder();
  const DType out = node.dtype();
  if (node.op() == OpCode::kCast) return ConvertAny(args[0], dtypes[0], out);
  if (node.op() == OpCode::kUserElementwise) return EmitUserCall(node, index, args);
  if (node.op() == OpCode::kWhere) {
    return b.CreateSelect(ConvertAny(args[0], dtypes[0], DType::kBool),
                          ConvertAny(args[1], dtypes[1], out), ConvertAny(args[2], dtypes[2], out));
  }
  absl::StatusOr<DType> loop = ir::ComputeDType(node.op(), types);
  if (!loop.ok()) {
    Unsupported(std::string(loop.status().message()));
    return llvm::UndefValue::get(values_.RegisterType(out));
  }
  const bool any_complex =
      ir::IsComplex(*loop) || ir::IsComplex(out) ||
      std::any_of(dtypes.begin(), dtypes.end(), [](DType d) { return ir::IsComplex(d); });
  // Complex loops have native add, sub, neg, mul, square, eq, ne, conj, real, imag and abs
  // (EmitNativeElementwise returns null for the rest, which then go to the support library).
  const bool part = node.op() == OpCode::kReal || node.op() == OpCode::kImag;
  const bool native_complex = ir::IsComplex(*loop) && (out == *loop || out == DType::kBool ||
                                                       part || node.op() == OpCode::kAbs);
  if (!any_complex || native_complex) {
    std::vector<llvm::Value*> converted;
    for (size_t i = 0; i < args.size(); ++i)
      converted.push_back(ConvertAny(args[i], dtypes[i], *loop));
    if (llvm::Value* v = EmitNativeElementwise(values_, node.op(), *loop, converted)) {
      // The op computed in the loop dtype's register; round f16/bf16 results to the dtype.
      return v->getType() == values_.RegisterType(out) && ir::IsFloat(out) ? values_.Round(v, out)
                                                                           : v;
    }
  }
  return EmitSupportCall(node, *loop, args, dtypes);
}

llvm::Value* ElementEmitter::EmitUserCall(const Node& node, const Index& index,
                                          const std::vector<llvm::Value*>& args) {
  absl::StatusOr<ir::UserElementwise> kernel = ir::ReadUserElementwise(node.attrs());
  if (!kernel.ok()) {
    Unsupported(std::string(kernel.status().message()));
    return llvm::UndefValue::get(values_.RegisterType(node.dtype()));
  }
  llvm::IRBuilder<>& b = values_.builder();
  // The call ABI of user_function.h: i32 for bool and integers up to 32 bits, i64, float
  // (f16 and bf16 included: their registers are float already) and double.
  auto abi_type = [&](DType d) -> llvm::Type* {
    if (ir::IsFloat(d)) return values_.RegisterType(d);
    return ir::DTypeSize(d) == 8 ? b.getInt64Ty() : b.getInt32Ty();
  };
  std::vector<llvm::Type*> params;
  std::vector<llvm::Value*> call_args;
  for (size_t k = 0; k < args.size(); ++k) {
    const DType d = kernel->inputs[k].dtype;
    llvm::Type* t = abi_type(d);
    params.push_back(t);
    if (ir::IsFloat(d) || args[k]->getType() == t) {
      call_args.push_back(args[k]);
    } else if (ir::KindOf(d) == ir::DTypeKind::kSigned) {
      call_args.push_back(b.CreateSExt(args[k], t));
    } else {
      call_args.push_back(b.CreateZExt(args[k], t));
    }
  }
  params.push_back(b.getInt64Ty());
  call_args.push_back(b.CreateSExtOrTrunc(Linearize(index, spec_.ShapeOf(&node)), b.getInt64Ty()));
  const DType out = node.dtype();
  llvm::FunctionType* type = llvm::FunctionType::get(abi_type(out), params, false);
  llvm::FunctionCallee f = values_.module().getOrInsertFunction(
      codegen::UserFunctionSymbol(*kernel, kernel->output), type);
  if (auto* function = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    function->addFnAttr(llvm::Attribute::NoUnwind);
  }
  llvm::Value* result = b.CreateCall(f, call_args);
  if (ir::IsFloat(out)) return values_.Round(result, out);
  if (out == DType::kBool) return b.CreateICmpNE(result, b.getInt32(0));
  return b.CreateTrunc(result, values_.RegisterType(out));
}

llvm::Value* ElementEmitter::EmitReshape(const Node& node, const Index& index) {
  const Node& in = node.operand(0);
  // Adding or removing axes of extent 1 keeps the order of the others: map them one to one
  // instead of dividing.
  std::vector<int> out_axes, in_axes;
  for (int d = 0; d < node.shape().rank(); ++d) {
    if (node.shape()[d] != 1) out_axes.push_back(d);
  }
  for (int d = 0; d < in.shape().rank(); ++d) {
    if (in.shape()[d] != 1) in_axes.push_back(d);
  }
  bool same = out_axes.size() == in_axes.size();
  for (size_t i = 0; same && i < out_axes.size(); ++i) {
    same = node.shape()[out_axes[i]] == in.shape()[in_axes[i]];
  }
  if (!same) return Emit(&in, Delinearize(Linearize(index, node.shape()), in.shape()));
  Index in_index(in.shape().rank(), IndexConstant(0));
  for (size_t i = 0; i < out_axes.size(); ++i) in_index[in_axes[i]] = index[out_axes[i]];
  return Emit(&in, in_index);
}

llvm::Value* ElementEmitter::EmitPad(const Node& node, const Index& index) {
  llvm::IRBuilder<>& b = values_.builder();
  const Node& in = node.operand(0);
  const std::vector<int64_t>& low = Ints(node, "low");
  Index in_index(index.size());
  llvm::Value* inside = b.getTrue();
  for (size_t d = 0; d < index.size(); ++d) {
    in_index[d] = b.CreateSub(index[d], Offset(node, static_cast<int>(d), low[d]));
    // One unsigned compare checks 0 <= i < extent.
    inside = b.CreateAnd(inside, b.CreateICmpULT(in_index[d], Extent(in.shape()[d])));
  }
  return Conditional(
      inside, [&] { return Emit(&in, in_index); }, [&] { return EmitConstant(node); });
}

llvm::Value* ElementEmitter::EmitUpdateSlice(const Node& node, const Index& index) {
  llvm::IRBuilder<>& b = values_.builder();
  const Node& old = node.operand(0);
  const Node& value = node.operand(1);
  const std::vector<int64_t>& start = Ints(node, "start");
  const std::vector<int64_t>& step = Ints(node, "step");
  // Position i of an axis is written when d = (i - start) * sign(step) is a multiple of |step|
  // and d / |step| (the value's index) is below the region's length. A negative d wraps to a
  // huge unsigned number, so one unsigned compare checks both ends.
  Index value_index(index.size());
  llvm::Value* inside = b.getTrue();
  for (size_t k = 0; k < index.size(); ++k) {
    const int64_t stride = step[k] < 0 ? -step[k] : step[k];
    llvm::Value* offset = Offset(node, static_cast<int>(k), start[k]);
    llvm::Value* d = step[k] > 0 ? b.CreateSub(index[k], offset) : b.CreateSub(offset, index[k]);
    if (stride != 1) {
      inside = b.CreateAnd(
          inside, b.CreateICmpEQ(b.CreateURem(d, IndexConstant(stride)), IndexConstant(0)));
      d = b.CreateUDiv(d, IndexConstant(stride));
    }
    value_index[k] = d;
    inside = b.CreateAnd(inside, b.CreateICmpULT(d, Extent(value.shape()[k])));
  }
  return Conditional(
      inside, [&] { return Emit(&value, value_index); }, [&] { return Emit(&old, index); });
}

llvm::Value* ElementEmitter::EmitConcatenate(const Node& node, const Index& index) {
  llvm::IRBuilder<>& b = values_.builder();
  const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
  // Operand k covers positions [start_k, start_k + extent_k) along the axis.
  std::function<llvm::Value*(int, llvm::Value*)> from = [&](int k, llvm::Value* start) {
    const Node& part = node.operand(k);
    auto read = [&, start] {
      Index part_index = index;
      part_index[axis] = b.CreateSub(index[axis], start);
      return Emit(&part, BroadcastIndex(part_index, node.shape(), part.shape()));
    };
    if (k + 1 == node.num_operands()) return read();
    llvm::Value* end = b.CreateAdd(start, Extent(part.shape()[axis]));
    return Conditional(b.CreateICmpULT(index[axis], end), read,
                       [&, end] { return from(k + 1, end); });
  };
  return from(0, IndexConstant(0));
}

llvm::Value* ElementEmitter::EmitTake(const Node& node, const Index& index) {
  llvm::IRBuilder<>& b = values_.builder();
  const Node& data = node.operand(0);
  const Node& indices = node.operand(1);
  const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
  const int count_rank = indices.shape().rank();
  Index which(index.begin() + axis, index.begin() + axis + count_rank);
  llvm::Value* raw = Emit(&indices, which);
  // Bounds are checked in 64 bits (an index may be any int64); a valid position fits the
  // kernel's index type.
  llvm::Value* extent = b.CreateZExt(Extent(data.shape()[axis]), b.getInt64Ty());
  llvm::Value* position;
  llvm::Value* valid;
  if (ir::KindOf(indices.dtype()) == ir::DTypeKind::kUnsigned) {
    position = b.CreateZExt(raw, b.getInt64Ty());
    valid = b.CreateICmpULT(position, extent);
  } else {
    position = b.CreateSExt(raw, b.getInt64Ty());
    valid = b.CreateAnd(b.CreateICmpSGE(position, b.CreateNeg(extent)),
                        b.CreateICmpSLT(position, extent));
    position = b.CreateSelect(b.CreateICmpSLT(position, b.getInt64(0)),
                              b.CreateAdd(position, extent), position);
  }
  const int member = static_cast<int>(std::find(spec_.members.begin(), spec_.members.end(), &node) -
                                      spec_.members.begin());
  llvm::Value* reported = b.CreateSExtOrTrunc(raw, b.getInt64Ty());
  // The element where the index is good.
  auto gather = [&] {
    Index data_index(index.begin(), index.begin() + axis);
    data_index.push_back(b.CreateTrunc(position, IndexType()));
    data_index.append(index.begin() + axis + count_rank, index.end());
    return Emit(&data, data_index);
  };
  if (frame_.defer_take_errors) {
    auto slot =
        std::find_if(frame_.take_errors.begin(), frame_.take_errors.end(),
                     [&](const FunctionFrame::DeferredTakeError& e) { return e.member == member; });
    if (slot == frame_.take_errors.end()) {
      FunctionFrame::DeferredTakeError e{member, frame_.EntryAlloca(b.getInt1Ty(), "take_bad"),
                                         frame_.EntryAlloca(b.getInt64Ty(), "take_largest")};
      // The slots start empty where the function starts (after both: each alloca goes to
      // the top of the entry block, so `bad`, made first, is the lower one).
      llvm::IRBuilder<> entry(e.bad->getNextNode());
      entry.CreateStore(entry.getFalse(), e.bad);
      entry.CreateStore(entry.getInt64(INT64_MIN), e.largest);
      frame_.take_errors.push_back(e);
      slot = frame_.take_errors.end() - 1;
    }
    llvm::Value* invalid = b.CreateNot(valid);
    b.CreateStore(b.CreateOr(b.CreateLoad(b.getInt1Ty(), slot->bad), invalid), slot->bad);
    b.CreateStore(
        b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b.CreateLoad(b.getInt64Ty(), slot->largest),
                                b.CreateSelect(invalid, reported, b.getInt64(INT64_MIN))),
        slot->largest);
    // The element itself: a load where the index is good (masked where the loop
    // vectorizes), 0 elsewhere.
    return Conditional(valid, gather, [&] { return values_.ConstantOf(node.dtype(), 0.0); });
  }
  return Conditional(valid, gather, [&] {
    // The executor turns this into take's error after the kernel.
    b.CreateStore(b.getInt64(member + 1), frame_.error);
    b.CreateStore(reported, b.CreateConstGEP1_64(b.getInt64Ty(), frame_.error, 1));
    return values_.ConstantOf(node.dtype(), 0.0);
  });
}

llvm::Value* ElementEmitter::EmitUncached(const Node* node, const Index& index) {
  llvm::IRBuilder<>& b = values_.builder();
  const bool stored =
      !spec_.member_set.contains(node) || node->info().kind == ir::OpKind::kReduction;
  if (stored)
    return values_.Load(node->dtype(), ElementPointer(node, Linearize(index, spec_.ShapeOf(node))));
  const Node& n = *node;
  switch (n.op()) {
    case OpCode::kBroadcastTo:
      return Emit(&n.operand(0), BroadcastIndex(index, n.shape(), n.operand(0).shape()));
    case OpCode::kReshape:
      return EmitReshape(n, index);
    case OpCode::kTranspose: {
      // Output axis k reads input axis perm[k].
      const std::vector<int64_t>& perm = Ints(n, "perm");
      Index in_index(index.size());
      for (size_t k = 0; k < perm.size(); ++k) in_index[perm[k]] = index[k];
      return Emit(&n.operand(0), in_index);
    }
    case OpCode::kSlice: {
      const std::vector<int64_t>& start = Ints(n, "start");
      const std::vector<int64_t>& step = Ints(n, "step");
      Index in_index(index.size());
      for (size_t k = 0; k < index.size(); ++k) {
        in_index[k] = b.CreateAdd(Offset(n, static_cast<int>(k), start[k]),
                                  b.CreateMul(index[k], IndexConstant(step[k])));
      }
      return Emit(&n.operand(0), in_index);
    }
    case OpCode::kPad:
      return EmitPad(n, index);
    case OpCode::kUpdateSlice:
      return EmitUpdateSlice(n, index);
    case OpCode::kConcatenate:
      return EmitConcatenate(n, index);
    case OpCode::kTake:
      return EmitTake(n, index);
    case OpCode::kIota:
      return ConvertAny(b.CreateZExt(index[*n.attrs().Get<int64_t>("axis")], b.getInt64Ty()),
                        DType::kInt64, n.dtype());
    case OpCode::kConstant:
      return EmitConstant(n);
    default:
      break;
  }
  if (n.info().kind == ir::OpKind::kElementwise) return EmitElementwise(n, index);
  Unsupported(absl::StrCat("'", ir::OpName(n.op()), "' inside a fused kernel"));
  return llvm::UndefValue::get(values_.RegisterType(n.dtype()));
}

}  // namespace gpuc::codegen
