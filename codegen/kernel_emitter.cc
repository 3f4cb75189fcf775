//===- kernel_emitter.cc - A fused kernel as an LLVM module ---------------===//
#include "codegen/kernel_emitter.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "codegen/accumulator.h"
#include "codegen/element_emitter.h"
#include "codegen/emit_loop.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace gpuc::codegen {
namespace {

using ir::DType;
using ir::Node;
using ir::OpCode;

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
  void EmitColumnTiles(std::vector<Accumulator>& accumulators, const std::vector<int>& reduced_axes,
                       const std::vector<int64_t>& reduced_dims, int kept_axis, llvm::Value* count,
                       int tile);
  /// One loop per reduced axis, outermost first, setting `full_index`'s reduced entries; calls
  /// `innermost` with the position within the reduced sub-shape (argmin/argmax's answer: the
  /// row-major linearization of the reduced indices).
  void EmitReducedNest(Index& full_index, const std::vector<int>& reduced_axes,
                       const std::vector<int64_t>& reduced_dims,
                       const std::function<void(llvm::Value* position)>& innermost);
  /// Tells LLVM that distinct buffers never overlap: one alias scope per buffer (and one for
  /// the error slots) on every load and store through it. An output written over an input
  /// goes through the input's pointer (ElementEmitter::ElementPointer), so the buffers of
  /// one kernel are distinct memory, or inputs read twice. Without it a take's gather kept
  /// the loop from vectorizing ("cannot identify array bounds" for a runtime check), and
  /// other loops paid for runtime overlap checks.
  void AnnotateBufferAliasing();
  /// Adds the element at `full_index` to each reduction's accumulator.
  void AddElement(std::vector<Accumulator>& accumulators, const Index& full_index,
                  llvm::Value* position);

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
  frame_.defer_take_errors = true;
  if (phase_.kind == Phase::Kind::kStore) {
    EmitStores();
  } else {
    EmitReductions();
  }
  frame_.ReportDeferredTakeErrors(b_);
  b_.CreateRetVoid();
  AnnotateBufferAliasing();
  return emitter_.unsupported();
}

void PhaseEmitter::AnnotateBufferAliasing() {
  llvm::LLVMContext& c = module_.getContext();
  llvm::MDBuilder md(c);
  llvm::MDNode* domain = md.createAliasScopeDomain("gpuc.buffers");
  std::vector<llvm::Value*> bases = frame_.buffers;
  bases.push_back(frame_.error);
  std::vector<llvm::MDNode*> scopes;
  for (size_t i = 0; i < bases.size(); ++i) {
    scopes.push_back(md.createAliasScope(absl::StrCat("buffer", i), domain));
  }
  for (llvm::BasicBlock& block : *frame_.function) {
    for (llvm::Instruction& inst : block) {
      llvm::Value* pointer = llvm::getLoadStorePointerOperand(&inst);
      if (pointer == nullptr) continue;
      const llvm::Value* base = llvm::getUnderlyingObject(pointer, 0);
      auto it = std::find(bases.begin(), bases.end(), base);
      if (it == bases.end()) continue;
      const size_t mine = static_cast<size_t>(it - bases.begin());
      std::vector<llvm::Metadata*> others;
      for (size_t i = 0; i < scopes.size(); ++i) {
        if (i != mine) others.push_back(scopes[i]);
      }
      inst.setMetadata(llvm::LLVMContext::MD_alias_scope, llvm::MDNode::get(c, {scopes[mine]}));
      inst.setMetadata(llvm::LLVMContext::MD_noalias, llvm::MDNode::get(c, others));
    }
  }
}

