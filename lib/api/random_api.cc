//===- random_api.cc - Counter-based random arrays (gpuc/random.h) --------===//
#include <cmath>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "gpuc/elementwise.h"
#include "gpuc/random.h"
#include "ir/philox.h"
#include "lib/api/recorder.h"
#include "lib/eval/trace.h"

namespace gpuc::random {
namespace {

/// 64 random bits per element: philox(flat index, key), shaped.
Array RandomBits(const Shape& shape, uint64_t key) {
  if (absl::Status s = ir::ValidateShape(ir::Shape(shape)); !s.ok()) {
    detail::ThrowInvalid(absl::StrCat("random: ", s.message()));
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  ir::Attributes attrs;
  attrs.Set("axis", int64_t{0});
  Array counter = detail::Record(ir::OpCode::kIota, {}, std::move(attrs),
                                 ir::TensorType{ir::DType::kUInt64, ir::Shape({n})});
  Array key_value = detail::Constant(key, uint64);
  // Inside a loop body (gpuc/loops.h) the key also mixes in the step's key, a value the loop
  // passes every step: the body is traced once, and its draws must still differ per step.
  if (const Array* step_key = detail::CurrentStepKey()) key_value = key_value ^ *step_key;
  Array bits = detail::Record(ir::OpCode::kPhilox, {counter, key_value});
  return detail::Reshaped(bits, shape);
}

void CheckRealFloat(const char* op, DType dtype) {
  if (dtype != float16 && dtype != bfloat16 && dtype != float32 && dtype != float64) {
    detail::ThrowInvalid(
        absl::StrCat(op, ": dtype must be a real floating type, got ", dtype_name(dtype)));
  }
}

/// Uniform on [0, 1) with as many random bits as `dtype`'s significand holds, so that rounding
/// can never produce 1.
Array UnitUniform(const Shape& shape, uint64_t key, DType dtype) {
  const int bits = dtype == float64 ? 53 : dtype == float32 ? 24 : dtype == float16 ? 11 : 8;
  Array top = RandomBits(shape, key) >> static_cast<uint64_t>(64 - bits);
  const DType compute = dtype == float64 ? float64 : float32;
  return astype(top, compute) * std::ldexp(1.0, -bits);
}

}  // namespace

Generator::Generator(uint64_t seed) : seed_(seed) {}

void Generator::reseed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  draws_ = 0;
}

uint64_t Generator::NextKey() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ir::SplitMix64(seed_ ^ ir::SplitMix64(draws_++));
}

Array Generator::uniform(const Shape& shape, double low, double high, DType dtype) {
  CheckRealFloat("uniform", dtype);
  Array u = UnitUniform(shape, NextKey(), dtype);
  return astype(u * (high - low) + low, dtype);
}

Array Generator::normal(const Shape& shape, double mean, double stddev, DType dtype) {
  CheckRealFloat("normal", dtype);
  // As NumPy: a negative (or NaN) scale is the caller's mistake, not a mirrored draw.
  if (!(stddev >= 0)) {
    detail::ThrowInvalid(
        absl::StrCat("random::normal: the scale (stddev) must be >= 0, got ", stddev));
  }
  const DType compute = dtype == float64 ? float64 : float32;
  // Box-Muller on two independent draws; 1 - u1 lies in (0, 1], so the log is finite.
  Array u1 = UnitUniform(shape, NextKey(), compute);
  Array u2 = UnitUniform(shape, NextKey(), compute);
  Array radius = sqrt(-2.0 * log(1.0 - u1));
  Array z = radius * cos(u2 * (2.0 * std::numbers::pi));
  return astype(z * stddev + mean, dtype);
}

Array Generator::integers(int64_t low, int64_t high, const Shape& shape, DType dtype) {
  const ir::DType d = detail::ToIr(dtype);
  if (!ir::IsInteger(d)) {
    detail::ThrowInvalid(
        absl::StrCat("integers: dtype must be an integer type, got ", dtype_name(dtype)));
  }
  if (high <= low) {
    detail::ThrowInvalid(absl::StrCat("integers: low ", low, " must be below high ", high));
  }
  for (int64_t bound : {low, high - 1}) {
    if (absl::Status s = ir::CheckWeakIntFits(bound, d); !s.ok()) {
      detail::ThrowInvalid(absl::StrCat("integers: ", s.message()));
    }
  }
  // bits mod range is biased by at most range / 2^64, far below any test's resolution.
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  Array offset = RandomBits(shape, NextKey()) % range;
  return astype(astype(offset, int64) + low, dtype);
}

namespace {
Generator& GlobalGenerator() {
  static Generator* generator = new Generator(0);  // never destroyed: usable at exit
  return *generator;
}
}  // namespace

void seed(uint64_t value) { GlobalGenerator().reseed(value); }

Array uniform(const Shape& shape, double low, double high, DType dtype) {
  return GlobalGenerator().uniform(shape, low, high, dtype);
}
Array normal(const Shape& shape, double mean, double stddev, DType dtype) {
  return GlobalGenerator().normal(shape, mean, stddev, dtype);
}
Array integers(int64_t low, int64_t high, const Shape& shape, DType dtype) {
  return GlobalGenerator().integers(low, high, shape, dtype);
}

}  // namespace gpuc::random
