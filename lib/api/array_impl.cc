//===- array_impl.cc - What an Array handle points to ---------------------===//
#include "lib/api/array_impl.h"

#include <algorithm>
#include <limits>

#include "lib/api/recorder.h"
#include "lib/api/status_to_error.h"

namespace gpuc::detail {
namespace {

Shape PublicShape(const ir::Shape& shape) { return shape.ToVector(); }

}  // namespace

std::shared_ptr<ArrayImpl> MakePending(ir::NodeRef node,
                                       absl::Span<const ArrayImpl* const> operands) {
  auto impl = std::make_shared<ArrayImpl>();
  impl->shape = PublicShape(node->shape());
  int64_t depth = 0;
  int64_t nodes = 1;
  for (const ArrayImpl* o : operands) {
    depth = std::max(depth, o->pending_depth);
    // Saturating: x = x + x doubles the bound each step.
    nodes = std::min(nodes + o->pending_nodes, std::numeric_limits<int64_t>::max() / 4);
    impl->traced = impl->traced || o->traced;
  }
  impl->pending_depth = depth + 1;
  impl->pending_nodes = nodes;
  impl->node = std::move(node);
  return impl;
}

std::shared_ptr<ArrayImpl> MakeEvaluated(ir::HostTensor tensor) {
  auto impl = std::make_shared<ArrayImpl>();
  BindResult(*impl, std::move(tensor));
  return impl;
}

void BindResult(ArrayImpl& impl, ir::HostTensor tensor) {
  BindResult(impl, std::make_shared<const Buffer>(std::move(tensor)));
}

void BindResult(ArrayImpl& impl, std::shared_ptr<const Buffer> buffer) {
  ir::TensorType type = buffer->type();
  impl.shape = PublicShape(type.shape);
  impl.node = ir::Node::CreateBound(std::move(type), std::move(buffer));
  impl.pending_depth = 0;
  impl.pending_nodes = 0;
  impl.traced = false;
}

const ir::HostTensor& ArrayImpl::host_tensor() const {
  return *internal::ValueOrThrow(buffer().Host());
}

ArrayImpl& ImplOf(const Array& a, const char* op) {
  if (!a.valid()) {
    ThrowInvalid(std::string(op) +
                 ": an empty gpuc::Array handle (default-constructed or "
                 "moved from) was used as an operand");
  }
  return *a.impl();
}

}  // namespace gpuc::detail
