//===- op.h - The operation table: kinds, type rules and cost classes -----===//
//
// Every IR operation is one row of ops.def. This header turns the table into an OpCode enum
// and an OpInfo record per op, so that passes ask the table instead of listing ops by hand.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_OP_H_
#define GPUC_IR_OP_H_

#include <cstdint>
#include <optional>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/types/span.h"
#include "ir/dtype.h"

namespace gpuc::ir {

enum class OpKind : uint8_t {
  kElementwise,
  kReduction,
  kScan,
  kDataMovement,
  kLibrary,
  kOpaque,
};

/// How an op's result dtype follows from its operands (ir/type_inference.cc applies it).
enum class TypeRule : uint8_t {
  kSameAsLoop,     // the selected loop dtype
  kBoolResult,     // bool, after checking a loop exists
  kRealOfLoop,     // the loop dtype's real part (abs of complex64 is float32)
  kTrueDivide,     // integer and bool operands divide in float64, as NumPy's true_divide
  kWhereRule,      // operand 0 is bool; promotion of operands 1 and 2
  kGiven,          // the result type is stated (cast, iota, constant, parameter)
  kAccumulator,    // sum/prod: bool and signed ints -> i64, unsigned -> u64, others unchanged
  kIndexResult,    // argmin/argmax: i64
  kSameAsOperand,  // data movement: operand 0's dtype (all operands must agree)
  kSpmvRule,       // spmv(values, col_indices, row_offsets, x): promotion of values and x
  kLinalgRule,     // linalg: by its routine (ir/linalg_semantics.h)
  kSpsolveRule,    // spsolve(values, col_indices, row_offsets, b): b's type
  kUserSignature,  // user_elementwise: the dtypes its `inputs` and `outputs` attributes state
};

/// Coarse per-element cost, for the fusion cost model.
enum class CostClass : uint8_t { kFree, kCheap, kModerate, kExpensive, kLibraryCall };

enum class OpCode : uint8_t {
#define GPUC_OP(enumerator, text, arity, kind, rule, loops, cost) enumerator,
#include "ir/ops.def"
};

/// A set of dtypes, one bit per DType.
using DTypeSet = uint32_t;
constexpr DTypeSet DTypeBit(DType d) { return DTypeSet{1} << static_cast<int>(d); }
inline bool Contains(DTypeSet set, DType d) { return (set & DTypeBit(d)) != 0; }

inline constexpr int kVariadic = -1;

struct OpInfo {
  absl::string_view name;
  int arity;  // kVariadic: one or more
  OpKind kind;
  TypeRule type_rule;
  DTypeSet loops;
  CostClass cost;
};

const OpInfo& GetOpInfo(OpCode op);
inline absl::string_view OpName(OpCode op) { return GetOpInfo(op).name; }
std::optional<OpCode> ParseOpName(absl::string_view name);
absl::string_view OpKindName(OpKind kind);
/// Every op, in table order (for tests and `gpuc --list-ops`).
const std::vector<OpCode>& AllOps();

/// Set in an op's loop set when all-bool operands are an error rather than computed as int8:
/// NumPy refuses `-`, unary minus and sign of booleans instead of promoting them.
inline constexpr DTypeSet kRejectsBoolBit = DTypeSet{1} << 31;

/// The dtype an op computes in for operands of these dtypes, as NumPy picks a ufunc loop: the
/// first loop dtype (in DType order) that every operand casts to safely. Nullopt when there is
/// none, or when only bool operands meet an op that rejects bool.
std::optional<DType> SelectLoop(OpCode op, absl::Span<const DType> operand_dtypes);

}  // namespace gpuc::ir

#endif  // GPUC_IR_OP_H_
