//===- gpu_row_kernel.cc - A row-local spec as one kernel, a block per row -===//
#include "codegen/gpu_row_kernel.h"

#include <algorithm>
#include <vector>

#include "codegen/emit_loop.h"
#include "codegen/gpu_kernel_builder.h"
#include "codegen/gpu_reduce_emitter.h"

namespace gpuc::codegen {
namespace {

using ir::Node;

/// At most this many cached elements per thread, however narrow (the emitted code grows
/// with it).
constexpr int64_t kMaxCachedElements = 32;

/// One thread's step of a cached row: `width` consecutive elements of the row.
struct CachedStep {
  llvm::Value* inside = nullptr;        // the step lies inside the row
  std::vector<Index> indices;           // each element's full index
  std::vector<llvm::Value*> positions;  // each element's position in the row
  std::vector<llvm::Value*> linears;    // each element's linear position in the reduced shape
  std::vector<llvm::Value*> values;     // cached input c's element j at [c * width + j]
};

class RowKernelEmitter {
 public:
  RowKernelEmitter(const KernelSpec& spec, llvm::Module& module, const std::string& name)
      : spec_(spec), module_(module), k_(spec, module, name) {
    for (int d : spec.KeptAxes()) kept_dims_.push_back(spec.reduced_shape[d]);
    for (int64_t d : spec.reduced_axes) {
      reduced_dims_.push_back(spec.reduced_shape[static_cast<int>(d)]);
    }
    std::vector<const Node*> roots;
    for (const Phase& phase : spec.phases) {
      if (phase.kind == Phase::Kind::kReduce) {
        for (const Node* r : phase.reductions) roots.push_back(&r->operand(0));
      } else if (WholeRow(phase)) {
        roots.insert(roots.end(), phase.stores.begin(), phase.stores.end());
      }
    }
    cached_ = SameIndexInputs(spec, roots, spec.reduced_shape);
    int64_t bytes = 0;
    for (const Node* in : cached_) bytes += ir::DTypeSize(in->dtype());
    if (bytes > 0) per_thread_ = std::min(kMaxCachedElements, kCachedBytesPerThread / bytes);
    vector_ = VectorLanes(cached_);
    for (const Phase& phase : spec.phases) {
      const bool store = phase.kind == Phase::Kind::kStore;
      stores_.push_back(store ? MakeStoreElements(spec, phase, k_) : StoreElements());
      seeded_stores_.push_back(store ? MakeStoreElements(spec, phase, k_, /*prefetch=*/false,
                                                         /*vector_stores=*/true)
                                     : StoreElements());
    }
  }

  std::string Emit() {
    llvm::IRBuilder<>& b = k_.b();
    ElementEmitter& e = k_.emitter();
    llvm::Value* length = k_.Count(reduced_dims_);
    llvm::Value* zero = e.IndexConstant(0);
    // Whether a row fits the registers with steps of `width` elements (row starts aligned).
    auto fits = [&](int width) -> llvm::Value* {
      const int64_t steps = per_thread_ / width;
      if (steps == 0) return b.getFalse();
      llvm::Value* room = b.CreateMul(k_.BlockThreads(), e.IndexConstant(steps * width));
      llvm::Value* ok = b.CreateAnd(b.CreateICmpUGT(length, zero), b.CreateICmpULE(length, room));
      if (width > 1) {
        ok = b.CreateAnd(ok, b.CreateICmpEQ(b.CreateURem(length, e.IndexConstant(width)), zero));
      }
      return ok;
    };
    // One cached path only: a kernel's registers are those of its largest path.
    llvm::Value* cached = fits(vector_);
    std::string why;
    EmitIf(
        b, cached, [&] { EmitRows(why, vector_); }, "cached");
    EmitIf(
        b, b.CreateNot(cached), [&] { EmitRows(why, 0); }, "uncached");
    k_.Finish();
    return why.empty() ? e.unsupported() : why;
  }

 private:
  bool WholeRow(const Phase& phase) const { return phase.shape == spec_.reduced_shape; }

