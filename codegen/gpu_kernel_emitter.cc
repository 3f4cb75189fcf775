//===- gpu_kernel_emitter.cc - A fused kernel as GPU kernels --------------===//
#include "codegen/gpu_kernel_emitter.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "codegen/accumulator.h"
#include "codegen/element_emitter.h"
#include "codegen/emit_loop.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace gpuc::codegen {
namespace {

using ir::Node;

constexpr int kWarpThreads = 32;
constexpr int kSharedAddressSpace = 3;

/// Elements per thread step of a store phase: 16 bytes of its narrowest stored element (at
/// most 8, so that byte-sized outputs do not hold 16 values in registers at once).
int VectorWidth(const Phase& phase) {
  int64_t narrowest = 16;
  for (const Node* out : phase.stores) {
    narrowest = std::min<int64_t>(narrowest, ir::DTypeSize(out->dtype()));
  }
  return static_cast<int>(std::clamp<int64_t>(16 / std::max<int64_t>(1, narrowest), 1, 8));
}

/// The kernel inputs that `phase`'s stores read at the stored element's own index (through
/// elementwise members of the same shape only). Loading these first, for every element of a
/// vector step, puts the loads side by side where they merge into 16-byte loads; a lazy load
/// would sit after the previous element's math (often several basic blocks of libdevice).
std::vector<const Node*> SameIndexInputs(const KernelSpec& spec,
                                         const std::vector<const Node*>& roots,
                                         const ir::Shape& shape) {
  std::vector<const Node*> inputs;
  absl::flat_hash_set<const Node*> seen;
  std::vector<const Node*> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second || !(spec.ShapeOf(n) == shape)) continue;
    if (!spec.member_set.contains(n)) {
      inputs.push_back(n);
      continue;
    }
    if (ir::GetOpInfo(n->op()).kind != ir::OpKind::kElementwise) continue;
    for (const ir::NodeRef& op : n->operands()) stack.push_back(op.get());
  }
  return inputs;
}

/// The module flag EmitGpuKernel sets for its math mode.
constexpr const char* kExactMathFlag = "gpuc-exact-math";
constexpr const char* kVectorReductionsFlag = "gpuc-vector-reductions";
bool ModuleFlag(const llvm::Module& module, const char* name) {
  auto* flag = llvm::mdconst::extract_or_null<llvm::ConstantInt>(module.getModuleFlag(name));
  return flag && flag->getZExtValue() != 0;
}
bool ExactMath(const llvm::Module& module) { return ModuleFlag(module, kExactMathFlag); }

/// One kernel function under construction: its builder, frame and element emitter (values
/// cached by an emitter belong to one function, so each kernel gets its own).
class KernelBuilder {
 public:
  KernelBuilder(const KernelSpec& spec, llvm::Module& module, const std::string& name)
      : spec_(spec),
        module_(module),
        b_(module.getContext()),
        values_(b_),
        emitter_(spec, values_, frame_) {
    values_.set_float_math_in_float(!ExactMath(module));
    llvm::LLVMContext& c = module.getContext();
    std::vector<llvm::Type*> params;
    for (int i = 0; i < spec.num_buffers(); ++i) params.push_back(b_.getPtrTy());
    for (size_t i = 0; i < spec.extents.size(); ++i) params.push_back(b_.getInt64Ty());
    params.push_back(b_.getPtrTy());    // error
    params.push_back(b_.getInt64Ty());  // splits
    params.push_back(b_.getInt64Ty());  // chunk
    params.push_back(b_.getPtrTy());    // partials
    llvm::FunctionType* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    llvm::Function* f =
        llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
    f->setCallingConv(llvm::CallingConv::PTX_Kernel);
    f->setDoesNotThrow();
    frame_.function = f;
    // Launch bounds: the register allocator may then use up to 255 registers per thread.
    llvm::NamedMDNode* annotations = module.getOrInsertNamedMetadata("nvvm.annotations");
    annotations->addOperand(
        llvm::MDNode::get(c, {llvm::ValueAsMetadata::get(f), llvm::MDString::get(c, "maxntidx"),
                              llvm::ValueAsMetadata::get(b_.getInt32(kGpuBlockThreads))}));
    b_.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", f));
    unsigned arg = 0;
    for (int i = 0; i < spec.num_buffers(); ++i, ++arg) {
      f->addParamAttr(arg, llvm::Attribute::getWithAlignment(c, llvm::Align(16)));
      f->getArg(arg)->setName(absl::StrCat("buffer", i));
      frame_.buffers.push_back(f->getArg(arg));
    }
    for (size_t i = 0; i < spec.extents.size(); ++i, ++arg) {
      f->getArg(arg)->setName(absl::StrCat("extent", i));
      frame_.extents.push_back(Narrow(f->getArg(arg)));
    }
    const char* names[] = {"error", "splits", "chunk", "partials"};
    for (unsigned i = 0; i < 4; ++i) f->getArg(arg + i)->setName(names[i]);
    frame_.error = f->getArg(arg++);
    splits_ = Narrow(f->getArg(arg++));
    chunk_ = Narrow(f->getArg(arg++));
    partials_ = f->getArg(arg++);
  }

  void Finish() { b_.CreateRetVoid(); }

