//===- interpreter_scan.cc - cumsum and cumprod ---------------------------===//
#include <vector>

#include "ir/elementwise_semantics.h"
#include "ir/interpreter_kernels.h"
#include "ir/wide_value.h"

namespace gpuc::ir::interp {

HostTensor EvalScanNode(const Node& node, const HostTensor& input) {
  HostTensor out(node.type());
  const int64_t axis = *node.attrs().Get<int64_t>("axis");
  const Shape& shape = node.shape();
  const DType dtype = node.dtype();
  const OpCode step = node.op() == OpCode::kCumSum ? OpCode::kAdd : OpCode::kMul;
  const WideValue identity =
      ConvertTo(dtype, WideValue::Signed(node.op() == OpCode::kCumSum ? 0 : 1));
  // Row-major: the elements of one scan line are `stride` apart, and the lines start at every
  // (outer, inner) pair.
  const auto [extent, inner, outer] = LinesAlong(shape, static_cast<int>(axis));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      WideValue running = identity;
      for (int64_t k = 0; k < extent; ++k) {
        const int64_t offset = (o * extent + k) * inner + in;
        WideValue x = ConvertTo(dtype, LoadElement(input.dtype(), input.element(offset)));
        const WideValue args[] = {running, x};
        running = EvalElementwise(step, dtype, args);
        StoreElement(dtype, out.element(offset), running);
        // Each partial result is rounded to the dtype before the next step, as NumPy's
        // add.accumulate computes in the dtype (a float32 cumsum does not carry double sums).
        running = LoadElement(dtype, out.element(offset));
      }
    }
  }
  return out;
}

}  // namespace gpuc::ir::interp
