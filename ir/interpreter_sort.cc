//===- interpreter_sort.cc - sort and argsort, the reference --------------===//
#include <algorithm>
#include <numeric>
#include <vector>

#include "ir/interpreter_kernels.h"
#include "ir/sort_order.h"
#include "ir/wide_value.h"

namespace gpuc::ir::interp {
namespace {

bool WideSortsBefore(const WideValue& a, const WideValue& b) {
  switch (a.domain) {
    case DTypeKind::kBool:
      return SortsBefore(a.b, b.b);
    case DTypeKind::kSigned:
      return SortsBefore(a.i, b.i);
    case DTypeKind::kUnsigned:
      return SortsBefore(a.u, b.u);
    case DTypeKind::kFloat:
      return SortsBefore(a.f, b.f);
    default:
      return SortsBefore(a.c, b.c);
  }
}

}  // namespace

HostTensor EvalSortNode(const Node& node, const HostTensor& input) {
  HostTensor out(node.type());
  const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
  const Shape& shape = input.shape();
  const DType dtype = input.dtype();
  const auto [extent, inner, outer] = LinesAlong(shape, axis);
  std::vector<WideValue> line(static_cast<size_t>(extent));
  std::vector<int64_t> order(static_cast<size_t>(extent));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * extent * inner + in;
      for (int64_t k = 0; k < extent; ++k) {
        line[k] = LoadElement(dtype, input.element(base + k * inner));
      }
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return WideSortsBefore(line[a], line[b]); });
      for (int64_t k = 0; k < extent; ++k) {
        std::byte* to = out.element(base + k * inner);
        if (node.op() == OpCode::kSort) {
          StoreElement(dtype, to, line[order[k]]);
        } else {
          StoreElement(DType::kInt64, to, WideValue::Signed(order[k]));
        }
      }
    }
  }
  return out;
}

}  // namespace gpuc::ir::interp
