//===- gpu_kernel_builder.cc - Pieces shared by the GPU kernel emitters ---===//
#include "codegen/gpu_kernel_builder.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "codegen/emit_loop.h"

namespace gpuc::codegen {

using ir::Node;

bool ModuleFlag(const llvm::Module& module, const char* name) {
  auto* flag = llvm::mdconst::extract_or_null<llvm::ConstantInt>(module.getModuleFlag(name));
  return flag && flag->getZExtValue() != 0;
}

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

int VectorLanes(const std::vector<const Node*>& inputs) {
  int64_t widest = 0;
  for (const Node* in : inputs) {
    if (ir::IsComplex(in->dtype())) return 1;
    widest = std::max(widest, ir::DTypeSize(in->dtype()));
  }
  if (widest == 0) return 1;
  return static_cast<int>(std::clamp<int64_t>(16 / widest, 1, 8));
}

StoreElements MakeStoreElements(const KernelSpec& spec, const Phase& phase, KernelBuilder& k,
                                bool prefetch, bool vector_stores) {
  // Every value first, then every store (an output written in place must not change what
  // the others read), and for a vector step the values of all its elements first: the loads
  // then sit together where the load-store vectorizer can merge them.
  std::vector<const Node*> prefetched;
  if (prefetch) prefetched = SameIndexInputs(spec, phase.stores, phase.shape);
  return [&phase, &k, prefetched, vector_stores](const std::vector<Index>& indices,
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
    // Output by output: an output's stores of a step then sit side by side, where the
    // load-store vectorizer merges them (it cannot move a store past one to another output,
    // which might alias as far as it knows).
    const size_t outputs = phase.stores.size();
    for (size_t o = 0; o < outputs; ++o) {
      const Node* out = phase.stores[o];
      const size_t n = linears.size();
      if (vector_stores && n > 1 && !ir::IsComplex(out->dtype())) {
        llvm::IRBuilder<>& b = k.b();
        llvm::Type* lane = k.values().StorageType(out->dtype());
        llvm::Value* vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(lane, n));
        for (size_t j = 0; j < n; ++j) {
          vector = b.CreateInsertElement(
              vector, k.values().ToStorage(out->dtype(), results[j * outputs + o]), j);
        }
        const uint64_t bytes = static_cast<uint64_t>(ir::DTypeSize(out->dtype())) * n;
        b.CreateAlignedStore(vector, e.ElementPointer(out, linears[0]),
                             llvm::Align(std::min<uint64_t>(bytes, 16)));
        continue;
      }
      for (size_t j = 0; j < n; ++j) {
        k.values().Store(out->dtype(), results[j * outputs + o], e.ElementPointer(out, linears[j]));
      }
    }
    e.PopScope();
  };
}

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

}  // namespace gpuc::codegen
