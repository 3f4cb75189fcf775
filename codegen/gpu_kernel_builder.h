//===- gpu_kernel_builder.h - Pieces shared by the GPU kernel emitters ----===//
//
// One GPU kernel function under construction (its builder, frame, element emitter and the
// uniform parameter list of codegen/gpu_kernel_emitter.h), the special registers, and the
// loop shapes every GPU kernel uses: stores of a phase's outputs at given elements and
// unrolled strided loops whose bodies load all their inputs before any math.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_GPU_KERNEL_BUILDER_H_
#define GPUC_CODEGEN_GPU_KERNEL_BUILDER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/element_emitter.h"
#include "codegen/gpu_kernel_emitter.h"
#include "codegen/kernel_spec.h"
#include "codegen/value_lowering.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

namespace gpuc::codegen {

inline constexpr int kWarpThreads = 32;
inline constexpr int kSharedAddressSpace = 3;

/// Module flags EmitGpuKernel sets for its options (GpuEmitOptions).
inline constexpr const char* kExactMathFlag = "gpuc-exact-math";
inline constexpr const char* kVectorReductionsFlag = "gpuc-vector-reductions";
bool ModuleFlag(const llvm::Module& module, const char* name);

/// The kernel inputs that `roots` read at their own index in `shape` (through elementwise
/// members of that shape only). Loading these first, for every element of a step, puts the
/// loads side by side where they merge into 16-byte loads and overlap; a lazy load would sit
/// after the previous element's math (often several basic blocks of libdevice).
std::vector<const ir::Node*> SameIndexInputs(const KernelSpec& spec,
                                             const std::vector<const ir::Node*>& roots,
                                             const ir::Shape& shape);

/// Elements per 16-byte load of the narrowest common step of `inputs` (16 bytes of the
/// widest, at most 8); 1 when there are none or one is complex (no vector of pairs).
int VectorLanes(const std::vector<const ir::Node*>& inputs);

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
    values_.set_float_math_in_float(!ModuleFlag(module, kExactMathFlag));
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
  llvm::Value* Count(absl::Span<const int64_t> dims) {
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
/// With `prefetch`, a step of several elements first loads every input read at the stored
/// element's own index; without, the caller has seeded those values into the emitter. With
/// `vector_stores`, the caller promises that a step's linear positions are consecutive and
/// the first a multiple of the step's length: each output is then written with one aligned
/// vector store (the load-store vectorizer cannot prove that alignment from a row start
/// computed at run time).
using StoreElements =
    std::function<void(const std::vector<Index>&, const std::vector<llvm::Value*>&)>;
StoreElements MakeStoreElements(const KernelSpec& spec, const Phase& phase, KernelBuilder& k,
                                bool prefetch = true, bool vector_stores = false);

/// for (p = first; p < stop; p += step) body({p}), `unroll` positions per iteration of the
/// main loop (body({p, p + step, ...})) and the rest one at a time: the body can then load
/// every position's inputs before doing any math, keeping several loads in flight.
void EmitUnrolledLoop(KernelBuilder& k, llvm::Value* first, llvm::Value* stop, llvm::Value* step,
                      int unroll, const std::function<void(const std::vector<llvm::Value*>&)>& body,
                      const char* name);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_GPU_KERNEL_BUILDER_H_
