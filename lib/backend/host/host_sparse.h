//===- host_sparse.h - spmv nodes on the host as a typed CSR loop ---------===//
//
// The spmv library node on the host: one pass over the CSR rows in the node's own element
// type (float, double or their complex types; i32 or i64 indices), for a vector or a
// row-major matrix of right-hand sides, with the interpreter's structure checks and error
// messages (a bad offset or column index is an error, never a read out of bounds). Other
// dtype mixes go to the interpreter, which stays the reference (host_backend tests).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_SPARSE_H_
#define GPUC_LIB_BACKEND_HOST_HOST_SPARSE_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::detail {

/// Whether HostSpmv computes `node` (an spmv whose values, x and result share a floating or
/// complex dtype).
bool HostSparseHandles(const ir::Node& node);

/// `node` applied to (values, col_indices, row_offsets, x).
absl::StatusOr<ir::HostTensor> HostSpmv(const ir::Node& node,
                                        absl::Span<const ir::HostTensor* const> operands);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_SPARSE_H_
