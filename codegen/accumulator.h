//===- accumulator.h - The running state of one reduction, in registers ---===//
//
// ir/interpreter_reduction.cc's Accumulator as generated code. Host loops add elements one
// after another (Start, Add, Finish). GPU kernels also split a row over threads and blocks and
// merge the partial states (StartCombinable, AddCombinable, Combine): extrema then carry their
// position and ties go to the smaller one, so the merged state is the one a serial loop finds
// (the first extreme, the first NaN) whatever the split.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_ACCUMULATOR_H_
#define GPUC_CODEGEN_ACCUMULATOR_H_

#include <vector>

#include "codegen/element_emitter.h"
#include "codegen/value_lowering.h"
#include "ir/node.h"

namespace gpuc::codegen {

class Accumulator {
 public:
  /// A partial state: the running value and, for argmax/argmin and every combinable
  /// extremum, the position it was found at (null otherwise).
  struct State {
    llvm::Value* value = nullptr;
    llvm::Value* index = nullptr;
  };

  Accumulator(const ir::Node& node, ElementEmitter& emitter, ValueLowering& values,
              FunctionFrame& frame)
      : node_(node), emitter_(emitter), values_(values), frame_(frame) {
    in_ = node.operand(0).dtype();
    out_ = node.dtype();
  }

  /// Allocates the state; false (with the emitter told why) when there is no lowering.
  /// `combinable` states also keep the position of extrema, for Combine.
  bool Prepare(bool combinable = false);
  /// Prepare for `slots` states side by side (a tile of rows reduced together: a column
  /// reduction adds one row of the input to every column's state in turn); SelectSlot picks
  /// the state the other methods work on, until the next SelectSlot.
  bool PrepareSlots(int slots);
  void SelectSlot(llvm::Value* slot);
  void Start();
  void Add(llvm::Value* x, llvm::Value* position);
  /// The row's result in the node's dtype; `count` is how many elements the row had.
  llvm::Value* Finish(llvm::Value* count);

  /// The identity state, where no element has been seen (extrema at position "infinity").
  void StartCombinable();
  /// Adds element `x` at `position` (positions may arrive in any order).
  void AddCombinable(llvm::Value* x, llvm::Value* position);
  State Load();
  void Store(State state);
  State Identity();
  /// The state of both parts together; for equal extrema the smaller position wins.
  State Combine(State a, State b);

  /// The LLVM types of the state's parts, in order (value, then index if any), as kept in
  /// partial-state buffers between kernels.
  std::vector<llvm::Type*> StateTypes() const;

 private:
  bool IsExtremum() const {
    return op() == ir::OpCode::kReduceMax || op() == ir::OpCode::kReduceMin ||
           op() == ir::OpCode::kArgMax || op() == ir::OpCode::kArgMin;
  }
  bool WantsMax() const { return op() == ir::OpCode::kReduceMax || op() == ir::OpCode::kArgMax; }
  ir::OpCode op() const { return node_.op(); }
  llvm::Value* InitialValue();
  /// `x` in the state's domain (converted for sums, truthiness for any/all).
  llvm::Value* Element(llvm::Value* x);

  const ir::Node& node_;
  ElementEmitter& emitter_;
  ValueLowering& values_;
  FunctionFrame& frame_;
  ir::DType in_, out_;
  ir::DType acc_ = ir::DType::kBool;  // the register dtype of the running value
  llvm::Type* value_type_ = nullptr;
  // The state's parts: allocas, or the selected slot of the slot arrays.
  llvm::Value* value_ = nullptr;
  llvm::Value* index_ = nullptr;
  llvm::AllocaInst* value_slots_ = nullptr;
  llvm::AllocaInst* index_slots_ = nullptr;
};

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_ACCUMULATOR_H_
