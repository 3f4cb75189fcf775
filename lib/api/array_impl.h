//===- array_impl.h - What an Array handle points to ----------------------===//
//
// An ArrayImpl holds the array's current node: a recorded expression while pending, and after
// evaluation a bound parameter (ir::Node::CreateBound) whose Buffer holds the values, so graphs
// recorded later read it as an input. Evaluation replaces the node in place; every handle to
// the same ArrayImpl then sees the stored value.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_API_ARRAY_IMPL_H_
#define GPUC_LIB_API_ARRAY_IMPL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "gpuc/array.h"
#include "ir/host_tensor.h"
#include "ir/node.h"
#include "lib/exec/buffer.h"

namespace gpuc::detail {

/// The storage of an evaluated array (host memory, device memory or both).
using Buffer = exec::Buffer;

struct ArrayImpl {
  ir::NodeRef node;
  /// node->shape() as the public Shape type, so Array::shape() can return a reference.
  Shape shape;
  /// The longest chain of pending ops behind this array and an upper bound on their number
  /// (shared subexpressions count once per use); both 0 once evaluated. They drive the
  /// automatic evaluation limits.
  int64_t pending_depth = 0;
  int64_t pending_nodes = 0;
  /// Depends on a placeholder of a gpuc::compile trace: cannot be evaluated on its own.
  bool traced = false;

  bool evaluated() const { return node->binding() != nullptr; }
  const Buffer& buffer() const { return static_cast<const Buffer&>(*node->binding()); }
  /// The values in host memory (copied from the device on first use); throws gpuc::Error if
  /// that copy reports a fault.
  const ir::HostTensor& host_tensor() const;
};

/// A new pending array for `node`, with limits bookkeeping from its operands.
std::shared_ptr<ArrayImpl> MakePending(ir::NodeRef node,
                                       absl::Span<const ArrayImpl* const> operands);
/// A new evaluated array over `tensor`.
std::shared_ptr<ArrayImpl> MakeEvaluated(ir::HostTensor tensor);
/// Rebinds `impl` to the values in `tensor` (evaluation's last step).
void BindResult(ArrayImpl& impl, ir::HostTensor tensor);
void BindResult(ArrayImpl& impl, std::shared_ptr<const Buffer> buffer);

/// The impl of a public handle; throws gpuc::Error for an empty handle used by `op`.
ArrayImpl& ImplOf(const Array& a, const char* op);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_API_ARRAY_IMPL_H_
