//===- recorder.h - Recording IR nodes behind the public API --------------===//
//
// Every public op ends here: the operand types go through ir::InferResultType (the one typing
// rule), so a shape or dtype mistake throws gpuc::Error at the call that made it; the new node
// is wrapped in a pending ArrayImpl; and a pending graph past the auto-evaluation limits is
// evaluated on the spot.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_API_RECORDER_H_
#define GPUC_LIB_API_RECORDER_H_

#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gpuc/array.h"
#include "ir/attributes.h"
#include "ir/dtype.h"
#include "ir/node.h"
#include "ir/op.h"
#include "ir/shape.h"
#include "lib/api/array_impl.h"

namespace gpuc::detail {

inline ir::DType ToIr(DType d) { return static_cast<ir::DType>(d); }
inline DType FromIr(ir::DType d) { return static_cast<DType>(d); }
ir::Shape ToIrShape(const Shape& shape);

/// Marks the user code that is recording ops on this thread, so that the nodes (and errors) can
/// name it. Only the outermost site outside gpuc's own sources counts: gpuc::var calling
/// operators internally must not make those nodes point into lib/.
class ScopedRecordingSite {
 public:
  explicit ScopedRecordingSite(const std::source_location& site);
  ~ScopedRecordingSite();
  ScopedRecordingSite(const ScopedRecordingSite&) = delete;
  ScopedRecordingSite& operator=(const ScopedRecordingSite&) = delete;

 private:
  bool installed_ = false;
};
/// "file.cc:12" of the innermost ScopedRecordingSite, or "" when there is none.
std::string CurrentRecordingSite();
/// The same text, formatted once per site; valid until the thread ends.
absl::string_view CurrentRecordingSiteText();

/// Throws gpuc::Error(invalid_argument) with `message`, plus the recording site when known.
[[noreturn]] void ThrowInvalid(const std::string& message);

/// Records `op` over `operands` (after the type check) and returns the new array.
Array Record(ir::OpCode op, const std::vector<Array>& operands, ir::Attributes attrs = {},
             std::optional<ir::TensorType> requested = std::nullopt);

/// A scalar as an IR attribute value (constant's and pad's "value").
ir::AttrValue ScalarAttrValue(const Scalar& value);

/// A constant array of `shape` filled with `value`, converted to `dtype`.
Array Constant(const Scalar& value, DType dtype, const Shape& shape = {});
/// The scalar's default dtype when it stands alone: bool, int64 (uint64 past int64's range),
/// float64 or complex128.
DType DefaultDType(const Scalar& value);

/// Binary op with NumPy 2 promotion: a scalar against an array is weak (NEP 50) and takes the
/// array's dtype when its kind allows; two scalars are typed by their defaults.
Array Binary(ir::OpCode op, const Operand& a, const Operand& b);
/// Materializes `operands` as arrays, scalars weakly typed against the arrays among them.
std::vector<Array> ResolveOperands(ir::OpCode op, const std::vector<const Operand*>& operands);

/// A data-movement op whose result type is stated: reshape and broadcast_to.
Array Reshaped(const Array& a, const Shape& shape);
Array Broadcast(const Array& a, const Shape& shape);
Array Cast(const Array& a, DType dtype);

/// Normalizes `axis` for an array of `rank`, or throws naming `op`.
int64_t NormalizeAxisOrThrow(const char* op, int64_t axis, int rank);
/// Normalizes, sorts and checks for duplicates (NumPy: "repeated axis").
std::vector<int64_t> NormalizeAxesOrThrow(const char* op, const std::vector<int64_t>& axes,
                                          int rank);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_API_RECORDER_H_
