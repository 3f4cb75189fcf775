//===- recorder.cc - Recording IR nodes behind the public API -------------===//
#include "lib/api/recorder.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/host_tensor.h"
#include "ir/type_inference.h"
#include "ir/wide_value.h"
#include "lib/api/array_impl.h"
#include "lib/api/status_to_error.h"
#include "lib/eval/evaluator.h"

namespace gpuc::detail {

ir::Shape ToIrShape(const Shape& shape) { return ir::Shape(shape); }

namespace {

thread_local const std::source_location* t_recording_site = nullptr;
// Counts the calls into gpuc from user code on this thread (outermost recording sites), so
// that the ops of one call (gpuc::var records several at one site) are told apart from a
// statement that runs again.
thread_local uint64_t t_user_call = 0;

// Loop detection: what each user site recorded last, and in which call. A site that records
// again in a later call while that node is still alive (part of a pending graph or a pending
// array) is a statement of a loop running its next iteration over pending values.
struct SiteRecord {
  uint64_t call = 0;
  std::weak_ptr<const ir::Node> node;
};
using SiteKey = std::tuple<const char*, uint_least32_t, uint_least32_t>;

absl::node_hash_map<SiteKey, SiteRecord>& ThreadSiteRecords() {
  thread_local absl::node_hash_map<SiteKey, SiteRecord> records;
  return records;
}

// Whether `node` is one of `operands`' nodes or their operands. An expression nested in
// another can start at the same column (in `a - b + c` both ops are recorded at a's), so
// a site recording again over its own recent result is one statement, not a loop.
bool IsNearOperand(const ir::Node* node, const std::vector<Array>& operands) {
  for (const Array& a : operands) {
    const ir::Node* o = a.impl() ? a.impl()->node.get() : nullptr;
    if (o == nullptr) continue;
    if (o == node) return true;
    for (const ir::NodeRef& oo : o->operands()) {
      if (oo.get() == node) return true;
    }
  }
  return false;
}

SiteKey CurrentSiteKey() {
  return {t_recording_site->file_name(), t_recording_site->line(), t_recording_site->column()};
}

// gpuc's own front-end sources all live beside this file; a site inside them is not user code.
bool IsInsideGpuc(const std::source_location& site) {
  static const std::string lib_dir = [] {
    std::string here = std::source_location::current().file_name();
    return here.substr(0, here.find_last_of('/') + 1);
  }();
  return absl::string_view(site.file_name()).substr(0, lib_dir.size()) == lib_dir;
}

}  // namespace

ScopedRecordingSite::ScopedRecordingSite(const std::source_location& site) {
  if (t_recording_site != nullptr || IsInsideGpuc(site)) return;
  t_recording_site = &site;
  ++t_user_call;
  installed_ = true;
}

ScopedRecordingSite::~ScopedRecordingSite() {
  if (installed_) t_recording_site = nullptr;
}

std::string CurrentRecordingSite() { return std::string(CurrentRecordingSiteText()); }

absl::string_view CurrentRecordingSiteText() {
  if (t_recording_site == nullptr) return "";
  // Formatted once per site and thread: ops are recorded at a few sites many times over, and
  // often at the same one several times in a row (the last one answers without a lookup).
  const std::pair<const char*, uint_least32_t> key = {t_recording_site->file_name(),
                                                      t_recording_site->line()};
  thread_local std::pair<const char*, uint_least32_t> last_key = {nullptr, 0};
  thread_local absl::string_view last_text;
  if (key == last_key) return last_text;
  // Node-based: the texts handed out must not move when the map grows.
  thread_local absl::node_hash_map<std::pair<const char*, uint_least32_t>, std::string> texts;
  auto [it, inserted] = texts.try_emplace(key);
  if (inserted) it->second = absl::StrCat(key.first, ":", key.second);
  last_key = key;
  last_text = it->second;
  return last_text;
}

void ThrowInvalid(const std::string& message) {
  const std::string site = CurrentRecordingSite();
  throw Error("invalid_argument",
              site.empty() ? message : absl::StrCat(message, " (at ", site, ")"));
}

Array Record(ir::OpCode op, const std::vector<Array>& operands, ir::Attributes attrs,
             std::optional<ir::TensorType> requested) {
  // The site's record, found once: node-based, so the pointer stays valid while the cut below
  // runs.
  SiteRecord* site_record =
      t_recording_site != nullptr ? &ThreadSiteRecords()[CurrentSiteKey()] : nullptr;
  if (site_record != nullptr && site_record->call != 0 && site_record->call != t_user_call) {
    std::shared_ptr<const ir::Node> previous = site_record->node.lock();
    if (previous && !IsNearOperand(previous.get(), operands)) {
      bool traced = false;
      for (const Array& a : operands) traced = traced || ImplOf(a, ir::OpName(op).data()).traced;
      // Dropped before the cut: a reference held here would make the evaluation see the
      // previous step's node as held outside its graph, and its write could not go in place.
      previous.reset();
      if (!traced) EvaluateLoopStep(CurrentRecordingSiteText());
    }
  }
  absl::InlinedVector<ir::TensorType, 3> types;
  std::vector<ir::NodeRef> nodes;
  absl::InlinedVector<const ArrayImpl*, 3> impls;
  nodes.reserve(operands.size());
  for (const Array& a : operands) {
    ArrayImpl& impl = ImplOf(a, ir::OpName(op).data());
    types.push_back(impl.node->type());
    nodes.push_back(impl.node);
    impls.push_back(&impl);
  }
  absl::StatusOr<ir::TensorType> type = ir::InferResultType(op, types, attrs, requested);
  if (!type.ok()) {
    // The typing rule names the op and the offending shapes; the operand types complete it.
    std::vector<std::string> operand_types;
    for (const ir::TensorType& t : types) operand_types.push_back(t.ToString());
    ThrowInvalid(
        absl::StrCat(type.status().message(), "; operands ", absl::StrJoin(operand_types, ", ")));
  }
  ir::NodeRef node = ir::Node::Create(op, *std::move(type), std::move(nodes), std::move(attrs),
                                      /*name=*/"", CurrentRecordingSiteText());
  if (site_record != nullptr) *site_record = {t_user_call, node};
  std::shared_ptr<ArrayImpl> impl = MakePending(std::move(node), impls);
  NotePending(impl);
  EvaluateIfPastLimits(*impl);
  return Array(std::move(impl));
}

DType DefaultDType(const Scalar& value) {
  switch (value.kind()) {
    case Scalar::Kind::kBool:
      return bool_;
    case Scalar::Kind::kInt:
      return int64;
    case Scalar::Kind::kUInt:
      return value.uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? uint64
                 : int64;
    case Scalar::Kind::kFloat:
      return float64;
    case Scalar::Kind::kComplex:
      return complex128;
  }
  return float64;
}

ir::AttrValue ScalarAttrValue(const Scalar& value) {
  switch (value.kind()) {
    case Scalar::Kind::kBool:
      return value.int_value() != 0;
    case Scalar::Kind::kInt:
      return value.int_value();
    case Scalar::Kind::kUInt:
      // The constant op stores integers as int64; a uint64 past int64's range keeps its bit
      // pattern, which the conversion to a uint64 constant restores.
      return static_cast<int64_t>(value.uint_value());
    case Scalar::Kind::kFloat:
      return value.float_value();
    case Scalar::Kind::kComplex:
      return value.complex_value();
  }
  return int64_t{0};
}

namespace {

bool IsComparison(ir::OpCode op) {
  return op == ir::OpCode::kEq || op == ir::OpCode::kNe || op == ir::OpCode::kLt ||
         op == ir::OpCode::kLe || op == ir::OpCode::kGt || op == ir::OpCode::kGe;
}

/// The dtype a weak scalar takes next to arrays whose promoted dtype is `array_dtype`.
DType WeakDType(ir::OpCode op, const Scalar& s, DType array_dtype) {
  const ir::DType a = ToIr(array_dtype);
  switch (s.kind()) {
    case Scalar::Kind::kBool:
      return array_dtype;
    case Scalar::Kind::kInt:
    case Scalar::Kind::kUInt: {
      const ir::DType target = ir::PromoteWithWeakScalar(a, ir::WeakScalar::kInt);
      const bool huge = s.kind() == Scalar::Kind::kUInt &&
                        s.uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      absl::Status fits = huge ? (target == ir::DType::kUInt64 || ir::IsInexact(target)
                                      ? absl::OkStatus()
                                      : absl::InvalidArgumentError(absl::StrCat(
                                            "integer scalar ", s.uint_value(),
                                            " is out of bounds for ", ir::DTypeNumpyName(target))))
                               : ir::CheckWeakIntFits(s.kind() == Scalar::Kind::kInt
                                                          ? s.int_value()
                                                          : static_cast<int64_t>(s.uint_value()),
                                                      target);
      if (fits.ok()) return FromIr(target);
      // NumPy 2 compares an integer array with any Python integer exactly (uint8 < 300 is
      // true); comparing in the scalar's own default type gives the same answer.
      if (IsComparison(op)) return DefaultDType(s);
      ThrowInvalid(absl::StrCat(ir::OpName(op), ": ", fits.message()));
    }
    case Scalar::Kind::kFloat:
      return FromIr(ir::PromoteWithWeakScalar(a, ir::WeakScalar::kFloat));
    case Scalar::Kind::kComplex:
      return FromIr(ir::PromoteWithWeakScalar(a, ir::WeakScalar::kComplex));
  }
  return array_dtype;
}

}  // namespace

namespace {

// Whether a scalar of this value is a runtime value (decision 11): an argument of the plan, not
// part of its structure. Zero and one stay constants, because the rewrites that depend on a
// value (x + 0, x * 1, x / 1, x | 0) fire only on them: a plan specializes on exactly the
// values that change its code, and the structural key sees them as constants.
bool IsRuntimeValue(const ir::WideValue& v) {
  switch (v.domain) {
    case ir::DTypeKind::kSigned:
      return v.i != 0 && v.i != 1;
    case ir::DTypeKind::kUnsigned:
      return v.u != 0 && v.u != 1;
    case ir::DTypeKind::kFloat:
      return v.f != 0 && v.f != 1;
    default:
      return false;  // bool has no other values; complex scalars stay constants
  }
}

}  // namespace

Array Constant(const Scalar& value, DType dtype, const Shape& shape) {
  ir::Attributes attrs;
  attrs.Set("value", ScalarAttrValue(value));
  ir::TensorType type{ToIr(dtype), ToIrShape(shape)};
  // A C++ scalar, gpuc::scalar(v) or gpuc::full's value changes from one loop iteration to
  // the next: it is recorded as a stored 0-d array (broadcast to the shape), which evaluation
  // passes to the plan as an input, so the plan and its kernels are found by structure
  // whatever the value.
  const ir::WideValue converted = ir::ConvertTo(type.dtype, *ir::ScalarAttribute(attrs));
  if (IsRuntimeValue(converted)) {
    ir::HostTensor tensor(ir::TensorType{type.dtype, ir::Shape()});
    ir::StoreElement(type.dtype, tensor.element(0), converted);
    Array value(MakeEvaluated(std::move(tensor)));
    return type.shape.rank() == 0 ? value : Broadcast(value, shape);
  }
  return Record(ir::OpCode::kConstant, {}, std::move(attrs), std::move(type));
}

std::vector<Array> ResolveOperands(ir::OpCode op, const std::vector<const Operand*>& operands) {
  std::optional<ir::DType> array_dtype;
  for (const Operand* o : operands) {
    if (o->is_scalar()) continue;
    const ir::DType d = ImplOf(Array(o->array_impl()), ir::OpName(op).data()).node->dtype();
    array_dtype = array_dtype ? ir::PromoteTypes(*array_dtype, d) : d;
  }
  std::vector<Array> out;
  out.reserve(operands.size());
  for (const Operand* o : operands) {
    if (!o->is_scalar()) {
      out.emplace_back(o->array_impl());
    } else if (array_dtype) {
      out.push_back(Constant(o->scalar(), WeakDType(op, o->scalar(), FromIr(*array_dtype))));
    } else {
      out.push_back(Constant(o->scalar(), DefaultDType(o->scalar())));
    }
  }
  return out;
}

Array Binary(ir::OpCode op, const Operand& a, const Operand& b) {
  ScopedRecordingSite site_a(a.site());  // the first of the two outside gpuc counts
  ScopedRecordingSite site_b(b.site());
  return Record(op, ResolveOperands(op, {&a, &b}));
}

Array Reshaped(const Array& a, const Shape& shape) {
  const ArrayImpl& impl = ImplOf(a, "reshape");
  if (impl.shape == shape) return a;
  return Record(ir::OpCode::kReshape, {a}, {},
                ir::TensorType{impl.node->dtype(), ToIrShape(shape)});
}

Array Broadcast(const Array& a, const Shape& shape) {
  const ArrayImpl& impl = ImplOf(a, "broadcast_to");
  if (impl.shape == shape) return a;
  if (absl::Status s = ir::ValidateShape(ToIrShape(shape)); !s.ok()) {
    ThrowInvalid(absl::StrCat("broadcast_to: ", s.message()));
  }
  return Record(ir::OpCode::kBroadcastTo, {a}, {},
                ir::TensorType{impl.node->dtype(), ToIrShape(shape)});
}

Array Cast(const Array& a, DType dtype) {
  const ArrayImpl& impl = ImplOf(a, "astype");
  if (impl.node->dtype() == ToIr(dtype)) return a;
  return Record(ir::OpCode::kCast, {a}, {}, ir::TensorType{ToIr(dtype), impl.node->shape()});
}

int64_t NormalizeAxisOrThrow(const char* op, int64_t axis, int rank) {
  absl::StatusOr<int> normalized = ir::NormalizeAxis(axis, rank);
  if (!normalized.ok()) ThrowInvalid(absl::StrCat(op, ": ", normalized.status().message()));
  return *normalized;
}

std::vector<int64_t> NormalizeAxesOrThrow(const char* op, const std::vector<int64_t>& axes,
                                          int rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) out.push_back(NormalizeAxisOrThrow(op, a, rank));
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i] == out[i - 1]) ThrowInvalid(absl::StrCat(op, ": repeated axis ", out[i]));
  }
  return out;
}

}  // namespace gpuc::detail
