//===- setitem.h - NumPy's conversion of a value written into an array ----===//
//
// Shared by the slice writes (lib/api/writes_api.cc) and the array-index writes
// (lib/api/array_index_writes.cc): how a value becomes what is written, as NumPy's setitem does.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_API_SETITEM_H_
#define GPUC_LIB_API_SETITEM_H_

#include <string>

#include "gpuc/array.h"

namespace gpuc::detail {

/// "(2,3)", NumPy's way of printing a shape in its messages.
std::string NumpyShapeText(const Shape& shape);

/// `value` as an array of `dtype`, NumPy setitem's conversion: unsafe casting, except that an
/// integer scalar must fit an integer dtype.
Array SetItemValue(const char* op, const Operand& value, DType dtype);

/// `v` broadcast to `target` as setitem broadcasts (leading unit axes beyond target's rank
/// are dropped first); the error names `op`, the original value's shape and `whole` (the
/// shape of the array written into).
Array BroadcastForSetItem(const char* op, Array v, const Shape& target, const Shape& whole);

/// Whether `combined` (the result of a combining op) may be cast back to `dtype` under
/// 'same_kind'; throws naming `op` if not.
void CheckSameKindWriteBack(const char* op, DType combined, DType dtype);
/// NumPy's checks on `region op= value` written back into an array of `dtype`: the result
/// keeps the region's shape (the value broadcast to it, not the other way) and casts back
/// under 'same_kind'; throws naming `op` if not.
void CheckCombinedWriteBack(const char* op, const Array& combined, const Shape& region,
                            DType dtype);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_API_SETITEM_H_