  llvm::IRBuilder<>& b() { return b_; }
  ValueLowering& values() { return values_; }
  ElementEmitter& emitter() { return emitter_; }
  FunctionFrame& frame() { return frame_; }
  llvm::Value* splits() const { return splits_; }
  llvm::Value* chunk() const { return chunk_; }
  llvm::Value* partials() const { return partials_; }

  /// A special register (threadIdx.x ...) widened to the index type.
  llvm::Value* Register(llvm::Intrinsic::ID id) {
    return b_.CreateZExt(b_.CreateIntrinsic(id, {}, {}), emitter_.IndexType());
  }
  llvm::Value* ThreadInBlock() { return Register(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x); }
  llvm::Value* BlockThreads() { return Register(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x); }
  llvm::Value* Block() { return Register(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x); }
  llvm::Value* Blocks() { return Register(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x); }
  llvm::Value* Split() { return Register(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y); }
  llvm::Value* GlobalThread() {
    return b_.CreateAdd(b_.CreateMul(Block(), BlockThreads()), ThreadInBlock());
  }
  llvm::Value* GridThreads() { return b_.CreateMul(Blocks(), BlockThreads()); }
  void Barrier() { b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }

  /// The product of `dims`' extents.
  llvm::Value* Count(const std::vector<int64_t>& dims) {
    llvm::Value* n = emitter_.IndexConstant(1);
    for (int64_t d : dims) n = b_.CreateMul(n, emitter_.Extent(d), "", true, true);
    return n;
  }

 private:
  llvm::Value* Narrow(llvm::Value* v) { return b_.CreateTrunc(v, emitter_.IndexType()); }

  const KernelSpec& spec_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  ValueLowering values_;
  FunctionFrame frame_;
  ElementEmitter emitter_;
  llvm::Value* splits_ = nullptr;
  llvm::Value* chunk_ = nullptr;
  llvm::Value* partials_ = nullptr;
};

/// Stores `phase`'s outputs at the given elements (their indices and linear positions).
using StoreElements =
    std::function<void(const std::vector<Index>&, const std::vector<llvm::Value*>&)>;

StoreElements MakeStoreElements(const KernelSpec& spec, const Phase& phase, KernelBuilder& k) {
  // Every value first, then every store (an output written in place must not change what
  // the others read), and for a vector step the values of all its elements first: the loads
  // then sit together where the load-store vectorizer can merge them.
  const std::vector<const Node*> prefetched = SameIndexInputs(spec, phase.stores, phase.shape);
  return [&phase, &k, prefetched](const std::vector<Index>& indices,
                                  const std::vector<llvm::Value*>& linears) {
    ElementEmitter& e = k.emitter();
    e.PushScope();
    if (indices.size() > 1) {
      // At the stored element's own linear position: an address known to be 16-byte aligned.
      for (const Node* in : prefetched) {
        for (size_t j = 0; j < indices.size(); ++j) {
          e.Seed(in, indices[j], k.values().Load(in->dtype(), e.ElementPointer(in, linears[j])));
        }
      }
    }
    std::vector<llvm::Value*> results;
    for (const Index& index : indices) {
      for (const Node* out : phase.stores) results.push_back(e.Emit(out, index));
    }
    size_t next = 0;
    for (llvm::Value* linear : linears) {
      for (const Node* out : phase.stores) {
        k.values().Store(out->dtype(), results[next++], e.ElementPointer(out, linear));
      }
    }
    e.PopScope();
  };
}

std::string EmitStorePhase(const KernelSpec& spec, const Phase& phase, llvm::Module& module,
                           GpuPhaseLaunch& launch) {
  KernelBuilder k(spec, module, phase.function_name);
  llvm::IRBuilder<>& b = k.b();
  ElementEmitter& e = k.emitter();
  const ir::Shape& shape = phase.shape;
  const StoreElements store_elements = MakeStoreElements(spec, phase, k);
  llvm::Value* first = k.GlobalThread();
  llvm::Value* stride = k.GridThreads();
  if (shape.rank() == 0) {
    EmitIf(
        b, b.CreateICmpEQ(first, e.IndexConstant(0)),
        [&] { store_elements({Index{}}, {e.IndexConstant(0)}); }, "scalar");
    k.Finish();
    launch.vector = 1;
    return e.unsupported();
  }
  const int vector = VectorWidth(phase);
  launch.vector = vector;
  llvm::Value* n = k.Count(shape.dims());
  llvm::Value* tail_begin = e.IndexConstant(0);
  if (vector > 1) {
    const int last_axis = shape.rank() - 1;
    llvm::Value* row_length = e.Extent(shape[last_axis]);
    const ir::Shape outer(std::vector<int64_t>(shape.dims().begin(), shape.dims().end() - 1));
    llvm::Value* width = e.IndexConstant(vector);
    // A step's elements share a row when the row length is a multiple of the width.
    llvm::Value* fits = b.CreateICmpEQ(b.CreateURem(row_length, width), e.IndexConstant(0));
    llvm::Value* steps = b.CreateSelect(fits, b.CreateUDiv(n, width), e.IndexConstant(0));
    EmitLoop(
        b, first, steps,
        [&](llvm::Value* step) {
          llvm::Value* base = b.CreateMul(step, width, "", true, true);
          llvm::Value* row = b.CreateUDiv(base, row_length);
          llvm::Value* column =
              b.CreateSub(base, b.CreateMul(row, row_length, "", true, true), "", true, true);
          Index row_index = e.Delinearize(row, outer);
          std::vector<Index> indices;
          std::vector<llvm::Value*> linears;
          for (int j = 0; j < vector; ++j) {
            Index index = row_index;
            index.push_back(b.CreateAdd(column, e.IndexConstant(j), "", true, true));
            indices.push_back(std::move(index));
            linears.push_back(b.CreateAdd(base, e.IndexConstant(j), "", true, true));
          }
          store_elements(indices, linears);
          return b.CreateAdd(step, stride);
        },
        "vector");
    tail_begin = b.CreateMul(steps, width, "", true, true);
  }
  EmitLoop(
      b, b.CreateAdd(tail_begin, first), n,
      [&](llvm::Value* i) {
        store_elements({e.Delinearize(i, shape)}, {i});
        return b.CreateAdd(i, stride);
      },
      "element");
  k.Finish();
  return e.unsupported();
}

