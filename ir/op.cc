//===- op.cc - The operation table ----------------------------------------===//
#include "ir/op.h"

#include <array>
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
  DTypeSet loops = GetOpInfo(op).loops;
  if (loops & kRejectsBoolBit) {
    bool all_bool = !operand_dtypes.empty();
    for (DType d : operand_dtypes) all_bool = all_bool && d == DType::kBool;
    if (all_bool) return std::nullopt;
  }
  for (int i = 0; i < kNumDTypes; ++i) {
    DType candidate = static_cast<DType>(i);
    if (!Contains(loops, candidate)) continue;
    bool all_cast = true;
    for (DType d : operand_dtypes) all_cast = all_cast && CanCast(d, candidate, Casting::kSafe);
    if (all_cast) return candidate;
  }
  return std::nullopt;
}

}  // namespace gpuc::ir
