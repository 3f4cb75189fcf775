//===- strided_view.h - A stored tensor read through slices and reshapes --===//
//
// NumPy passes `data[:, i:]` to the BLAS as a pointer and a leading dimension; copying the
// slice first moves the whole window every call, which in a loop over a shrinking window
// (a row-by-row covariance) costs more than the product. A StridedView is such a window: the
// base tensor's storage, an element offset, and per axis an extent and an element stride.
// The host's library steps compose the views a plan left unmaterialized (fusion.h's
// `library_reads_views`) and hand them to the BLAS (host_blas.h), copying only when the BLAS
// cannot take the strides.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_STRIDED_VIEW_H_
#define GPUC_LIB_BACKEND_HOST_STRIDED_VIEW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::detail {

struct StridedView {
  ir::HostTensor base;                  // shares the storage
  int64_t offset = 0;                   // elements from base.data()
  std::vector<int64_t> shape, strides;  // strides in elements, every one >= 0

  /// The whole of `t`, row-major.
  static StridedView Whole(const ir::HostTensor& t);
  const std::byte* data() const { return base.element(offset); }
};

/// The view `node` (ir::IsStridedViewOp, its attributes already placed at the run's positions)
/// makes of `of`, or nothing when strides cannot express it (a reshape merging axes that are
/// not adjacent in memory).
std::optional<StridedView> ApplyView(const ir::Node& node, const StridedView& of);

/// The view's elements copied into row-major storage of its own.
ir::HostTensor Materialize(const StridedView& view);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_STRIDED_VIEW_H_
