//===- gpuc/dtype.h - Element types and shapes of the public API ----------===//
//
// The dtypes of gpuc arrays, named as NumPy names them (gpuc::float32, gpuc::int64, ...), and
// the mapping from C++ element types. float16 and bfloat16 arrays have no C++ element type
// here: convert them with astype() to read them.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_DTYPE_H_
#define GPUC_DTYPE_H_

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace gpuc {

/// In NumPy's type order (the IR's, ir/dtype.h, which the library checks it matches).
enum class DType : uint8_t {
  kBool,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
};

inline constexpr DType bool_ = DType::kBool;
inline constexpr DType int8 = DType::kInt8;
inline constexpr DType uint8 = DType::kUInt8;
inline constexpr DType int16 = DType::kInt16;
inline constexpr DType uint16 = DType::kUInt16;
inline constexpr DType int32 = DType::kInt32;
inline constexpr DType uint32 = DType::kUInt32;
inline constexpr DType int64 = DType::kInt64;
inline constexpr DType uint64 = DType::kUInt64;
inline constexpr DType float16 = DType::kFloat16;
inline constexpr DType bfloat16 = DType::kBFloat16;
inline constexpr DType float32 = DType::kFloat32;
inline constexpr DType float64 = DType::kFloat64;
inline constexpr DType complex64 = DType::kComplex64;
inline constexpr DType complex128 = DType::kComplex128;

/// NumPy's name: "float32".
std::string dtype_name(DType dtype);
/// Bytes per element.
int64_t itemsize(DType dtype);

/// An array's extents, outermost first; {} is a 0-d array (one element).
using Shape = std::vector<int64_t>;

template <typename T>
inline constexpr bool kIsElementType =
    std::is_same_v<T, bool> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, uint32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

/// The dtype whose elements are laid out as a C++ T.
template <typename T>
constexpr DType dtype_of() {
  static_assert(kIsElementType<T>, "not a gpuc element type");
  if constexpr (std::is_same_v<T, bool>) return bool_;
  if constexpr (std::is_same_v<T, int8_t>) return int8;
  if constexpr (std::is_same_v<T, uint8_t>) return uint8;
  if constexpr (std::is_same_v<T, int16_t>) return int16;
  if constexpr (std::is_same_v<T, uint16_t>) return uint16;
  if constexpr (std::is_same_v<T, int32_t>) return int32;
  if constexpr (std::is_same_v<T, uint32_t>) return uint32;
  if constexpr (std::is_same_v<T, int64_t>) return int64;
  if constexpr (std::is_same_v<T, uint64_t>) return uint64;
  if constexpr (std::is_same_v<T, float>) return float32;
  if constexpr (std::is_same_v<T, double>) return float64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return complex64;
  if constexpr (std::is_same_v<T, std::complex<double>>) return complex128;
  return float64;
}

}  // namespace gpuc

#endif  // GPUC_DTYPE_H_
