//===- op.cc - The operation table ----------------------------------------===//
#include "ir/op.h"

#include <array>
#include <bit>
#include <vector>

namespace gpuc::ir {
namespace {

constexpr DTypeSet kAllTypes = (DTypeSet{1} << kNumDTypes) - 1;
constexpr DTypeSet kIntegers = DTypeBit(DType::kInt8) | DTypeBit(DType::kUInt8) |
                               DTypeBit(DType::kInt16) | DTypeBit(DType::kUInt16) |
                               DTypeBit(DType::kInt32) | DTypeBit(DType::kUInt32) |
                               DTypeBit(DType::kInt64) | DTypeBit(DType::kUInt64);
constexpr DTypeSet kIntegerOrBool = kIntegers | DTypeBit(DType::kBool);
constexpr DTypeSet kRealFloats = DTypeBit(DType::kFloat16) | DTypeBit(DType::kBFloat16) |
                                 DTypeBit(DType::kFloat32) | DTypeBit(DType::kFloat64);
constexpr DTypeSet kComplexTypes = DTypeBit(DType::kComplex64) | DTypeBit(DType::kComplex128);
constexpr DTypeSet kInexact = kRealFloats | kComplexTypes;
constexpr DTypeSet kNumeric = kAllTypes & ~DTypeBit(DType::kBool);
constexpr DTypeSet kRealNumeric = kIntegers | kRealFloats;
constexpr DTypeSet kUInt64Only = DTypeBit(DType::kUInt64);
constexpr DTypeSet kNumericRejectingBool = kNumeric | kRejectsBoolBit;

constexpr OpKind kElementwise = OpKind::kElementwise;
constexpr OpKind kReduction = OpKind::kReduction;
constexpr OpKind kScan = OpKind::kScan;
constexpr OpKind kDataMovement = OpKind::kDataMovement;
constexpr OpKind kLibrary = OpKind::kLibrary;
constexpr OpKind kOpaque = OpKind::kOpaque;

using enum TypeRule;
using enum CostClass;

constexpr std::array kOpTable = {
#define GPUC_OP(enumerator, text, arity, kind, rule, loops, cost) \
  OpInfo{text, arity, kind, rule, loops, cost},
#include "ir/ops.def"
};

}  // namespace

const OpInfo& GetOpInfo(OpCode op) { return kOpTable[static_cast<int>(op)]; }

std::optional<OpCode> ParseOpName(absl::string_view name) {
  for (size_t i = 0; i < kOpTable.size(); ++i) {
    if (kOpTable[i].name == name) return static_cast<OpCode>(i);
  }
  return std::nullopt;
}

absl::string_view OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kElementwise:
      return "elementwise";
    case OpKind::kReduction:
      return "reduction";
    case OpKind::kScan:
      return "scan";
    case OpKind::kDataMovement:
      return "data_movement";
    case OpKind::kLibrary:
      return "library";
    case OpKind::kOpaque:
      return "opaque";
  }
  return "?";
}

const std::vector<OpCode>& AllOps() {
  static const std::vector<OpCode> ops = [] {
    std::vector<OpCode> all;
    for (size_t i = 0; i < kOpTable.size(); ++i) all.push_back(static_cast<OpCode>(i));
    return all;
  }();
  return ops;
}

std::optional<DType> SelectLoop(OpCode op, absl::Span<const DType> operand_dtypes) {
  // Every dtype's safe cast targets as a set, computed once: selecting a loop is then a few
  // bit operations (ops are recorded in loops; walking the cast table per op showed up as a
  // sixth of recording an add).
  static const std::array<DTypeSet, kNumDTypes> kSafeTargets = [] {
    std::array<DTypeSet, kNumDTypes> targets{};
    for (int from = 0; from < kNumDTypes; ++from) {
      for (int to = 0; to < kNumDTypes; ++to) {
        if (CanCast(static_cast<DType>(from), static_cast<DType>(to), Casting::kSafe)) {
          targets[from] |= DTypeBit(static_cast<DType>(to));
        }
      }
    }
    return targets;
  }();
  const DTypeSet loops = GetOpInfo(op).loops;
  DTypeSet candidates = loops & kAllTypes;
  bool all_bool = !operand_dtypes.empty();
  for (DType d : operand_dtypes) {
    candidates &= kSafeTargets[static_cast<int>(d)];
    all_bool = all_bool && d == DType::kBool;
  }
  if ((loops & kRejectsBoolBit) && all_bool) return std::nullopt;
  if (candidates == 0) return std::nullopt;
  return static_cast<DType>(std::countr_zero(candidates));  // the first loop in DType order
}

}  // namespace gpuc::ir