/// Allocation bytes of one part of a partial state, padded to 8 so every part's region of
/// the partials buffer stays aligned.
int64_t SlotBytes(llvm::Type* type) {
  const llvm::DataLayout layout(kNvptxDataLayout);
  return (static_cast<int64_t>(layout.getTypeAllocSize(type)) + 7) / 8 * 8;
}

/// for (p = first; p < stop; p += step) body({p}), `unroll` positions per iteration of the
/// main loop (body({p, p + step, ...})) and the rest one at a time: the body can then load
/// every position's inputs before doing any math, keeping several loads in flight.
void EmitUnrolledLoop(KernelBuilder& k, llvm::Value* first, llvm::Value* stop, llvm::Value* step,
                      int unroll, const std::function<void(const std::vector<llvm::Value*>&)>& body,
                      const char* name) {
  llvm::IRBuilder<>& b = k.b();
  ElementEmitter& e = k.emitter();
  llvm::Value* span = b.CreateMul(step, e.IndexConstant(unroll - 1));
  llvm::Value* main_end =
      b.CreateSelect(b.CreateICmpUGT(stop, span), b.CreateSub(stop, span), e.IndexConstant(0));
  llvm::Value* stride = b.CreateMul(step, e.IndexConstant(unroll));
  EmitLoop(
      b, first, main_end,
      [&](llvm::Value* p) {
        std::vector<llvm::Value*> positions = {p};
        for (int u = 1; u < unroll; ++u) positions.push_back(b.CreateAdd(positions.back(), step));
        body(positions);
        return b.CreateAdd(p, stride);
      },
      name);
  // Where the unrolled loop stopped: first + its iteration count * stride.
  llvm::Value* iterations = b.CreateSelect(
      b.CreateICmpULT(first, main_end),
      b.CreateUDiv(
          b.CreateAdd(b.CreateSub(main_end, first), b.CreateSub(stride, e.IndexConstant(1))),
          stride),
      e.IndexConstant(0));
  EmitLoop(
      b, b.CreateAdd(first, b.CreateMul(iterations, stride)), stop,
      [&](llvm::Value* p) {
        body({p});
        return b.CreateAdd(p, step);
      },
      name);
}

class ReducePhaseEmitter {
 public:
  ReducePhaseEmitter(const KernelSpec& spec, const Phase& phase, llvm::Module& module)
      : spec_(spec), phase_(phase), module_(module) {
    const ir::Shape& full = spec.reduced_shape;
    kept_axes_ = spec.KeptAxes();
    reduced_axes_.assign(spec.reduced_axes.begin(), spec.reduced_axes.end());
    for (int d : kept_axes_) kept_dims_.push_back(full[d]);
    for (int d : reduced_axes_) reduced_dims_.push_back(full[d]);
    rows_mapping_ = full.rank() == 0 || std::find(reduced_axes_.begin(), reduced_axes_.end(),
                                                  full.rank() - 1) != reduced_axes_.end();
    // Reduced positions are consecutive addresses when the reduced axes are the trailing ones.
    bool trailing = true;
    for (size_t i = 0; i < reduced_axes_.size(); ++i) {
      trailing = trailing && reduced_axes_[i] == full.rank() -
                                                     static_cast<int>(reduced_axes_.size()) +
                                                     static_cast<int>(i);
    }
    std::vector<const Node*> operands;
    for (const Node* r : phase.reductions) operands.push_back(&r->operand(0));
    prefetched_ = SameIndexInputs(spec, operands, full);
    int64_t widest = 0;
    for (const Node* in : prefetched_) widest = std::max(widest, ir::DTypeSize(in->dtype()));
    if (trailing && rows_mapping_ && !reduced_axes_.empty() && widest > 0 &&
        ModuleFlag(module, kVectorReductionsFlag)) {
      vector_ = static_cast<int>(std::clamp<int64_t>(16 / widest, 1, 8));
    }
  }

  /// Elements per vector load of a block-per-row reduction (1: none).
  int vector() const { return vector_; }