  /// The grid-stride loop over rows; `width` 0 reads the row from memory in every phase,
  /// else the thread's share of it is cached in steps of `width` elements.
  void EmitRows(std::string& why, int width) {
    llvm::IRBuilder<>& b = k_.b();
    EmitLoop(
        b, k_.Block(), k_.Count(kept_dims_),
        [&](llvm::Value* row) {
          k_.emitter().PushScope();
          std::vector<CachedStep> steps;
          if (width > 0) steps = LoadRow(row, width);
          for (size_t i = 0; i < spec_.phases.size() && why.empty(); ++i) {
            why = width > 0 ? EmitCachedPhase(i, row, steps) : EmitPhase(i, row);
          }
          k_.emitter().PopScope();
          return b.CreateAdd(row, k_.Blocks());
        },
        width > 0 ? "cached_row" : "row");
  }

  Index FullIndex(const Index& kept, llvm::Value* position) {
    Index full(spec_.reduced_shape.rank());
    const std::vector<int> kept_axes = spec_.KeptAxes();
    for (size_t a = 0; a < kept_axes.size(); ++a) full[kept_axes[a]] = kept[a];
    Index reduced = k_.emitter().Delinearize(position, ir::Shape(reduced_dims_));
    for (size_t a = 0; a < spec_.reduced_axes.size(); ++a) {
      full[static_cast<int>(spec_.reduced_axes[a])] = reduced[a];
    }
    return full;
  }

  /// The thread's steps of row `row`, each input loaded once (steps past the row's end load
  /// nothing): step s covers elements [(thread + s * threads) * width, ... + width).
  std::vector<CachedStep> LoadRow(llvm::Value* row, int width) {
    llvm::IRBuilder<>& b = k_.b();
    ElementEmitter& e = k_.emitter();
    llvm::Value* length = k_.Count(reduced_dims_);
    llvm::Value* row_start = b.CreateMul(row, length, "", true, true);
    const Index kept = e.Delinearize(row, ir::Shape(kept_dims_));
    std::vector<CachedStep> steps(static_cast<size_t>(per_thread_ / width));
    for (size_t s = 0; s < steps.size(); ++s) {
      CachedStep& step = steps[s];
      llvm::Value* chunk = b.CreateAdd(
          k_.ThreadInBlock(), b.CreateMul(k_.BlockThreads(), e.IndexConstant(s)), "", true, true);
      llvm::Value* base = b.CreateMul(chunk, e.IndexConstant(width), "", true, true);
      step.inside = b.CreateICmpULT(base, length);
      for (int j = 0; j < width; ++j) {
        llvm::Value* position = b.CreateAdd(base, e.IndexConstant(j), "", true, true);
        step.positions.push_back(position);
        step.linears.push_back(b.CreateAdd(row_start, position, "", true, true));
        step.indices.push_back(FullIndex(kept, position));
      }
      // Loaded under the step's condition into stack slots that mem2reg turns into phis.
      std::vector<llvm::AllocaInst*> slots;
      for (const Node* in : cached_) {
        for (int j = 0; j < width; ++j) {
          slots.push_back(k_.frame().EntryAlloca(k_.values().RegisterType(in->dtype()), "row"));
        }
      }
      EmitIf(
          b, step.inside,
          [&] {
            size_t next = 0;
            for (const Node* in : cached_) {
              llvm::Value* pointer = e.ElementPointer(in, step.linears[0]);
              const int64_t size = ir::DTypeSize(in->dtype());
              llvm::Type* lane = k_.values().StorageType(in->dtype());
              if (width == 1) {
                b.CreateStore(k_.values().Load(in->dtype(), pointer), slots[next++]);
                continue;
              }
              llvm::Value* loaded = b.CreateAlignedLoad(llvm::FixedVectorType::get(lane, width),
                                                        pointer, llvm::Align(size * width));
              for (int j = 0; j < width; ++j) {
                b.CreateStore(
                    k_.values().FromStorage(in->dtype(), b.CreateExtractElement(loaded, j)),
                    slots[next++]);
              }
            }
          },
          "load_step");
      for (size_t c = 0; c < slots.size(); ++c) {
        step.values.push_back(b.CreateLoad(slots[c]->getAllocatedType(), slots[c]));
      }
    }
    return steps;
  }

