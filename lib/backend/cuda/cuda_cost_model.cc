//===- cuda_cost_model.cc - Fusion's costs from a CUDA device's properties ===//
#include "lib/backend/cuda/cuda_cost_model.h"

namespace gpuc::detail {
namespace {

// An H100 SXM's figures, for a device that reports no clocks and for code generation
// without a device: 132 SMs at 1.98 GHz, 3.35 TB/s.
constexpr int kNominalMultiprocessors = 132;
constexpr double kNominalClockHz = 1.98e9;
constexpr double kNominalBytesPerSecond = 3.35e12;

// FP32 lanes per SM on every architecture since Volta (sm_70): the flops one SM issues per
// clock, an FMA counting once as the model's cheap ops do.
constexpr double kLanesPerMultiprocessor = 128;

// One more kernel in a plan: a launch queued behind the previous one (or a CUDA graph node)
// and the tail of a grid draining, about 3 us of the whole device.
constexpr double kLaunchSeconds = 3e-6;

}  // namespace

passes::CostModel CudaCostModel(const runtime::CudaDeviceProperties* device) {
  const int sms =
      device && device->multiprocessors > 0 ? device->multiprocessors : kNominalMultiprocessors;
  const double clock_hz =
      device && device->clock_khz > 0 ? device->clock_khz * 1e3 : kNominalClockHz;
  // Double data rate: two transfers per memory clock over the whole bus.
  const double bytes_per_second =
      device && device->memory_clock_khz > 0 && device->memory_bus_width_bits > 0
          ? 2.0 * device->memory_clock_khz * 1e3 * device->memory_bus_width_bits / 8
          : kNominalBytesPerSecond;
  const double flops_per_second = sms * kLanesPerMultiprocessor * clock_hz;
  passes::CostModel model;
  model.flops_per_byte = flops_per_second / bytes_per_second;
  model.launch_flops = kLaunchSeconds * flops_per_second;
  return model;
}

}  // namespace gpuc::detail