  /// A block's threads add positions [start, stop) of kept row `kept`: with 16-byte loads of
  /// `vector_` consecutive elements when the row length and the chunk allow it (checked at
  /// run time), else element by element.
  void EmitBlockPositions(KernelBuilder& k, std::vector<Accumulator>& accs, const Index& kept,
                          llvm::Value* start, llvm::Value* stop, llvm::Value* count,
                          llvm::Value* chunk) {
    llvm::IRBuilder<>& b = k.b();
    ElementEmitter& e = k.emitter();
    if (vector_ == 1) {
      EmitPositions(k, accs, kept, b.CreateAdd(start, k.ThreadInBlock()), stop, k.BlockThreads());
      return;
    }
    llvm::Value* width = e.IndexConstant(vector_);
    llvm::Value* zero = e.IndexConstant(0);
    llvm::Value* aligned = b.CreateAnd(b.CreateICmpEQ(b.CreateURem(count, width), zero),
                                       b.CreateICmpEQ(b.CreateURem(chunk, width), zero));
    EmitIf(
        b, aligned,
        [&] {
          EmitVectorPositions(k, accs, kept,
                              b.CreateAdd(b.CreateUDiv(start, width), k.ThreadInBlock()),
                              b.CreateUDiv(stop, width), k.BlockThreads());
        },
        "vector");
    EmitIf(
        b, b.CreateNot(aligned),
        [&] {
          EmitPositions(k, accs, kept, b.CreateAdd(start, k.ThreadInBlock()), stop,
                        k.BlockThreads());
        },
        "scalar");
  }

  /// for (q = first; q < stop; q += step) adds positions [q * vector_, (q + 1) * vector_),
  /// each input loaded with one 16-byte load; two steps per iteration.
  void EmitVectorPositions(KernelBuilder& k, std::vector<Accumulator>& accs, const Index& kept,
                           llvm::Value* first, llvm::Value* stop, llvm::Value* step) {
    llvm::IRBuilder<>& b = k.b();
    ElementEmitter& e = k.emitter();
    std::vector<const Node*> operands;
    for (const Node* r : phase_.reductions) operands.push_back(&r->operand(0));
    auto accumulate = [&](const std::vector<llvm::Value*>& steps) {
      std::vector<llvm::Value*> positions;
      std::vector<Index> indices;
      for (llvm::Value* q : steps) {
        llvm::Value* base = b.CreateMul(q, e.IndexConstant(vector_), "", true, true);
        for (int j = 0; j < vector_; ++j) {
          positions.push_back(j == 0 ? base
                                     : b.CreateAdd(base, e.IndexConstant(j), "", true, true));
          indices.push_back(FullIndex(k, kept, positions.back()));
        }
      }
      e.PushScope();
      for (const Node* in : prefetched_) {
        llvm::Type* lane = k.values().StorageType(in->dtype());
        auto* vector_type = llvm::FixedVectorType::get(lane, vector_);
        for (size_t q = 0; q < steps.size(); ++q) {
          const Index& first_index = indices[q * vector_];
          llvm::Value* pointer = e.ElementPointer(in, e.Linearize(first_index, in->shape()));
          llvm::Value* loaded = b.CreateAlignedLoad(vector_type, pointer, llvm::Align(16));
          for (int j = 0; j < vector_; ++j) {
            e.Seed(in, indices[q * vector_ + j],
                   k.values().FromStorage(in->dtype(), b.CreateExtractElement(loaded, j)));
          }
        }
      }
      std::vector<llvm::Value*> values;
      for (const Index& index : indices) {
        for (const Node* operand : operands) values.push_back(e.Emit(operand, index));
      }
      size_t next = 0;
      for (llvm::Value* p : positions) {
        for (Accumulator& acc : accs) acc.AddCombinable(values[next++], p);
      }
      e.PopScope();
    };
    EmitUnrolledLoop(k, first, stop, step, 2, accumulate, "vector_position");
  }

  /// for (p = first; p < stop; p += step) adds the elements at reduced position p of kept
  /// row `kept` to `accs`, kUnroll positions per iteration whose inputs are all loaded before
  /// any math: a thread keeps several loads in flight (a reduction is a loop-carried chain).
  void EmitPositions(KernelBuilder& k, std::vector<Accumulator>& accs, const Index& kept,
                     llvm::Value* first, llvm::Value* stop, llvm::Value* step) {
    constexpr int kUnroll = 4;
    ElementEmitter& e = k.emitter();
    std::vector<const Node*> operands;
    for (const Node* r : phase_.reductions) operands.push_back(&r->operand(0));
    const std::vector<const Node*> prefetched =
        SameIndexInputs(spec_, operands, spec_.reduced_shape);
    auto accumulate = [&](const std::vector<llvm::Value*>& positions) {
      std::vector<Index> indices;
      for (llvm::Value* p : positions) indices.push_back(FullIndex(k, kept, p));
      e.PushScope();
      for (const Node* in : prefetched) {
        for (const Index& index : indices) e.Emit(in, index);
      }
      std::vector<llvm::Value*> values;
      for (const Index& index : indices) {
        for (const Node* operand : operands) values.push_back(e.Emit(operand, index));
      }
      size_t next = 0;
      for (llvm::Value* p : positions) {
        for (Accumulator& acc : accs) acc.AddCombinable(values[next++], p);
      }
      e.PopScope();
    };
    EmitUnrolledLoop(k, first, stop, step, kUnroll, accumulate, "position");
  }