void PhaseEmitter::EmitStores() {
  const ir::Shape& shape = phase_.shape;
  auto store_all = [&](const Index& index, llvm::Value* linear) {
    emitter_.PushScope();
    // Values a reduce phase left in an output's storage (KernelSpec::carried): read back.
    for (const KernelSpec::Carried& c : spec_.carried) {
      emitter_.Seed(c.value, index,
                    values_.Load(c.value->dtype(), emitter_.ElementPointer(c.output, linear)));
    }
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
  // Reducing leading axes into one trailing kept axis (a column reduction): a kept position
  // per outer iteration would walk down a column with the row's stride, a cache line per
  // element. Instead a tile of kTile consecutive kept positions keeps its states side by side
  // and the reduced positions are walked once, each adding a contiguous stretch of a row to
  // the tile's states (NumPy's order; each state still sees its elements in position order).
  const bool columns = kept_axes.size() == 1 && kept_axes[0] == full.rank() - 1;
  constexpr int kTile = 256;
  for (Accumulator& acc : accumulators) {
    if (!(columns ? acc.PrepareSlots(kTile) : acc.Prepare())) return;
  }
  llvm::Value* count = emitter_.IndexConstant(1);
  for (int64_t d : reduced_dims) count = b_.CreateMul(count, emitter_.Extent(d));
  if (columns) {
    EmitColumnTiles(accumulators, reduced_axes, reduced_dims, kept_axes[0], count, kTile);
    return;
  }
  EmitLoop(
      b_, begin_, end_,
      [&](llvm::Value* row) {
        Index kept = emitter_.Delinearize(row, ir::Shape(kept_dims));
        for (Accumulator& acc : accumulators) acc.Start();
        Index full_index(full.rank());
        for (size_t k = 0; k < kept_axes.size(); ++k) full_index[kept_axes[k]] = kept[k];
        EmitReducedNest(full_index, reduced_axes, reduced_dims, [&](llvm::Value* position) {
          AddElement(accumulators, full_index, position);
        });
        for (size_t i = 0; i < accumulators.size(); ++i) {
          const Node* r = phase_.reductions[i];
          values_.Store(r->dtype(), accumulators[i].Finish(count), emitter_.ElementPointer(r, row));
        }
        return nullptr;
      },
      "row");
}

void PhaseEmitter::EmitReducedNest(Index& full_index, const std::vector<int>& reduced_axes,
                                   const std::vector<int64_t>& reduced_dims,
                                   const std::function<void(llvm::Value* position)>& innermost) {
  std::function<void(size_t, llvm::Value*)> nest = [&](size_t level, llvm::Value* position) {
    if (level == reduced_axes.size()) {
      innermost(position);
      return;
    }
    llvm::Value* extent = emitter_.Extent(reduced_dims[level]);
    EmitLoop(
        b_, emitter_.IndexConstant(0), extent,
        [&](llvm::Value* i) {
          full_index[reduced_axes[level]] = i;
          nest(level + 1,
               b_.CreateAdd(b_.CreateMul(position, extent, "", true, true), i, "", true, true));
          return nullptr;
        },
        "reduce");
  };
  nest(0, emitter_.IndexConstant(0));
}

void PhaseEmitter::AddElement(std::vector<Accumulator>& accumulators, const Index& full_index,
                              llvm::Value* position) {
  emitter_.PushScope();
  for (size_t i = 0; i < accumulators.size(); ++i) {
    const Node* r = phase_.reductions[i];
    accumulators[i].Add(emitter_.Emit(&r->operand(0), full_index), position);
  }
  // Values the last store phase needs again go to its output's storage (KernelSpec::carried).
  const int phase = static_cast<int>(&phase_ - spec_.phases.data());
  for (const KernelSpec::Carried& c : spec_.carried) {
    if (c.phase != phase) continue;
    values_.Store(
        c.value->dtype(), emitter_.Emit(c.value, full_index),
        emitter_.ElementPointer(c.output, emitter_.Linearize(full_index, spec_.reduced_shape)));
  }
  emitter_.PopScope();
}

void PhaseEmitter::EmitColumnTiles(std::vector<Accumulator>& accumulators,
                                   const std::vector<int>& reduced_axes,
                                   const std::vector<int64_t>& reduced_dims, int kept_axis,
                                   llvm::Value* count, int tile) {
  constexpr int kRowsPerPass = 8;
  const ir::Shape& full = spec_.reduced_shape;
  // Each column of [first, stop) with its accumulators' slot selected.
  auto for_each_in_tile = [&](llvm::Value* first, llvm::Value* stop,
                              const std::function<void(llvm::Value * column)>& body) {
    EmitLoop(
        b_, first, stop,
        [&](llvm::Value* column) {
          llvm::Value* slot = b_.CreateSub(column, first, "", true, true);
          for (Accumulator& acc : accumulators) acc.SelectSlot(slot);
          body(column);
          return nullptr;
        },
        "column");
  };
  EmitLoop(
      b_, begin_, end_,
      [&](llvm::Value* first) {
        llvm::Value* stop = b_.CreateBinaryIntrinsic(
            llvm::Intrinsic::umin, end_,
            b_.CreateAdd(first, emitter_.IndexConstant(tile), "", true, true));
        for_each_in_tile(first, stop, [&](llvm::Value*) {
          for (Accumulator& acc : accumulators) acc.Start();
        });
        // The reduced positions kRowsPerPass at a time, each column's state taking them one
        // after another (the same order), so a state is loaded and stored once per pass, not
        // once per row (the loop was bound by those slot round trips: 2.4x NumPy's column sum).
        const ir::Shape reduced_shape(reduced_dims);
        Index full_index(full.rank());
        auto pass = [&](llvm::Value* position, int rows) {
          std::vector<Index> reduced;
          for (int k = 0; k < rows; ++k) {
            reduced.push_back(emitter_.Delinearize(
                b_.CreateAdd(position, emitter_.IndexConstant(k), "", true, true), reduced_shape));
          }
          for_each_in_tile(first, stop, [&](llvm::Value* column) {
            full_index[kept_axis] = column;
            for (int k = 0; k < rows; ++k) {
              for (size_t a = 0; a < reduced_axes.size(); ++a) {
                full_index[reduced_axes[a]] = reduced[k][a];
              }
              AddElement(accumulators, full_index,
                         b_.CreateAdd(position, emitter_.IndexConstant(k), "", true, true));
            }
          });
        };
        llvm::Value* whole = b_.CreateSub(
            count, b_.CreateURem(count, emitter_.IndexConstant(kRowsPerPass)), "", true, true);
        EmitLoop(
            b_, emitter_.IndexConstant(0), whole,
            [&](llvm::Value* position) {
              pass(position, kRowsPerPass);
              return b_.CreateAdd(position, emitter_.IndexConstant(kRowsPerPass), "", true, true);
            },
            "rows");
        EmitLoop(
            b_, whole, count,
            [&](llvm::Value* position) {
              pass(position, 1);
              return nullptr;
            },
            "rest");
        for_each_in_tile(first, stop, [&](llvm::Value* column) {
          for (size_t i = 0; i < accumulators.size(); ++i) {
            const Node* r = phase_.reductions[i];
            values_.Store(r->dtype(), accumulators[i].Finish(count),
                          emitter_.ElementPointer(r, column));
          }
        });
        return stop;
      },
      "tile");
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitKernel(const KernelSpec& spec,
                                                         llvm::LLVMContext& context) {
  for (const ir::Node* member : spec.members) {
    if (member->op() == ir::OpCode::kUserElementwise) {
      return absl::UnimplementedError(
          "code generation for the host has no lowering for user_elementwise: user CUDA C++ "
          "runs only on the GPU");
    }
  }
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
