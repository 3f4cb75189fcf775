//===- dtype.cc - Element types, casting and NumPy 2 promotion ------------===//
#include "ir/dtype.h"

#include <array>
#include <limits>

#include "absl/strings/str_cat.h"

namespace gpuc::ir {
namespace {

struct DTypeInfo {
  absl::string_view name;
  absl::string_view numpy_name;
  int64_t size;
};

constexpr std::array<DTypeInfo, kNumDTypes> kDTypeInfo = {{
#define GPUC_DTYPE_INFO(enumerator, text, numpy, bytes) {text, #numpy, bytes},
    GPUC_DTYPES(GPUC_DTYPE_INFO)
#undef GPUC_DTYPE_INFO
}};

const DTypeInfo& Info(DType d) { return kDTypeInfo[static_cast<int>(d)]; }

/// Significand bits (with the implicit one) of a float type, or value bits of an integer type:
/// a cast is exact when the target has at least the source's precision and range.
int Precision(DType d) {
  switch (d) {
    case DType::kFloat16:
      return 11;
    case DType::kBFloat16:
      return 8;
    case DType::kFloat32:
      return 24;
    case DType::kFloat64:
      return 53;
    default:
      return 0;
  }
}

/// Whether float type `f` holds every value of integer type `i` "safely" in NumPy's sense.
/// NumPy treats int64 -> float64 as safe although it rounds, so the 64-bit integers map to
/// float64 by convention, not by precision.
bool IntFitsFloat(DType i, DType f) {
  int bits = IntegerBits(i);
  if (bits >= 32) return RealPart(f) == DType::kFloat64;
  int needed = KindOf(i) == DTypeKind::kSigned ? bits - 1 : bits;
  return Precision(RealPart(f)) >= needed;
}

bool FloatFitsFloat(DType from, DType to) {
  if (from == to) return true;
  // bfloat16 and float16 trade range for precision: neither holds the other.
  if (from == DType::kFloat16) return to == DType::kFloat32 || to == DType::kFloat64;
  if (from == DType::kBFloat16) return to == DType::kFloat32 || to == DType::kFloat64;
  return DTypeSize(to) > DTypeSize(from);
}

bool CanCastSafely(DType from, DType to) {
  if (from == to) return true;
  DTypeKind fk = KindOf(from), tk = KindOf(to);
  if (fk == DTypeKind::kBool) return true;
  if (tk == DTypeKind::kBool) return false;
  switch (fk) {
    case DTypeKind::kSigned:
      if (tk == DTypeKind::kSigned) return IntegerBits(to) >= IntegerBits(from);
      if (tk == DTypeKind::kUnsigned) return false;
      return IntFitsFloat(from, to);
    case DTypeKind::kUnsigned:
      if (tk == DTypeKind::kUnsigned) return IntegerBits(to) >= IntegerBits(from);
      if (tk == DTypeKind::kSigned) return IntegerBits(to) > IntegerBits(from);
      return IntFitsFloat(from, to);
    case DTypeKind::kFloat:
      if (tk == DTypeKind::kFloat) return FloatFitsFloat(from, to);
      if (tk == DTypeKind::kComplex) return FloatFitsFloat(from, RealPart(to));
      return false;
    case DTypeKind::kComplex:
      return tk == DTypeKind::kComplex && DTypeSize(to) >= DTypeSize(from);
    case DTypeKind::kBool:
      return true;
  }
  return false;
}

}  // namespace

absl::string_view DTypeName(DType d) { return Info(d).name; }
absl::string_view DTypeNumpyName(DType d) { return Info(d).numpy_name; }

std::optional<DType> ParseDType(absl::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kDTypeInfo[i].name == name || kDTypeInfo[i].numpy_name == name) {
      return static_cast<DType>(i);
    }
  }
  return std::nullopt;
}

int64_t DTypeSize(DType d) { return Info(d).size; }

DTypeKind KindOf(DType d) {
  switch (d) {
    case DType::kBool:
      return DTypeKind::kBool;
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
      return DTypeKind::kSigned;
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
      return DTypeKind::kUnsigned;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
      return DTypeKind::kFloat;
    case DType::kComplex64:
    case DType::kComplex128:
      return DTypeKind::kComplex;
  }
  return DTypeKind::kBool;
}

int IntegerBits(DType d) { return d == DType::kBool ? 1 : static_cast<int>(DTypeSize(d) * 8); }

DType RealPart(DType d) {
  if (d == DType::kComplex64) return DType::kFloat32;
  if (d == DType::kComplex128) return DType::kFloat64;
  return d;
}

DType ComplexOf(DType d) {
  if (IsComplex(d)) return d;
  return d == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
}

absl::string_view CastingName(Casting c) {
  switch (c) {
    case Casting::kNo:
      return "no";
    case Casting::kSafe:
      return "safe";
    case Casting::kSameKind:
      return "same_kind";
    case Casting::kUnsafe:
      return "unsafe";
  }
  return "?";
}

std::optional<Casting> ParseCasting(absl::string_view name) {
  for (Casting c : {Casting::kNo, Casting::kSafe, Casting::kSameKind, Casting::kUnsafe}) {
    if (CastingName(c) == name) return c;
  }
  return std::nullopt;
}

bool CanCast(DType from, DType to, Casting casting) {
  switch (casting) {
    case Casting::kNo:
      return from == to;
    case Casting::kSafe:
      return CanCastSafely(from, to);
    case Casting::kSameKind:
      return CanCastSafely(from, to) || KindOf(from) <= KindOf(to);
    case Casting::kUnsafe:
      return true;
  }
  return false;
}

DType PromoteTypes(DType a, DType b) {
  // The first type in NumPy's order that both cast to safely is NumPy's promotion
  // (e.g. u8,i8 -> i16; u64,i64 -> f64; f16,i16 -> f32; c64,f64 -> c128).
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    if (CanCastSafely(a, t) && CanCastSafely(b, t)) return t;
  }
  return DType::kComplex128;
}

absl::string_view WeakScalarName(WeakScalar kind) {
  switch (kind) {
    case WeakScalar::kInt:
      return "int";
    case WeakScalar::kFloat:
      return "float";
    case WeakScalar::kComplex:
      return "complex";
  }
  return "?";
}

DType PromoteWithWeakScalar(DType dtype, WeakScalar scalar) {
  DTypeKind kind = KindOf(dtype);
  switch (scalar) {
    case WeakScalar::kInt:
      return kind == DTypeKind::kBool ? DType::kInt64 : dtype;
    case WeakScalar::kFloat:
      return kind == DTypeKind::kFloat || kind == DTypeKind::kComplex ? dtype : DType::kFloat64;
    case WeakScalar::kComplex:
      if (kind == DTypeKind::kComplex) return dtype;
      if (kind == DTypeKind::kFloat) return ComplexOf(dtype);
      return DType::kComplex128;
  }
  return dtype;
}

absl::Status CheckWeakIntFits(int64_t value, DType dtype) {
  if (!IsInteger(dtype)) return absl::OkStatus();
  int bits = IntegerBits(dtype);
  bool fits;
  if (KindOf(dtype) == DTypeKind::kUnsigned) {
    fits = value >= 0 && (bits == 64 || value < (int64_t{1} << bits));
  } else {
    fits =
        bits == 64 || (value >= -(int64_t{1} << (bits - 1)) && value < (int64_t{1} << (bits - 1)));
  }
  if (fits) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("integer scalar ", value, " is out of bounds for ", DTypeNumpyName(dtype)));
}

}  // namespace gpuc::ir