  /// Row `row`'s reductions by the whole block, stored by thread 0 and visible to every
  /// thread of the block afterwards (the row-local kernel's reduce step). "" or what has no
  /// lowering.
  std::string EmitRowInto(KernelBuilder& k, llvm::Value* row) {
    ElementEmitter& e = k.emitter();
    std::vector<Accumulator> accs = Accumulators(k);
    if (accs.empty()) return e.unsupported();
    llvm::Value* count = k.Count(reduced_dims_);
    for (Accumulator& acc : accs) acc.StartCombinable();
    Index kept = e.Delinearize(row, ir::Shape(kept_dims_));
    EmitBlockPositions(k, accs, kept, e.IndexConstant(0), count, count, count);
    BlockMerge(k, accs, [&] {
      for (size_t i = 0; i < accs.size(); ++i) {
        const Node* r = phase_.reductions[i];
        k.values().Store(r->dtype(), accs[i].Finish(count), e.ElementPointer(r, row));
      }
    });
    return e.unsupported();
  }

  std::string Emit(GpuPhaseLaunch& launch) {
    launch.kind =
        rows_mapping_ ? GpuPhaseLaunch::Kind::kReduceRows : GpuPhaseLaunch::Kind::kReduceColumns;
    launch.kernel = phase_.function_name;
    launch.combine_kernel = phase_.function_name + "_combine";
    std::string why = EmitPartialKernel(launch);
    if (!why.empty()) return why;
    return EmitCombineKernel();
  }

 private:
  /// The kernel's accumulators, prepared; empty when one has no lowering.
  std::vector<Accumulator> Accumulators(KernelBuilder& k) {
    std::vector<Accumulator> accumulators;
    for (const Node* r : phase_.reductions) {
      accumulators.emplace_back(*r, k.emitter(), k.values(), k.frame());
    }
    for (Accumulator& acc : accumulators) {
      if (!acc.Prepare(/*combinable=*/true)) return {};
    }
    return accumulators;
  }

  /// The full index of reduced position `position` in kept row `row`.
  Index FullIndex(KernelBuilder& k, const Index& kept, llvm::Value* position) {
    Index full(spec_.reduced_shape.rank());
    for (size_t i = 0; i < kept_axes_.size(); ++i) full[kept_axes_[i]] = kept[i];
    Index reduced = k.emitter().Delinearize(position, ir::Shape(reduced_dims_));
    for (size_t i = 0; i < reduced_axes_.size(); ++i) full[reduced_axes_[i]] = reduced[i];
    return full;
  }

  /// The address of part `part` of accumulator `which`'s state for (split, row).
  llvm::Value* PartialSlot(KernelBuilder& k, const std::vector<Accumulator>& accumulators,
                           size_t which, size_t part, llvm::Value* split, llvm::Value* row,
                           llvm::Value* rows) {
    llvm::IRBuilder<>& b = k.b();
    int64_t before = 0;
    for (size_t i = 0; i <= which; ++i) {
      std::vector<llvm::Type*> types = accumulators[i].StateTypes();
      for (size_t p = 0; p < types.size() && !(i == which && p == part); ++p) {
        before += SlotBytes(types[p]);
      }
    }
    const int64_t slot = SlotBytes(accumulators[which].StateTypes()[part]);
    llvm::Type* i64 = b.getInt64Ty();
    llvm::Value* cells = b.CreateZExt(b.CreateMul(k.splits(), rows), i64);
    llvm::Value* cell = b.CreateZExt(b.CreateAdd(b.CreateMul(split, rows), row), i64);
    llvm::Value* offset =
        b.CreateAdd(b.CreateMul(cells, b.getInt64(before)), b.CreateMul(cell, b.getInt64(slot)));
    return b.CreateInBoundsGEP(b.getInt8Ty(), k.partials(), offset);
  }

  /// With one split, the row's results; otherwise this split's partial states.
  void StoreRow(KernelBuilder& k, std::vector<Accumulator>& accumulators,
                const std::vector<Accumulator::State>& states, llvm::Value* split, llvm::Value* row,
                llvm::Value* rows, llvm::Value* count) {
    llvm::IRBuilder<>& b = k.b();
    llvm::Value* single = b.CreateICmpEQ(k.splits(), k.emitter().IndexConstant(1));
    EmitIf(
        b, single,
        [&] {
          for (size_t i = 0; i < accumulators.size(); ++i) {
            accumulators[i].Store(states[i]);
            const Node* r = phase_.reductions[i];
            k.values().Store(r->dtype(), accumulators[i].Finish(count),
                             k.emitter().ElementPointer(r, row));
          }
        },
        "result");
    EmitIf(
        b, b.CreateNot(single),
        [&] {
          for (size_t i = 0; i < accumulators.size(); ++i) {
            b.CreateStore(states[i].value, PartialSlot(k, accumulators, i, 0, split, row, rows));
            if (states[i].index) {
              b.CreateStore(states[i].index, PartialSlot(k, accumulators, i, 1, split, row, rows));
            }
          }
        },
        "partial");
  }

