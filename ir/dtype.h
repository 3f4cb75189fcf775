//===- dtype.h - Element types, casting and NumPy 2 promotion -------------===//
//
// The element types of gpuc arrays and the rules that combine them: NumPy's
// `promote_types` table, its four casting kinds, and NEP 50 promotion with
// "weak" Python-style scalars. bfloat16 is not a NumPy type; it promotes like
// float16 with integers and to float32 with float16 (see docs/ir.md).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_DTYPE_H_
#define GPUC_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace gpuc::ir {

/// The order is NumPy's type order (small before large, signed before unsigned of one size,
/// integers before floats before complex): promotion picks the first type both operands cast
/// to safely, and operation loops are searched in this order.
#define GPUC_DTYPES(X)               \
  X(kBool, "bool", bool, 1)          \
  X(kInt8, "i8", int8, 1)            \
  X(kUInt8, "u8", uint8, 1)          \
  X(kInt16, "i16", int16, 2)         \
  X(kUInt16, "u16", uint16, 2)       \
  X(kInt32, "i32", int32, 4)         \
  X(kUInt32, "u32", uint32, 4)       \
  X(kInt64, "i64", int64, 8)         \
  X(kUInt64, "u64", uint64, 8)       \
  X(kFloat16, "f16", float16, 2)     \
  X(kBFloat16, "bf16", bfloat16, 2)  \
  X(kFloat32, "f32", float32, 4)     \
  X(kFloat64, "f64", float64, 8)     \
  X(kComplex64, "c64", complex64, 8) \
  X(kComplex128, "c128", complex128, 16)

enum class DType : uint8_t {
#define GPUC_DTYPE_ENUM(enumerator, text, numpy, bytes) enumerator,
  GPUC_DTYPES(GPUC_DTYPE_ENUM)
#undef GPUC_DTYPE_ENUM
};

inline constexpr int kNumDTypes = 15;

/// What kind of number a dtype holds; ordered as NumPy's "same_kind" casting ranks them.
enum class DTypeKind : uint8_t { kBool, kUnsigned, kSigned, kFloat, kComplex };

/// The IR's short name ("f32"), used by the textual IR.
absl::string_view DTypeName(DType dtype);
/// NumPy's name ("float32"), used in messages and the .npy mapping.
absl::string_view DTypeNumpyName(DType dtype);
/// Accepts both the short and the NumPy name.
std::optional<DType> ParseDType(absl::string_view name);

int64_t DTypeSize(DType dtype);
DTypeKind KindOf(DType dtype);
inline bool IsInteger(DType d) {
  return KindOf(d) == DTypeKind::kSigned || KindOf(d) == DTypeKind::kUnsigned;
}
inline bool IsFloat(DType d) { return KindOf(d) == DTypeKind::kFloat; }
inline bool IsComplex(DType d) { return KindOf(d) == DTypeKind::kComplex; }
inline bool IsInexact(DType d) { return IsFloat(d) || IsComplex(d); }
/// Bits of an integer type; 1 for bool.
int IntegerBits(DType dtype);
/// complex64 -> float32, complex128 -> float64; other types map to themselves.
DType RealPart(DType dtype);
/// The complex type holding a float type's values (float16, bfloat16, float32 -> complex64).
DType ComplexOf(DType dtype);

enum class Casting : uint8_t { kNo, kSafe, kSameKind, kUnsafe };
absl::string_view CastingName(Casting casting);
std::optional<Casting> ParseCasting(absl::string_view name);

/// NumPy's `can_cast(from, to, casting)`.
bool CanCast(DType from, DType to, Casting casting);

/// NumPy's `promote_types(a, b)`. Every pair of gpuc dtypes promotes (float64 and complex128
/// absorb everything), so this never fails.
DType PromoteTypes(DType a, DType b);

/// A C++ scalar mixed with an array is "weak" (NEP 50): only its kind matters.
enum class WeakScalar : uint8_t { kInt, kFloat, kComplex };
absl::string_view WeakScalarName(WeakScalar kind);

/// The result dtype of an array of `dtype` combined with a weak scalar (NEP 50): the array's
/// type wins unless the scalar's kind is higher, e.g. u8 + 3 -> u8, i32 + 1.5 -> f64,
/// f32 + 1j -> c64.
DType PromoteWithWeakScalar(DType dtype, WeakScalar scalar);

/// NEP 50 rejects a Python integer that the array's integer type cannot hold (u8 + 300).
/// Returns an error naming the value and the dtype; ok for non-integer dtypes.
absl::Status CheckWeakIntFits(int64_t value, DType dtype);

}  // namespace gpuc::ir

#endif  // GPUC_IR_DTYPE_H_
