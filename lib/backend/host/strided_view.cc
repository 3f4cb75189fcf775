//===- strided_view.cc - A stored tensor read through slices and reshapes -===//
#include "lib/backend/host/strided_view.h"

#include <cstring>

#include "ir/copy_bytes.h"
#include "ir/shape.h"

namespace gpuc::detail {
namespace {

// The strides of `to` over the storage `from_shape`/`from_strides` walk, or nothing when the
// reshape merges axes that are not adjacent in memory (NumPy's _attempt_nocopy_reshape):
// both shapes are cut into the shortest runs of equal element counts, and each old run must
// be contiguous in itself.
std::optional<std::vector<int64_t>> ReshapedStrides(const std::vector<int64_t>& from_shape,
                                                    const std::vector<int64_t>& from_strides,
                                                    const std::vector<int64_t>& to) {
  std::vector<int64_t> od, os;  // unit axes of the old shape carry no stride information
  for (size_t d = 0; d < from_shape.size(); ++d) {
    if (from_shape[d] == 1) continue;
    od.push_back(from_shape[d]);
    os.push_back(from_strides[d]);
  }
  std::vector<int64_t> ns(to.size(), 1);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < to.size() && oi < od.size()) {
    int64_t np = to[ni], op = od[oi];
    while (np != op) {
      if (np < op) {
        np *= to[nj++];
      } else {
        op *= od[oj++];
      }
    }
    for (size_t ok = oi; ok + 1 < oj; ++ok) {
      if (os[ok] != od[ok + 1] * os[ok + 1]) return std::nullopt;
    }
    ns[nj - 1] = os[oj - 1];
    for (size_t nk = nj - 1; nk > ni; --nk) ns[nk - 1] = ns[nk] * to[nk];
    ni = nj++;
    oi = oj++;
  }
  return ns;  // trailing unit axes keep stride 1: any stride reads their one element
}

}  // namespace

StridedView StridedView::Whole(const ir::HostTensor& t) {
  StridedView v;
  v.base = t;
  v.shape = t.shape().ToVector();
  v.strides = ir::ContiguousStrides(t.shape());
  return v;
}

std::optional<StridedView> ApplyView(const ir::Node& node, const StridedView& of) {
  StridedView v = of;
  const std::vector<int64_t> shape = node.shape().ToVector();
  switch (node.op()) {
    case ir::OpCode::kSlice: {
      const std::vector<int64_t>& start = *node.attrs().Get<std::vector<int64_t>>("start");
      const std::vector<int64_t>& step = *node.attrs().Get<std::vector<int64_t>>("step");
      for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] > 0) v.offset += start[d] * of.strides[d];
        v.strides[d] = of.strides[d] * step[d];
      }
      v.shape = shape;
      return v;
    }
    case ir::OpCode::kTranspose: {
      const std::vector<int64_t>& perm = *node.attrs().Get<std::vector<int64_t>>("perm");
      for (size_t d = 0; d < perm.size(); ++d) v.strides[d] = of.strides[perm[d]];
      v.shape = shape;
      return v;
    }
    case ir::OpCode::kReshape: {
      if (node.shape().num_elements() == 0) {
        v.shape = shape;
        v.strides = ir::ContiguousStrides(node.shape());
        return v;
      }
      std::optional<std::vector<int64_t>> strides = ReshapedStrides(of.shape, of.strides, shape);
      if (!strides) return std::nullopt;
      v.shape = shape;
      v.strides = *std::move(strides);
      return v;
    }
    default:
      return std::nullopt;
  }
}

ir::HostTensor Materialize(const StridedView& view) {
  ir::HostTensor out =
      ir::HostTensor::Uninitialized(ir::TensorType{view.base.dtype(), ir::Shape(view.shape)});
  const int64_t count = out.num_elements();
  if (count == 0) return out;
  const int rank = static_cast<int>(view.shape.size());
  const int64_t item = ir::DTypeSize(view.base.dtype());
  const int64_t row = rank == 0 ? 1 : view.shape[rank - 1];
  const int64_t step = rank == 0 ? 1 : view.strides[rank - 1];
  std::vector<int64_t> index(static_cast<size_t>(std::max(rank - 1, 0)), 0);
  std::byte* to = out.data();
  for (int64_t done = 0; done < count; done += row) {
    int64_t at = view.offset;
    for (int d = 0; d + 1 < rank; ++d) at += index[d] * view.strides[d];
    const std::byte* from = view.base.element(at);
    if (step == 1) {
      ir::CopyBytes(to, from, static_cast<size_t>(row * item));
    } else {
      for (int64_t k = 0; k < row; ++k) std::memcpy(to + k * item, from + k * step * item, item);
    }
    to += row * item;
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < view.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace gpuc::detail