  /// `value` from lane + delta of the warp (lanes past the end read their own).
  llvm::Value* ShuffleDown(llvm::IRBuilder<>& b, llvm::Value* value, int delta) {
    llvm::Type* type = value->getType();
    if (type->isAggregateType()) {  // complex values: [2 x float/double]
      const unsigned parts = type->isStructTy()
                                 ? type->getStructNumElements()
                                 : static_cast<unsigned>(type->getArrayNumElements());
      llvm::Value* result = llvm::PoisonValue::get(type);
      for (unsigned i = 0; i < parts; ++i) {
        result =
            b.CreateInsertValue(result, ShuffleDown(b, b.CreateExtractValue(value, i), delta), i);
      }
      return result;
    }
    const unsigned bits = type->getPrimitiveSizeInBits();
    llvm::Value* as_int = type->isIntegerTy() ? value : b.CreateBitCast(value, b.getIntNTy(bits));
    auto shuffle32 = [&](llvm::Value* word) {
      return b.CreateIntrinsic(
          llvm::Intrinsic::nvvm_shfl_sync_down_i32, {},
          {b.getInt32(0xffffffffu), word, b.getInt32(delta), b.getInt32(kWarpThreads - 1)});
    };
    llvm::Value* shuffled;
    if (bits <= 32) {
      shuffled = b.CreateTrunc(shuffle32(b.CreateZExt(as_int, b.getInt32Ty())), as_int->getType());
    } else {
      llvm::Value* low = shuffle32(b.CreateTrunc(as_int, b.getInt32Ty()));
      llvm::Value* high = shuffle32(b.CreateTrunc(b.CreateLShr(as_int, 32), b.getInt32Ty()));
      shuffled = b.CreateOr(b.CreateZExt(low, b.getInt64Ty()),
                            b.CreateShl(b.CreateZExt(high, b.getInt64Ty()), 32));
    }
    return type->isIntegerTy() ? shuffled : b.CreateBitCast(shuffled, type);
  }

  /// Merges the states of a warp's lanes into lane 0 (a fixed tree: deterministic).
  std::vector<Accumulator::State> WarpMerge(KernelBuilder& k, std::vector<Accumulator>& accs,
                                            std::vector<Accumulator::State> states) {
    llvm::IRBuilder<>& b = k.b();
    for (int delta = kWarpThreads / 2; delta > 0; delta /= 2) {
      for (size_t i = 0; i < accs.size(); ++i) {
        Accumulator::State other{ShuffleDown(b, states[i].value, delta), nullptr};
        if (states[i].index) other.index = ShuffleDown(b, states[i].index, delta);
        states[i] = accs[i].Combine(states[i], other);
      }
    }
    return states;
  }

  /// Merges every thread's state into thread 0's accumulators: warps, then their leaders
  /// through shared memory.
  void BlockMerge(KernelBuilder& k, std::vector<Accumulator>& accs,
                  const std::function<void()>& in_thread_zero) {
    llvm::IRBuilder<>& b = k.b();
    ElementEmitter& e = k.emitter();
    std::vector<Accumulator::State> states;
    for (Accumulator& acc : accs) states.push_back(acc.Load());
    states = WarpMerge(k, accs, states);
    llvm::Value* thread = k.ThreadInBlock();
    llvm::Value* lane = b.CreateAnd(thread, e.IndexConstant(kWarpThreads - 1));
    llvm::Value* warp = b.CreateLShr(thread, e.IndexConstant(5));
    constexpr int kWarps = kGpuBlockThreads / kWarpThreads;
    std::vector<std::vector<llvm::GlobalVariable*>> shared(accs.size());
    for (size_t i = 0; i < accs.size(); ++i) {
      for (llvm::Type* t : accs[i].StateTypes()) {
        auto* array = llvm::ArrayType::get(t, kWarps);
        shared[i].push_back(new llvm::GlobalVariable(
            module_, array, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(array),
            "warp_states", nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace));
      }
    }
    auto slot = [&](size_t i, size_t part, llvm::Value* w) {
      llvm::Type* array = shared[i][part]->getValueType();
      return b.CreateInBoundsGEP(array, shared[i][part], {e.IndexConstant(0), w});
    };
    EmitIf(
        b, b.CreateICmpEQ(lane, e.IndexConstant(0)),
        [&] {
          for (size_t i = 0; i < accs.size(); ++i) {
            b.CreateStore(states[i].value, slot(i, 0, warp));
            if (states[i].index) b.CreateStore(states[i].index, slot(i, 1, warp));
          }
        },
        "leader");
    k.Barrier();
    EmitIf(
        b, b.CreateICmpEQ(warp, e.IndexConstant(0)),
        [&] {
          llvm::Value* warps =
              b.CreateUDiv(b.CreateAdd(k.BlockThreads(), e.IndexConstant(kWarpThreads - 1)),
                           e.IndexConstant(kWarpThreads));
          llvm::Value* present = b.CreateICmpULT(lane, warps);
          llvm::Value* safe_lane = b.CreateSelect(present, lane, e.IndexConstant(0));
          std::vector<Accumulator::State> leaders;
          for (size_t i = 0; i < accs.size(); ++i) {
            std::vector<llvm::Type*> types = accs[i].StateTypes();
            Accumulator::State identity = accs[i].Identity();
            Accumulator::State s{
                b.CreateSelect(present, b.CreateLoad(types[0], slot(i, 0, safe_lane)),
                               identity.value),
                nullptr};
            if (types.size() > 1) {
              s.index = b.CreateSelect(present, b.CreateLoad(types[1], slot(i, 1, safe_lane)),
                                       identity.index);
            }
            leaders.push_back(s);
          }
          leaders = WarpMerge(k, accs, leaders);
          for (size_t i = 0; i < accs.size(); ++i) accs[i].Store(leaders[i]);
          EmitIf(b, b.CreateICmpEQ(lane, e.IndexConstant(0)), in_thread_zero, "first");
        },
        "warp0");
    // The next row reuses the shared slots.
    k.Barrier();
  }

