//===- gpu_kernel_emitter.cc - A fused kernel as GPU kernels --------------===//
#include "codegen/gpu_kernel_emitter.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "codegen/emit_loop.h"
#include "codegen/gpu_kernel_builder.h"
#include "codegen/gpu_reduce_emitter.h"
#include "codegen/gpu_row_kernel.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace gpuc::codegen {
namespace {

using ir::Node;

/// Elements per thread step of a store phase: 16 bytes of its narrowest stored element (at
/// most 8, so that byte-sized outputs do not hold 16 values in registers at once).
int VectorWidth(const Phase& phase) {
  int64_t narrowest = 16;
  for (const Node* out : phase.stores) {
    narrowest = std::min<int64_t>(narrowest, ir::DTypeSize(out->dtype()));
  }
  return static_cast<int>(std::clamp<int64_t>(16 / std::max<int64_t>(1, narrowest), 1, 8));
}

/// Vector steps of a store phase whose loads are issued together.
constexpr int kStoreStepsInFlight = 2;

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
    // Two steps per iteration, both loaded before either is computed: twice the bytes in
    // flight per thread, which a memory-bound kernel needs to reach the bandwidth limit.
    EmitUnrolledLoop(
        k, first, steps, stride, kStoreStepsInFlight,
        [&](const std::vector<llvm::Value*>& step_list) {
          std::vector<Index> indices;
          std::vector<llvm::Value*> linears;
          for (llvm::Value* step : step_list) {
            llvm::Value* base = b.CreateMul(step, width, "", true, true);
            llvm::Value* row = b.CreateUDiv(base, row_length);
            llvm::Value* column =
                b.CreateSub(base, b.CreateMul(row, row_length, "", true, true), "", true, true);
            Index row_index = e.Delinearize(row, outer);
            for (int j = 0; j < vector; ++j) {
              Index index = row_index;
              index.push_back(b.CreateAdd(column, e.IndexConstant(j), "", true, true));
              indices.push_back(std::move(index));
              linears.push_back(b.CreateAdd(base, e.IndexConstant(j), "", true, true));
            }
          }
          store_elements(indices, linears);
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
                                  : EmitReducePhase(spec, phase, *module, launch);
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
