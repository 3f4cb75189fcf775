//===- host_superlu.h - spsolve through SuperLU ----------------------------===//
//
// spsolve nodes (ir/ops.def) on the host: SuperLU's simple driver ?gssv (the library SciPy's
// spsolve calls, with SciPy's options: COLAMD column order, the CSR arrays read as the
// transpose's CSC and solved transposed), opened at run time (libsuperlu.so.5 or later; Debian's
// libsuperlu5) like the CUDA libraries, so a machine without it still runs everything else and
// an spsolve there says what is missing. The structure is checked first (SuperLU reads indices
// unchecked) and repeated entries are summed, as SciPy's sum_duplicates does. The GPU runs
// spsolve here too: cuSOLVER's sparse LU (csrlsvlu) factors on the host as well and is
// deprecated, and NVIDIA's cuDSS is not part of the toolkit.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_SUPERLU_H_
#define GPUC_LIB_BACKEND_HOST_HOST_SUPERLU_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::detail {

/// spsolve(values, col_indices, row_offsets, b) of `node`: x with A x = b, or an error naming
/// the structure's first problem, a singular matrix, or the missing library.
absl::StatusOr<ir::HostTensor> HostSpsolve(const ir::Node& node,
                                           absl::Span<const ir::HostTensor* const> operands);

/// "SuperLU 5.3 (libsuperlu.so.5)", or why it cannot be opened, for `gpuc --info`.
std::string DescribeSuperlu();

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_SUPERLU_H_