  std::string EmitPartialKernel(GpuPhaseLaunch& launch) {
    KernelBuilder k(spec_, module_, phase_.function_name);
    llvm::IRBuilder<>& b = k.b();
    ElementEmitter& e = k.emitter();
    std::vector<Accumulator> accs = Accumulators(k);
    if (accs.empty()) return e.unsupported();
    launch.state_bytes = 0;
    for (Accumulator& acc : accs) {
      for (llvm::Type* t : acc.StateTypes()) launch.state_bytes += SlotBytes(t);
    }
    llvm::Value* rows = k.Count(kept_dims_);
    llvm::Value* count = k.Count(reduced_dims_);
    llvm::Value* split = k.Split();
    llvm::Value* start = b.CreateMul(split, k.chunk());
    llvm::Value* stop =
        b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateAdd(start, k.chunk()), count);
    const ir::Shape kept_shape(kept_dims_);
    if (rows_mapping_) {
      EmitLoop(
          b, k.Block(), rows,
          [&](llvm::Value* row) {
            for (Accumulator& acc : accs) acc.StartCombinable();
            Index kept = e.Delinearize(row, kept_shape);
            EmitBlockPositions(k, accs, kept, start, stop, count, k.chunk());
            BlockMerge(k, accs, [&] {
              std::vector<Accumulator::State> states;
              for (Accumulator& acc : accs) states.push_back(acc.Load());
              StoreRow(k, accs, states, split, row, rows, count);
            });
            return b.CreateAdd(row, k.Blocks());
          },
          "row");
    } else {
      EmitLoop(
          b, k.GlobalThread(), rows,
          [&](llvm::Value* row) {
            for (Accumulator& acc : accs) acc.StartCombinable();
            Index kept = e.Delinearize(row, kept_shape);
            EmitPositions(k, accs, kept, start, stop, e.IndexConstant(1));
            std::vector<Accumulator::State> states;
            for (Accumulator& acc : accs) states.push_back(acc.Load());
            StoreRow(k, accs, states, split, row, rows, count);
            return b.CreateAdd(row, k.GridThreads());
          },
          "row");
    }
    k.Finish();
    return e.unsupported();
  }

  std::string EmitCombineKernel() {
    KernelBuilder k(spec_, module_, phase_.function_name + "_combine");
    llvm::IRBuilder<>& b = k.b();
    ElementEmitter& e = k.emitter();
    std::vector<Accumulator> accs = Accumulators(k);
    if (accs.empty()) return e.unsupported();
    llvm::Value* rows = k.Count(kept_dims_);
    llvm::Value* count = k.Count(reduced_dims_);
    EmitLoop(
        b, k.GlobalThread(), rows,
        [&](llvm::Value* row) {
          for (Accumulator& acc : accs) acc.StartCombinable();
          EmitLoop(
              b, e.IndexConstant(0), k.splits(),
              [&](llvm::Value* split) {
                for (size_t i = 0; i < accs.size(); ++i) {
                  std::vector<llvm::Type*> types = accs[i].StateTypes();
                  Accumulator::State part{
                      b.CreateLoad(types[0], PartialSlot(k, accs, i, 0, split, row, rows)),
                      nullptr};
                  if (types.size() > 1) {
                    part.index =
                        b.CreateLoad(types[1], PartialSlot(k, accs, i, 1, split, row, rows));
                  }
                  accs[i].Store(accs[i].Combine(accs[i].Load(), part));
                }
                return nullptr;
              },
              "split");
          for (size_t i = 0; i < accs.size(); ++i) {
            const Node* r = phase_.reductions[i];
            k.values().Store(r->dtype(), accs[i].Finish(count), e.ElementPointer(r, row));
          }
          return b.CreateAdd(row, k.GridThreads());
        },
        "row");
    k.Finish();
    return e.unsupported();
  }

  const KernelSpec& spec_;
  const Phase& phase_;
  llvm::Module& module_;
  std::vector<int> kept_axes_, reduced_axes_;
  std::vector<int64_t> kept_dims_, reduced_dims_;
  bool rows_mapping_ = true;
  std::vector<const Node*> prefetched_;  // inputs read at the reduced element's own index
  int vector_ = 1;
};

