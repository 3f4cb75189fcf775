//===- cuda_cost_model.h - Fusion's costs from a CUDA device's properties -===//
//
// Whether to recompute a shared value or write it out once (passes/cost_model.h) depends on
// the machine balance: a GPU does tens of flops in the time it moves a byte, and one more
// kernel costs microseconds of the whole device. Both come from the device's own properties
// (SMs, clock, memory clock and bus width), so an H100 and an H200 weigh bytes differently.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_CUDA_COST_MODEL_H_
#define GPUC_LIB_BACKEND_CUDA_CUDA_COST_MODEL_H_

#include "passes/cost_model.h"
#include "runtime/cuda_driver.h"

namespace gpuc::detail {

/// The cost model of `device`; without one (code generation on a machine with no GPU), an
/// H100's figures.
passes::CostModel CudaCostModel(const runtime::CudaDeviceProperties* device);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_CUDA_COST_MODEL_H_
