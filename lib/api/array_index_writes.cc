//===- array_index_writes.cc - a.at(indices) and a.at(mask) ---------------===//
//
// Updates through an array index. Integer indices select along axis 0, as NumPy's a[idx]:
// get is take, and the writes record scatter, whose combiners apply once per index in the
// values' row-major order, so a repeated index accumulates like np.add.at (JAX's
// a.at[idx].add does the same); set keeps the last value written at a repeated index.
// A bool mask of the shape of a's leading axes selects elements, as NumPy's a[mask]; its
// writes are where(mask, new, a), one fused elementwise kernel. Reading a[mask] has a
// data-dependent shape, which a lazy array cannot have: that is an error that says what to
// write instead.
//
//===----------------------------------------------------------------------===//
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpuc/array.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/api/setitem.h"

namespace gpuc {
namespace {

bool IsBool(const Array& a) { return a.dtype() == bool_; }

/// The mask broadcast over `base` (its trailing axes), after checking NumPy's rule that a
/// boolean index matches the leading axes it covers.
Array MaskOver(const char* op, const Array& mask, const Array& base) {
  const Shape& m = mask.shape();
  const Shape& b = base.shape();
  if (m.empty() || m.size() > b.size()) {
    detail::ThrowInvalid(absl::StrCat(
        op, ": a boolean index of shape ", detail::NumpyShapeText(m), " must cover 1 to ", b.size(),
        " leading axes of the array of shape ", detail::NumpyShapeText(b)));
  }
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] != b[i]) {
      detail::ThrowInvalid(absl::StrCat(
          op, ": boolean index did not match indexed array along dimension ", i, "; dimension is ",
          b[i], " but corresponding boolean dimension is ", m[i], " (array of shape ",
          detail::NumpyShapeText(b), ", mask of shape ", detail::NumpyShapeText(m), ")"));
    }
  }
  Shape padded = m;
  padded.resize(b.size(), 1);
  return detail::Broadcast(detail::Reshaped(mask, padded), b);
}

const char* CombinerOf(const char* name) {
  const std::string n = name;
  if (n == "set") return "set";
  if (n == "add") return "add";
  if (n == "subtract") return "sub";
  if (n == "multiply") return "mul";
  if (n == "divide") return "div";
  if (n == "min") return "minimum";
  if (n == "max") return "maximum";
  return nullptr;
}

}  // namespace

Array IndexedUpdate::get_by_array() const {
  const Array& index = *array_index_;
  if (IsBool(index)) {
    MaskOver("get", index, base_);  // the same checks as a write, before the advice
    detail::ThrowInvalid(absl::StrCat(
        "get: a[mask] of an array of shape ", detail::NumpyShapeText(base_.shape()),
        " has as many elements as the mask has true ones, known only when it is evaluated; "
        "a lazy array's shape is known when it is recorded. Write where(mask, a, 0) (or a "
        "reduction of it, e.g. sum(where(mask, a, 0))) instead"));
  }
  return take(base_, index, 0);
}

Array IndexedUpdate::write_by_array(const char* name, Array (*op)(const Operand&, const Operand&),
                                    const Operand& value) const {
  detail::ScopedRecordingSite site(value.site());
  detail::ImplOf(base_, name);
  detail::ImplOf(*array_index_, name);
  const Array& idx = *array_index_;
  if (IsBool(idx)) {
    const Array mask = MaskOver(name, idx, base_);
    if (op == nullptr) {
      Array v = detail::SetItemValue(name, value, base_.dtype());
      v = detail::BroadcastForSetItem(name, v, base_.shape(), base_.shape());
      return where(mask, v, base_);
    }
    const Array combined = op(base_, value);
    detail::CheckCombinedWriteBack(name, combined, base_.shape(), base_.dtype());
    return where(mask, combined.astype(base_.dtype()), base_);
  }
  if (!ir::IsInteger(detail::ToIr(idx.dtype()))) {
    detail::ThrowInvalid(absl::StrCat(name, ": an array index must be integers or bool, not ",
                                      ir::DTypeNumpyName(detail::ToIr(idx.dtype()))));
  }
  if (base_.ndim() == 0) {
    detail::ThrowInvalid(absl::StrCat(name, ": a 0-d array cannot be indexed by an array"));
  }
  // What take(base, idx) reads is what the values are written over.
  Shape region = idx.shape();
  region.insert(region.end(), base_.shape().begin() + 1, base_.shape().end());
  DType loop = base_.dtype();
  if (op != nullptr) {
    // The combining op's result dtype for these operands (a weak scalar as the ufunc types
    // it); recorded only to be typed, and dropped.
    const Array probe = op(detail::Constant(0, base_.dtype()), value);
    loop = probe.dtype();
    detail::CheckSameKindWriteBack(name, loop, base_.dtype());
  }
  Array v = detail::SetItemValue(name, value, loop);
  v = detail::BroadcastForSetItem(name, v, region, base_.shape());
  ir::Attributes attrs;
  attrs.Set("axis", int64_t{0});
  attrs.Set("combiner", std::string(CombinerOf(name)));
  return detail::Record(ir::OpCode::kScatter, {base_, idx, v}, std::move(attrs));
}

}  // namespace gpuc