/// A row-local spec (every phase works on the rows of its own reductions) as one kernel: a
/// block per row runs each phase for its row in turn, so the later phases read the row again
/// from L1/L2 instead of DRAM (softmax and layernorm read their input once from memory).
std::string EmitRowLocalKernel(const KernelSpec& spec, llvm::Module& module,
                               const std::string& name) {
  KernelBuilder k(spec, module, name);
  llvm::IRBuilder<>& b = k.b();
  ElementEmitter& e = k.emitter();
  std::vector<int64_t> kept_dims, reduced_dims;
  for (int d : spec.KeptAxes()) kept_dims.push_back(spec.reduced_shape[d]);
  for (int64_t d : spec.reduced_axes)
    reduced_dims.push_back(spec.reduced_shape[static_cast<int>(d)]);
  std::vector<StoreElements> stores(spec.phases.size());
  for (size_t i = 0; i < spec.phases.size(); ++i) {
    if (spec.phases[i].kind == Phase::Kind::kStore) {
      stores[i] = MakeStoreElements(spec, spec.phases[i], k);
    }
  }
  std::string why;
  EmitLoop(
      b, k.Block(), k.Count(kept_dims),
      [&](llvm::Value* row) {
        for (size_t i = 0; i < spec.phases.size() && why.empty(); ++i) {
          const Phase& phase = spec.phases[i];
          if (phase.kind == Phase::Kind::kReduce) {
            why = ReducePhaseEmitter(spec, phase, module).EmitRowInto(k, row);
            continue;
          }
          // A store of the reduced shape covers the row's elements, one of the kept shape
          // the row's single element.
          const bool whole_row = phase.shape == spec.reduced_shape;
          llvm::Value* length = whole_row ? k.Count(reduced_dims) : e.IndexConstant(1);
          llvm::Value* row_start = b.CreateMul(row, length, "", true, true);
          // The row's elements: the kept index and a reduced position (no division by the
          // row length), four per thread step.
          Index kept = e.Delinearize(row, ir::Shape(kept_dims));
          EmitUnrolledLoop(
              k, k.ThreadInBlock(), length, k.BlockThreads(), whole_row ? 4 : 1,
              [&](const std::vector<llvm::Value*>& positions) {
                std::vector<Index> indices;
                std::vector<llvm::Value*> linears;
                for (llvm::Value* j : positions) {
                  llvm::Value* linear = b.CreateAdd(row_start, j, "", true, true);
                  linears.push_back(linear);
                  if (!whole_row) {
                    indices.push_back(e.Delinearize(linear, phase.shape));
                    continue;
                  }
                  Index full(spec.reduced_shape.rank());
                  const std::vector<int> kept_axes = spec.KeptAxes();
                  for (size_t a = 0; a < kept_axes.size(); ++a) full[kept_axes[a]] = kept[a];
                  Index reduced = e.Delinearize(j, ir::Shape(reduced_dims));
                  for (size_t a = 0; a < spec.reduced_axes.size(); ++a) {
                    full[static_cast<int>(spec.reduced_axes[a])] = reduced[a];
                  }
                  indices.push_back(std::move(full));
                }
                stores[i](indices, linears);
              },
              "element");
        }
        return b.CreateAdd(row, k.Blocks());
      },
      "row");
  k.Finish();
  return why.empty() ? e.unsupported() : why;
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitGpuKernel(const KernelSpec& spec,
                                                            llvm::LLVMContext& context,
                                                            GpuKernelLayout* layout,
                                                            const GpuEmitOptions& options) {
  auto module = std::make_unique<llvm::Module>(spec.name, context);
  module->addModuleFlag(llvm::Module::Warning, kExactMathFlag, options.exact_math ? 1 : 0);
  module->addModuleFlag(llvm::Module::Warning, kVectorReductionsFlag,
                        options.vector_reductions ? 1 : 0);
  module->setDataLayout(kNvptxDataLayout);
  module->setTargetTriple("nvptx64-nvidia-cuda");
  GpuKernelLayout result;
  for (const Node* m : spec.members) {
    if (m->op() == ir::OpCode::kTake) result.reports_errors = true;
  }
  for (const Phase& phase : spec.phases) {
    GpuPhaseLaunch launch;
    launch.kernel = phase.function_name;
    std::string unsupported = phase.kind == Phase::Kind::kStore
                                  ? EmitStorePhase(spec, phase, *module, launch)
                                  : ReducePhaseEmitter(spec, phase, *module).Emit(launch);
    if (!unsupported.empty()) {
      return absl::UnimplementedError(
          absl::StrCat("GPU code generation has no lowering for ", unsupported));
    }
    result.phases.push_back(std::move(launch));
  }
  if (spec.row_local && spec.phases.size() > 1) {
    result.row_local_kernel = spec.name + "_rows";
    std::string unsupported = EmitRowLocalKernel(spec, *module, result.row_local_kernel);
    if (!unsupported.empty()) {
      return absl::UnimplementedError(
          absl::StrCat("GPU code generation has no lowering for ", unsupported));
    }
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os)) {
    return absl::InternalError(
        absl::StrCat("generated GPU LLVM IR for ", spec.name, " does not verify: ", problems));
  }
  if (layout) *layout = std::move(result);
  return module;
}

}  // namespace gpuc::codegen
