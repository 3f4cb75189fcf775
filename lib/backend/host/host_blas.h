//===- host_blas.h - Library ops on the host through a CPU BLAS -----------===//
//
// matmul nodes of f32, f64, complex64 and complex128 run as (batched) GEMMs through OpenBLAS's
// CBLAS interface, with NumPy's semantics: 1-D operands promoted to matrices, batch axes
// broadcast, operands converted to the result type first; f16 and bf16 as f32 GEMMs rounded
// once (NumPy's float16 matmul sums in float32). Both executors' library steps use it
// (lib/exec/plan_values.h); the interpreter's triple loop stays the reference the tests compare
// against. Integer and bool products keep the interpreter's definition.
//
// OpenBLAS (Debian's libopenblas-dev, BSD-licensed) because it is the CPU BLAS the issue names,
// it is what NumPy links on Debian, and its GEMM kernels are tuned per CPU at run time.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_BLAS_H_
#define GPUC_LIB_BACKEND_HOST_HOST_BLAS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "ir/host_tensor.h"
#include "ir/node.h"
#include "lib/backend/host/strided_view.h"

namespace gpuc::detail {

/// Whether HostMatmul computes `node` (a matmul of a dtype the BLAS has).
bool HostBlasHandles(const ir::Node& node);

/// `node` = a @ b through the BLAS; the caller checked HostBlasHandles.
absl::StatusOr<ir::HostTensor> HostMatmul(const ir::Node& node, const ir::HostTensor& a,
                                          const ir::HostTensor& b);

/// `node` = a @ b with the operands read where they lie (views a plan left unmaterialized,
/// strided_view.h), or nothing when the BLAS cannot take them as they are (a batch, a dtype
/// to convert, strides with no unit axis): the caller copies them then. The product's rank-2
/// shapes only; a 1-D operand is a row (a) or a column (b) of its stride.
absl::StatusOr<std::optional<ir::HostTensor>> HostMatmulOfViews(const ir::Node& node,
                                                                const StridedView& a,
                                                                const StridedView& b);

/// A matmul_bias node: the GEMM through the BLAS, then the bias row and the activation in
/// the dtype, as the unfused add and maximum compute them.
absl::StatusOr<ir::HostTensor> HostMatmulBias(const ir::Node& node, const ir::HostTensor& a,
                                              const ir::HostTensor& b, const ir::HostTensor& bias);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_BLAS_H_
