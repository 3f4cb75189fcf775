//===- host_linalg.h - linalg nodes on the host through LAPACK ------------===//
//
// The linalg library node (ir/linalg_semantics.h) on the host: each matrix of the batch
// through OpenBLAS's LAPACK in the node's own precision, as NumPy calls it — ?gesv for solve
// and inv (inv solves against the identity), ?getrf for det and slogdet, ?potrf for cholesky,
// ?syevd/?heevd for eigh and eigvalsh. Matrices are copied into column-major order and back
// (O(n^2) beside the O(n^3) routine). LAPACK's info codes become the definition's errors
// (a singular matrix, one not positive definite, eigenvalues that do not converge), naming
// the batch index.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_LINALG_H_
#define GPUC_LIB_BACKEND_HOST_HOST_LINALG_H_

#include "absl/status/statusor.h"
#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::detail {

/// `node` (a linalg node) applied to a (and b for solve).
absl::StatusOr<ir::HostTensor> HostLinalg(const ir::Node& node, const ir::HostTensor& a,
                                          const ir::HostTensor* b);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_LINALG_H_
