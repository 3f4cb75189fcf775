//===- gpu_reduce_emitter.cc - Reduce phases as GPU kernels ---------------===//
#include "codegen/gpu_reduce_emitter.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "codegen/accumulator.h"
#include "codegen/emit_loop.h"
#include "llvm/IR/DataLayout.h"

namespace gpuc::codegen {
namespace {

using ir::Node;

/// Allocation bytes of one part of a partial state, padded to 8 so every part's region of
/// the partials buffer stays aligned.
int64_t SlotBytes(llvm::Type* type) {
  const llvm::DataLayout layout(kNvptxDataLayout);
  return (static_cast<int64_t>(layout.getTypeAllocSize(type)) + 7) / 8 * 8;
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
    for (const Node* r : phase.reductions) operands_.push_back(&r->operand(0));
    prefetched_ = SameIndexInputs(spec, operands_, full);
    if (trailing && rows_mapping_ && !reduced_axes_.empty() &&
        ModuleFlag(module, kVectorReductionsFlag)) {
      vector_ = VectorLanes(prefetched_);
    }
  }

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
      AddElements(k, accs, indices, positions);
      e.PopScope();
    };
    EmitUnrolledLoop(k, first, stop, step, 2, accumulate, "vector_position");
  }

  /// Adds the elements at `positions` (full indices `indices`) to `accs` in position order,
  /// every value emitted before the first add, in the caller's scope.
  void AddElements(KernelBuilder& k, std::vector<Accumulator>& accs,
                   const std::vector<Index>& indices, const std::vector<llvm::Value*>& positions) {
    std::vector<llvm::Value*> values;
    for (const Index& index : indices) {
      for (const Node* operand : operands_) values.push_back(k.emitter().Emit(operand, index));
    }
    size_t next = 0;
    for (llvm::Value* p : positions) {
      for (Accumulator& acc : accs) acc.AddCombinable(values[next++], p);
    }
  }

  /// for (p = first; p < stop; p += step) adds the elements at reduced position p of kept
  /// row `kept` to `accs`, kUnroll positions per iteration whose inputs are all loaded before
  /// any math: a thread keeps several loads in flight (a reduction is a loop-carried chain).
  void EmitPositions(KernelBuilder& k, std::vector<Accumulator>& accs, const Index& kept,
                     llvm::Value* first, llvm::Value* stop, llvm::Value* step) {
    constexpr int kUnroll = 4;
    ElementEmitter& e = k.emitter();
    auto accumulate = [&](const std::vector<llvm::Value*>& positions) {
      std::vector<Index> indices;
      for (llvm::Value* p : positions) indices.push_back(FullIndex(k, kept, p));
      e.PushScope();
      for (const Node* in : prefetched_) {
        for (const Index& index : indices) e.Emit(in, index);
      }
      AddElements(k, accs, indices, positions);
      e.PopScope();
    };
    EmitUnrolledLoop(k, first, stop, step, kUnroll, accumulate, "position");
  }

  /// Row `row`'s reductions by the whole block, stored by thread 0 and visible to every
  /// thread of the block afterwards (the row-local kernel's reduce step). "" or what has no
  /// lowering.
  std::string EmitRowInto(KernelBuilder& k, llvm::Value* row, const RowElementFeeder* feeder) {
    ElementEmitter& e = k.emitter();
    std::vector<Accumulator> accs = Accumulators(k);
    if (accs.empty()) return e.unsupported();
    llvm::Value* count = k.Count(reduced_dims_);
    for (Accumulator& acc : accs) acc.StartCombinable();
    if (feeder) {
      (*feeder)([&](const std::vector<Index>& indices, const std::vector<llvm::Value*>& positions) {
        AddElements(k, accs, indices, positions);
      });
    } else {
      Index kept = e.Delinearize(row, ir::Shape(kept_dims_));
      EmitBlockPositions(k, accs, kept, e.IndexConstant(0), count, count, count);
    }
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
    // The runtime cuts the reduced range into chunks of whole vectors (gpu_launch).
    launch.vector = vector_;
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
    auto store_row = [&](llvm::Value* row) {
      std::vector<Accumulator::State> states;
      for (Accumulator& acc : accs) states.push_back(acc.Load());
      StoreRow(k, accs, states, split, row, rows, count);
    };
    auto thread_per_row = [&] {
      ForEachRow(k, rows, /*block_per_row=*/false, [&](llvm::Value* row) {
        for (Accumulator& acc : accs) acc.StartCombinable();
        EmitPositions(k, accs, e.Delinearize(row, kept_shape), start, stop, e.IndexConstant(1));
        store_row(row);
      });
    };
    if (!rows_mapping_) {
      thread_per_row();
    } else {
      // Short rows take a thread each (the launch agrees: ChooseReduceLaunch); the test is
      // uniform over the grid, so the block path's barriers stay convergent.
      llvm::Value* short_rows = b.CreateICmpULE(count, e.IndexConstant(kGpuThreadRowLimit));
      EmitIf(b, short_rows, thread_per_row, "short_rows");
      EmitIf(
          b, b.CreateNot(short_rows),
          [&] {
            ForEachRow(k, rows, /*block_per_row=*/true, [&](llvm::Value* row) {
              for (Accumulator& acc : accs) acc.StartCombinable();
              EmitBlockPositions(k, accs, e.Delinearize(row, kept_shape), start, stop, count,
                                 k.chunk());
              BlockMerge(k, accs, [&] { store_row(row); });
            });
          },
          "long_rows");
    }
    k.Finish();
    return e.unsupported();
  }

  /// for each kept row: a block per row (rows mapping) or a thread per row, striding over
  /// the grid; `body` emits the row's work.
  void ForEachRow(KernelBuilder& k, llvm::Value* rows,
                  const std::function<void(llvm::Value*)>& body) {
    ForEachRow(k, rows, rows_mapping_, body);
  }
  void ForEachRow(KernelBuilder& k, llvm::Value* rows, bool block_per_row,
                  const std::function<void(llvm::Value*)>& body) {
    llvm::IRBuilder<>& b = k.b();
    EmitLoop(
        b, block_per_row ? k.Block() : k.GlobalThread(), rows,
        [&](llvm::Value* row) {
          body(row);
          return b.CreateAdd(row, block_per_row ? k.Blocks() : k.GridThreads());
        },
        "row");
  }

  /// Merges the partial states of row `row`'s splits [first, splits), every step-th, into
  /// `accs` in split order.
  void CombineSplits(KernelBuilder& k, std::vector<Accumulator>& accs, llvm::Value* row,
                     llvm::Value* rows, llvm::Value* first, llvm::Value* step) {
    llvm::IRBuilder<>& b = k.b();
    EmitLoop(
        b, first, k.splits(),
        [&](llvm::Value* split) {
          for (size_t i = 0; i < accs.size(); ++i) {
            std::vector<llvm::Type*> types = accs[i].StateTypes();
            Accumulator::State part{
                b.CreateLoad(types[0], PartialSlot(k, accs, i, 0, split, row, rows)), nullptr};
            if (types.size() > 1) {
              part.index = b.CreateLoad(types[1], PartialSlot(k, accs, i, 1, split, row, rows));
            }
            accs[i].Store(accs[i].Combine(accs[i].Load(), part));
          }
          return b.CreateAdd(split, step);
        },
        "split");
  }

  /// Merges each row's split states and stores its results. Block-per-row reductions have
  /// few rows and many splits (a full reduction: one row, a thousand splits), so a block
  /// merges a row: its threads take every BlockThreads()-th split, then merge as the partial
  /// kernel does (a fixed assignment and tree: the same bits every run). Thread-per-row
  /// reductions have many rows and few splits: a thread merges a row.
  std::string EmitCombineKernel() {
    KernelBuilder k(spec_, module_, phase_.function_name + "_combine");
    ElementEmitter& e = k.emitter();
    std::vector<Accumulator> accs = Accumulators(k);
    if (accs.empty()) return e.unsupported();
    llvm::Value* rows = k.Count(kept_dims_);
    llvm::Value* count = k.Count(reduced_dims_);
    auto store_results = [&](llvm::Value* row) {
      for (size_t i = 0; i < accs.size(); ++i) {
        const Node* r = phase_.reductions[i];
        k.values().Store(r->dtype(), accs[i].Finish(count), e.ElementPointer(r, row));
      }
    };
    ForEachRow(k, rows, [&](llvm::Value* row) {
      for (Accumulator& acc : accs) acc.StartCombinable();
      if (rows_mapping_) {
        CombineSplits(k, accs, row, rows, k.ThreadInBlock(), k.BlockThreads());
        BlockMerge(k, accs, [&] { store_results(row); });
      } else {
        CombineSplits(k, accs, row, rows, e.IndexConstant(0), e.IndexConstant(1));
        store_results(row);
      }
    });
    k.Finish();
    return e.unsupported();
  }

  const KernelSpec& spec_;
  const Phase& phase_;
  llvm::Module& module_;
  std::vector<int> kept_axes_, reduced_axes_;
  std::vector<int64_t> kept_dims_, reduced_dims_;
  bool rows_mapping_ = true;
  std::vector<const Node*> operands_;    // what each reduction reads, in phase order
  std::vector<const Node*> prefetched_;  // inputs read at the reduced element's own index
  int vector_ = 1;
};

}  // namespace

std::string EmitReducePhase(const KernelSpec& spec, const Phase& phase, llvm::Module& module,
                            GpuPhaseLaunch& launch) {
  return ReducePhaseEmitter(spec, phase, module).Emit(launch);
}

std::string EmitBlockRowReduction(const KernelSpec& spec, const Phase& phase, llvm::Module& module,
                                  KernelBuilder& k, llvm::Value* row,
                                  const RowElementFeeder* feeder) {
  return ReducePhaseEmitter(spec, phase, module).EmitRowInto(k, row, feeder);
}

}  // namespace gpuc::codegen
