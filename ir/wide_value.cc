//===- wide_value.cc - Elements widened for exact reference computation ---===//
#include "ir/wide_value.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/half.h"

namespace gpuc::ir {
namespace {

template <typename T>
T Read(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Write(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

/// Float to integer of `bits` bits: truncate toward zero, saturate at the type's range, NaN to 0
/// (what CUDA's cvt.rzi does; NumPy leaves these cases undefined).
uint64_t FloatToIntegerBits(double f, int bits, bool is_signed) {
  if (std::isnan(f)) return 0;
  f = std::trunc(f);
  if (is_signed) {
    double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);
    if (f <= lo) return static_cast<uint64_t>(std::numeric_limits<int64_t>::min() >> (64 - bits));
    if (f >= hi) return static_cast<uint64_t>(std::numeric_limits<int64_t>::max() >> (64 - bits));
    return static_cast<uint64_t>(static_cast<int64_t>(f));
  }
  if (f <= 0) return 0;
  if (f >= std::ldexp(1.0, bits)) return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return static_cast<uint64_t>(f);
}

/// The value's two's-complement bit pattern as an integer of any width (wrapping).
uint64_t AsIntegerBits(const WideValue& v, int bits, bool is_signed) {
  switch (v.domain) {
    case DTypeKind::kBool:
      return v.b ? 1 : 0;
    case DTypeKind::kSigned:
      return static_cast<uint64_t>(v.i);
    case DTypeKind::kUnsigned:
      return v.u;
    case DTypeKind::kFloat:
      return FloatToIntegerBits(v.f, bits, is_signed);
    case DTypeKind::kComplex:
      return FloatToIntegerBits(v.c.real(), bits, is_signed);
  }
  return 0;
}

}  // namespace

double ToDouble(const WideValue& v) {
  switch (v.domain) {
    case DTypeKind::kBool:
      return v.b ? 1.0 : 0.0;
    case DTypeKind::kSigned:
      return static_cast<double>(v.i);
    case DTypeKind::kUnsigned:
      return static_cast<double>(v.u);
    case DTypeKind::kFloat:
      return v.f;
    case DTypeKind::kComplex:
      return v.c.real();
  }
  return 0;
}

bool IsTruthy(const WideValue& v) {
  switch (v.domain) {
    case DTypeKind::kBool:
      return v.b;
    case DTypeKind::kSigned:
      return v.i != 0;
    case DTypeKind::kUnsigned:
      return v.u != 0;
    case DTypeKind::kFloat:
      return v.f != 0;  // NaN != 0 is true
    case DTypeKind::kComplex:
      return v.c != std::complex<double>(0, 0);
  }
  return false;
}

WideValue LoadElement(DType dtype, const std::byte* p) {
  switch (dtype) {
    case DType::kBool:
      return WideValue::Bool(Read<uint8_t>(p) != 0);
    case DType::kInt8:
      return WideValue::Signed(Read<int8_t>(p));
    case DType::kInt16:
      return WideValue::Signed(Read<int16_t>(p));
    case DType::kInt32:
      return WideValue::Signed(Read<int32_t>(p));
    case DType::kInt64:
      return WideValue::Signed(Read<int64_t>(p));
    case DType::kUInt8:
      return WideValue::Unsigned(Read<uint8_t>(p));
    case DType::kUInt16:
      return WideValue::Unsigned(Read<uint16_t>(p));
    case DType::kUInt32:
      return WideValue::Unsigned(Read<uint32_t>(p));
    case DType::kUInt64:
      return WideValue::Unsigned(Read<uint64_t>(p));
    case DType::kFloat16:
      return WideValue::Float(HalfBitsToDouble(Read<uint16_t>(p)));
    case DType::kBFloat16:
      return WideValue::Float(BFloat16BitsToDouble(Read<uint16_t>(p)));
    case DType::kFloat32:
      return WideValue::Float(Read<float>(p));
    case DType::kFloat64:
      return WideValue::Float(Read<double>(p));
    case DType::kComplex64: {
      float re = Read<float>(p), im = Read<float>(p + 4);
      return WideValue::Complex({re, im});
    }
    case DType::kComplex128: {
      double re = Read<double>(p), im = Read<double>(p + 8);
      return WideValue::Complex({re, im});
    }
  }
  return {};
}

void StoreElement(DType dtype, std::byte* p, const WideValue& v) {
  int bits = IntegerBits(dtype);
  bool is_signed = KindOf(dtype) == DTypeKind::kSigned;
  switch (dtype) {
    case DType::kBool:
      return Write<uint8_t>(p, IsTruthy(v) ? 1 : 0);
    case DType::kInt8:
    case DType::kUInt8:
      return Write<uint8_t>(p, static_cast<uint8_t>(AsIntegerBits(v, bits, is_signed)));
    case DType::kInt16:
    case DType::kUInt16:
      return Write<uint16_t>(p, static_cast<uint16_t>(AsIntegerBits(v, bits, is_signed)));
    case DType::kInt32:
    case DType::kUInt32:
      return Write<uint32_t>(p, static_cast<uint32_t>(AsIntegerBits(v, bits, is_signed)));
    case DType::kInt64:
    case DType::kUInt64:
      return Write<uint64_t>(p, AsIntegerBits(v, bits, is_signed));
    case DType::kFloat16:
      return Write<uint16_t>(p, DoubleToHalfBits(ToDouble(v)));
    case DType::kBFloat16:
      return Write<uint16_t>(p, DoubleToBFloat16Bits(ToDouble(v)));
    case DType::kFloat32:
      return Write<float>(p, static_cast<float>(ToDouble(v)));
    case DType::kFloat64:
      return Write<double>(p, ToDouble(v));
    case DType::kComplex64:
    case DType::kComplex128: {
      std::complex<double> c =
          v.domain == DTypeKind::kComplex ? v.c : std::complex<double>(ToDouble(v));
      if (dtype == DType::kComplex64) {
        Write<float>(p, static_cast<float>(c.real()));
        Write<float>(p + 4, static_cast<float>(c.imag()));
      } else {
        Write<double>(p, c.real());
        Write<double>(p + 8, c.imag());
      }
      return;
    }
  }
}

std::optional<WideValue> ScalarAttribute(const Attributes& attrs) {
  const AttrValue* v = attrs.Find("value");
  if (!v) return WideValue::Signed(0);
  if (const bool* b = std::get_if<bool>(v)) return WideValue::Bool(*b);
  if (const int64_t* i = std::get_if<int64_t>(v)) return WideValue::Signed(*i);
  if (const double* d = std::get_if<double>(v)) return WideValue::Float(*d);
  if (const auto* c = std::get_if<std::complex<double>>(v)) return WideValue::Complex(*c);
  return std::nullopt;
}

WideValue ConvertTo(DType dtype, const WideValue& value) {
  std::byte buffer[16];
  StoreElement(dtype, buffer, value);
  return LoadElement(dtype, buffer);
}

}  // namespace gpuc::ir
