//===- element_emitter.h - The value of a kernel member at an index -------===//
//
// Code generation is index-based, as XLA's elemental IR emitter: the value of a node at a
// multi-index is emitted from the values of its operands at the indices the node reads
// (broadcasting maps an extent-1 axis to 0, a transpose permutes, a slice scales and shifts,
// a reshape re-linearizes). Values outside the kernel (its inputs) and the per-row results
// of reductions are loaded from their buffers. Within one loop body every (node, index) is
// emitted once; conditional reads (pad, concatenate, take) emit in scopes of their own, so a
// value is only reused where it dominates.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_ELEMENT_EMITTER_H_
#define GPUC_CODEGEN_ELEMENT_EMITTER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "codegen/kernel_spec.h"
#include "codegen/value_lowering.h"
#include "llvm/ADT/SmallVector.h"

namespace gpuc::codegen {

using Index = llvm::SmallVector<llvm::Value*, 6>;

/// The arguments of one generated phase function, loaded once in its entry block.
struct FunctionFrame {
  llvm::Function* function = nullptr;
  std::vector<llvm::Value*> buffers;  // one pointer per KernelSpec buffer
  std::vector<llvm::Value*> extents;  // one i64 per extent symbol
  llvm::Value* error = nullptr;       // int64_t[kErrorSlots]
  /// A stack slot in the entry block (where mem2reg can promote it).
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, const char* name = "");

  /// With `defer_take_errors` (the host's phase functions), a take out of bounds does not
  /// store to `error` where it happens, a store at one address that kept the element loop
  /// from vectorizing: each take folds "some index was bad" (an or) and the largest bad index
  /// (a max) into two slots, both reductions the vectorizer keeps in registers, and the
  /// function reports them on its way out (ReportDeferredTakeErrors).
  bool defer_take_errors = false;
  struct DeferredTakeError {
    int member;
    llvm::AllocaInst* bad;      // i1: some index was out of bounds
    llvm::AllocaInst* largest;  // i64: the largest of them
  };
  std::vector<DeferredTakeError> take_errors;
  /// Stores each deferred take error into `error` (the last take with one wins, as when
  /// they were stored in place). Call once, before the function returns.
  void ReportDeferredTakeErrors(llvm::IRBuilder<>& b);
};

class ElementEmitter {
 public:
  ElementEmitter(const KernelSpec& spec, ValueLowering& values, FunctionFrame& frame)
      : spec_(spec), values_(values), frame_(frame) {}

  /// The register value of `node` at `index` (one i64 per axis of its shape).
  llvm::Value* Emit(const ir::Node* node, const Index& index);

  /// Records `value` as `node`'s value at `index` in the innermost scope (a load the caller
  /// emitted itself, at an address it knows more about).
  void Seed(const ir::Node* node, const Index& index, llvm::Value* value) {
    scopes_.back()[CacheKey{node, std::vector<llvm::Value*>(index.begin(), index.end())}] = value;
  }

  /// Starts and ends a region whose values may not be reused outside it (a loop body or a
  /// conditional branch). Values emitted before the scope stay visible inside it.
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }

  llvm::Value* Extent(int64_t extent);
  /// Offset `axis` of `node` (a slice or update_slice start, a pad low): its symbol's
  /// argument, or the literal `value` when it is zero (KernelSpec::offset_symbol).
  llvm::Value* Offset(const ir::Node& node, int axis, int64_t value);
  /// Index arithmetic is done in spec.index_bits bits.
  llvm::IntegerType* IndexType() const {
    return llvm::IntegerType::get(values_.builder().getContext(), spec_.index_bits);
  }
  llvm::Value* IndexConstant(int64_t v) const {
    return llvm::ConstantInt::get(IndexType(), static_cast<uint64_t>(v), true);
  }
  /// Row-major linear position of `index` in `shape`.
  llvm::Value* Linearize(const Index& index, const ir::Shape& shape);
  /// The multi-index of row-major position `linear` in `shape`.
  Index Delinearize(llvm::Value* linear, const ir::Shape& shape);
  /// Address of element `linear` of the buffer holding `node`.
  llvm::Value* ElementPointer(const ir::Node* node, llvm::Value* linear);

  /// Converts between any two dtypes, complex included.
  llvm::Value* ConvertAny(llvm::Value* value, ir::DType from, ir::DType to);

  /// Set when the kernel uses something without a lowering; the kernel is then not compiled.
  const std::string& unsupported() const { return unsupported_; }
  void Unsupported(std::string why) {
    if (unsupported_.empty()) unsupported_ = std::move(why);
  }

 private:
  llvm::Value* EmitUncached(const ir::Node* node, const Index& index);
  llvm::Value* EmitElementwise(const ir::Node& node, const Index& index);
  /// A call of the user function for `node`'s output (codegen/user_function.h).
  llvm::Value* EmitUserCall(const ir::Node& node, const Index& index,
                            const std::vector<llvm::Value*>& args);
  llvm::Value* EmitSupportCall(const ir::Node& node, ir::DType loop,
                               const std::vector<llvm::Value*>& args,
                               const std::vector<ir::DType>& arg_dtypes);
  llvm::Value* EmitConstant(const ir::Node& node);
  llvm::Value* EmitReshape(const ir::Node& node, const Index& index);
  llvm::Value* EmitPad(const ir::Node& node, const Index& index);
  llvm::Value* EmitUpdateSlice(const ir::Node& node, const Index& index);
  llvm::Value* EmitConcatenate(const ir::Node& node, const Index& index);
  llvm::Value* EmitTake(const ir::Node& node, const Index& index);
  /// `index` in a node of shape `shape` read through broadcasting from `operand_shape`.
  Index BroadcastIndex(const Index& index, const ir::Shape& shape, const ir::Shape& operand_shape);
  /// Emits `then_value()` where `condition` holds and `else_value()` where not, each in a
  /// block and scope of its own, and merges the two values.
  llvm::Value* Conditional(llvm::Value* condition, const std::function<llvm::Value*()>& then_value,
                           const std::function<llvm::Value*()>& else_value);

  const KernelSpec& spec_;
  ValueLowering& values_;
  FunctionFrame& frame_;
  using CacheKey = std::pair<const ir::Node*, std::vector<llvm::Value*>>;
  std::vector<std::map<CacheKey, llvm::Value*>> scopes_ = {{}};
  std::string unsupported_;
};

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_ELEMENT_EMITTER_H_