  /// For each step inside the row: the cached inputs seeded at its elements, then `body`.
  void ForEachStep(const std::vector<CachedStep>& steps,
                   const std::function<void(const CachedStep&)>& body) {
    llvm::IRBuilder<>& b = k_.b();
    ElementEmitter& e = k_.emitter();
    for (const CachedStep& step : steps) {
      EmitIf(
          b, step.inside,
          [&] {
            e.PushScope();
            const size_t width = step.indices.size();
            for (size_t c = 0; c < cached_.size(); ++c) {
              for (size_t j = 0; j < width; ++j) {
                e.Seed(cached_[c], step.indices[j], step.values[c * width + j]);
              }
            }
            body(step);
            e.PopScope();
          },
          "step");
    }
  }

  std::string EmitCachedPhase(size_t i, llvm::Value* row, const std::vector<CachedStep>& steps) {
    const Phase& phase = spec_.phases[i];
    if (phase.kind == Phase::Kind::kReduce) {
      const RowElementFeeder feeder = [&](const AddRowElements& add) {
        ForEachStep(steps, [&](const CachedStep& step) { add(step.indices, step.positions); });
      };
      return EmitBlockRowReduction(spec_, phase, module_, k_, row, &feeder);
    }
    if (!WholeRow(phase)) return EmitPhase(i, row);
    ForEachStep(steps,
                [&](const CachedStep& step) { seeded_stores_[i](step.indices, step.linears); });
    return "";
  }

  /// Phase `i` for row `row`, reading its inputs from memory.
  std::string EmitPhase(size_t i, llvm::Value* row) {
    llvm::IRBuilder<>& b = k_.b();
    ElementEmitter& e = k_.emitter();
    const Phase& phase = spec_.phases[i];
    if (phase.kind == Phase::Kind::kReduce) {
      return EmitBlockRowReduction(spec_, phase, module_, k_, row);
    }
    // A store of the reduced shape covers the row's elements, one of the kept shape the
    // row's single element.
    const bool whole_row = WholeRow(phase);
    llvm::Value* length = whole_row ? k_.Count(reduced_dims_) : e.IndexConstant(1);
    llvm::Value* row_start = b.CreateMul(row, length, "", true, true);
    // The row's elements: the kept index and a reduced position (no division by the row
    // length), four per thread step.
    const Index kept = e.Delinearize(row, ir::Shape(kept_dims_));
    EmitUnrolledLoop(
        k_, k_.ThreadInBlock(), length, k_.BlockThreads(), whole_row ? 4 : 1,
        [&](const std::vector<llvm::Value*>& positions) {
          std::vector<Index> indices;
          std::vector<llvm::Value*> linears;
          for (llvm::Value* j : positions) {
            llvm::Value* linear = b.CreateAdd(row_start, j, "", true, true);
            linears.push_back(linear);
            indices.push_back(whole_row ? FullIndex(kept, j) : e.Delinearize(linear, phase.shape));
          }
          stores_[i](indices, linears);
        },
        "element");
    return "";
  }

  const KernelSpec& spec_;
  llvm::Module& module_;
  KernelBuilder k_;
  std::vector<int64_t> kept_dims_, reduced_dims_;
  std::vector<const Node*> cached_;  // inputs read at the row element's own index
  int64_t per_thread_ = 0;           // cached elements per thread (0: never cached)
  int vector_ = 1;                   // elements per 16-byte load of the cached inputs
  std::vector<StoreElements> stores_, seeded_stores_;  // per phase (empty for reductions)
};

}  // namespace

std::string EmitRowLocalKernel(const KernelSpec& spec, llvm::Module& module,
                               const std::string& name) {
  return RowKernelEmitter(spec, module, name).Emit();
}

}  // namespace gpuc::codegen
