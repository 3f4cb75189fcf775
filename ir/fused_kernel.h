//===- fused_kernel.h - One kernel of a fusion plan -----------------------===//
//
// What fusion (passes/fusion.h) hands to code generation (codegen/kernel_spec.h) and to the
// executors: the nodes one generated kernel computes, the values it reads from outside and
// the ones it writes for others. It lives in the IR layer because both sides read it and
// neither may include the other.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_FUSED_KERNEL_H_
#define GPUC_IR_FUSED_KERNEL_H_

#include <cstdint>
#include <vector>

#include "ir/node.h"
#include "ir/shape.h"

namespace gpuc::ir {

enum class KernelKind : uint8_t {
  kLoop,             // elementwise over the output shape
  kRowReduction,     // reductions over trailing axes (each row independent)
  kColumnReduction,  // reductions over leading or interior axes
  kFullReduction,    // reductions over every axis
  kLibrary,          // one library op (matmul, fft, spmv)
  kScan,             // one cumulative op
};
const char* KernelKindName(KernelKind kind);

struct FusedKernel {
  KernelKind kind = KernelKind::kLoop;
  /// The members in graph order. A cheap producer recomputed in several kernels is a member
  /// of each.
  std::vector<ir::NodeRef> nodes;
  /// Values the kernel reads from outside: parameters and other kernels' outputs.
  std::vector<ir::NodeRef> inputs;
  /// Members other kernels or the graph's results read.
  std::vector<ir::NodeRef> outputs;
  /// For reduction kernels: the shape reduced and the axes reduced.
  ir::Shape reduced_shape;
  std::vector<int64_t> reduced_axes;
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_FUSED_KERNEL_H_
