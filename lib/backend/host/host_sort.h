//===- host_sort.h - sort and argsort on the host, typed and threaded -----===//
//
// The host back end's sort and argsort nodes: each line along the axis is copied out as
// (key, position) pairs of its C++ type (float16 and bfloat16 keyed as float), stably sorted in
// NumPy's order (ir/sort_order.h), and written back as the values or the positions; lines
// are spread over the thread pool. The interpreter's loop over generic values stays the
// reference the tests compare against.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_SORT_H_
#define GPUC_LIB_BACKEND_HOST_HOST_SORT_H_

#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::detail {

/// Whether `node` is a sort or argsort, which HostSort computes.
bool IsSortNode(const ir::Node& node);

/// `node` (a sort or argsort) of `input`.
ir::HostTensor HostSort(const ir::Node& node, const ir::HostTensor& input);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_SORT_H_
