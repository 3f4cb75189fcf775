//===- host_scan.h - cumsum and cumprod on the host, typed and threaded ---===//
//
// The host back end's scan nodes: each element converted to the result dtype (NumPy's
// accumulator: int64 for bools and signed integers, uint64 for unsigned ones, the dtype
// otherwise) and combined in order along the axis, as np.add.accumulate does; the lines that
// sit side by side in memory advance together (one pass over each row of the axis), the
// outer blocks over the thread pool. Complex products keep the interpreter's definition.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_SCAN_H_
#define GPUC_LIB_BACKEND_HOST_HOST_SCAN_H_

#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::detail {

/// Whether HostScan computes `node` (a cumsum or cumprod it has a typed loop for).
bool HostScanHandles(const ir::Node& node);

/// `node` (HostScanHandles) of `input`.
ir::HostTensor HostScan(const ir::Node& node, const ir::HostTensor& input);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_SCAN_H_
