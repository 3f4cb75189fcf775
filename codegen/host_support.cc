//===- host_support.cc - Functions generated host code calls --------------===//
#include "codegen/host_support.h"

#include <cstdint>
#include <cstring>

#include "codegen/value_lowering.h"
#include "ir/elementwise_semantics.h"
#include "ir/half.h"
#include "ir/wide_value.h"

namespace {

using gpuc::ir::DType;
using gpuc::ir::OpCode;
using gpuc::ir::WideValue;

extern "C" float gpuc_rt_half_to_float(uint32_t bits) {
  return static_cast<float>(gpuc::ir::HalfBitsToDouble(static_cast<uint16_t>(bits)));
}

extern "C" uint32_t gpuc_rt_float_to_half(float value) { return gpuc::ir::DoubleToHalfBits(value); }

extern "C" uint32_t gpuc_rt_double_to_half(double value) {
  return gpuc::ir::DoubleToHalfBits(value);
}

extern "C" uint32_t gpuc_rt_double_to_bfloat16(double value) {
  return gpuc::ir::DoubleToBFloat16Bits(value);
}

/// One element of `op`, exactly as interp::EvalElementwiseNode computes it.
extern "C" void gpuc_rt_elementwise(int32_t op, int32_t loop, int32_t result_dtype,
                                    int32_t num_args, const int32_t* arg_dtypes,
                                    const void* const* args, void* out) {
  const auto code = static_cast<OpCode>(op);
  WideValue values[3];
  for (int i = 0; i < num_args; ++i) {
    values[i] = gpuc::ir::LoadElement(static_cast<DType>(arg_dtypes[i]),
                                      static_cast<const std::byte*>(args[i]));
    values[i] = gpuc::ir::ConvertTo(static_cast<DType>(loop), values[i]);
  }
  const WideValue result = gpuc::ir::EvalElementwise(
      code, static_cast<DType>(loop), absl::MakeConstSpan(values, static_cast<size_t>(num_args)));
  gpuc::ir::StoreElement(static_cast<DType>(result_dtype), static_cast<std::byte*>(out), result);
}

}  // namespace

namespace gpuc::codegen {

std::vector<std::pair<const char*, void*>> HostSupportSymbols() {
  return {
      {kHalfToFloat, reinterpret_cast<void*>(&gpuc_rt_half_to_float)},
      {kFloatToHalf, reinterpret_cast<void*>(&gpuc_rt_float_to_half)},
      {kDoubleToHalf, reinterpret_cast<void*>(&gpuc_rt_double_to_half)},
      {kDoubleToBFloat16, reinterpret_cast<void*>(&gpuc_rt_double_to_bfloat16)},
      {kElementwiseHelper, reinterpret_cast<void*>(&gpuc_rt_elementwise)},
  };
}

}  // namespace gpuc::codegen
