//===- type_inference.cc - Result types of IR operations ------------------===//
#include "ir/type_inference.h"

#include <algorithm>
#include <numeric>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/fft_semantics.h"
#include "ir/linalg_semantics.h"
#include "ir/matmul_semantics.h"
#include "ir/user_kernel_semantics.h"

namespace gpuc::ir {
namespace {

std::string DTypeList(absl::Span<const TensorType> operands) {
  return absl::StrJoin(operands, ", ", [](std::string* out, const TensorType& t) {
    absl::StrAppend(out, DTypeName(t.dtype));
  });
}

std::string TypeList(absl::Span<const TensorType> operands) {
  return absl::StrJoin(operands, ", ", [](std::string* out, const TensorType& t) {
    absl::StrAppend(out, t.ToString());
  });
}

std::string LoopList(OpCode op) {
  std::vector<absl::string_view> names;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (Contains(GetOpInfo(op).loops, static_cast<DType>(i))) {
      names.push_back(DTypeName(static_cast<DType>(i)));
    }
  }
  return absl::StrJoin(names, ", ");
}

absl::Status OpError(OpCode op, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(OpName(op), ": ", message));
}

absl::Status Prefixed(OpCode op, const absl::Status& status) {
  return OpError(op, status.message());
}

/// Selects the op's loop for these operands.
absl::StatusOr<DType> SelectLoopFor(OpCode op, absl::Span<const TensorType> operands) {
  absl::InlinedVector<DType, 4> dtypes;
  bool any_inexact = false;
  for (const TensorType& t : operands) {
    dtypes.push_back(t.dtype);
    any_inexact = any_inexact || IsInexact(t.dtype);
  }
  if (GetOpInfo(op).type_rule == TypeRule::kTrueDivide && !any_inexact) {
    dtypes = {DType::kFloat64};  // NumPy divides integers and bools in double
  }
  std::optional<DType> loop = SelectLoop(op, dtypes);
  if (!loop) {
    return OpError(op, absl::StrCat("not supported for dtype ", DTypeList(operands),
                                    " (it computes in ", LoopList(op), ")"));
  }
  return *loop;
}

absl::StatusOr<TensorType> RequireRequested(OpCode op, const std::optional<TensorType>& requested) {
  if (!requested) return OpError(op, "the result type must be given");
  if (absl::Status s = ValidateShape(requested->shape); !s.ok()) return Prefixed(op, s);
  return *requested;
}

absl::Status CheckArity(OpCode op, size_t count) {
  int arity = GetOpInfo(op).arity;
  if (arity == kVariadic) {
    if (count == 0) return OpError(op, "takes at least one operand");
    return absl::OkStatus();
  }
  if (static_cast<int>(count) != arity) {
    return OpError(
        op, absl::StrCat("takes ", arity, " operand", arity == 1 ? "" : "s", ", got ", count));
  }
  return absl::OkStatus();
}

/// Reduction axes must be valid, sorted and unique: the IR keeps one spelling per reduction.
absl::StatusOr<std::vector<int64_t>> ReductionAxes(OpCode op, const Attributes& attrs, int rank) {
  absl::StatusOr<std::vector<int64_t>> axes = attrs.GetInts("axes");
  if (!axes.ok()) return Prefixed(op, axes.status());
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t a = (*axes)[i];
    if (a < 0 || a >= rank) {
      return OpError(op, absl::StrCat("axis ", a, " is out of range for rank ", rank));
    }
    if (i > 0 && a <= (*axes)[i - 1]) {
      return OpError(
          op, absl::StrCat("axes [", absl::StrJoin(*axes, ","), "] must be sorted and unique"));
    }
  }
  return axes;
}

/// NumPy's sum/prod/cumsum dtype: bool and signed integers accumulate in int64, unsigned ones
/// in uint64, everything else in the loop dtype.
DType AccumulatorDType(DType in, DType loop) {
  if (in == DType::kBool || KindOf(in) == DTypeKind::kSigned) return DType::kInt64;
  if (KindOf(in) == DTypeKind::kUnsigned) return DType::kUInt64;
  return loop;
}

absl::StatusOr<TensorType> InferScan(OpCode op, const TensorType& in, const Attributes& attrs) {
  absl::StatusOr<int64_t> axis = attrs.GetInt("axis");
  if (!axis.ok()) return Prefixed(op, axis.status());
  if (*axis < 0 || *axis >= in.shape.rank()) {
    return OpError(op, absl::StrCat("axis ", *axis, " is out of range for ", in.ToString()));
  }
  absl::StatusOr<DType> loop = SelectLoopFor(op, {in});
  if (!loop.ok()) return loop.status();
  return TensorType{AccumulatorDType(in.dtype, *loop), in.shape};
}

absl::StatusOr<TensorType> InferTake(OpCode op, const TensorType& data, const TensorType& indices,
                                     const Attributes& attrs) {
  if (!IsInteger(indices.dtype)) {
    return OpError(op, absl::StrCat("indices must be integers, not ", DTypeName(indices.dtype)));
  }
  absl::StatusOr<int64_t> axis = attrs.GetInt("axis");
  if (!axis.ok()) return Prefixed(op, axis.status());
  if (*axis < 0 || *axis >= data.shape.rank()) {
    return OpError(op, absl::StrCat("axis ", *axis, " is out of range for ", data.ToString()));
  }
  std::vector<int64_t> dims(data.shape.dims().begin(), data.shape.dims().begin() + *axis);
  for (int64_t d : indices.shape.dims()) dims.push_back(d);
  for (int i = static_cast<int>(*axis) + 1; i < data.shape.rank(); ++i)
    dims.push_back(data.shape[i]);
  Shape shape(std::move(dims));
  if (absl::Status s = ValidateShape(shape); !s.ok()) return Prefixed(op, s);
  return TensorType{data.dtype, std::move(shape)};
}

absl::StatusOr<TensorType> InferScatter(OpCode op, const TensorType& data,
                                        const TensorType& indices, const TensorType& values,
                                        const Attributes& attrs) {
  absl::StatusOr<TensorType> region = InferTake(op, data, indices, attrs);
  if (!region.ok()) return region.status();
  if (!(values.shape == region->shape)) {
    return OpError(op, absl::StrCat("the values ", values.ToString(), " must have the shape ",
                                    region->shape.ToString(), " that take of ", data.ToString(),
                                    " at ", indices.ToString(), " has"));
  }
  absl::StatusOr<std::string> combiner = attrs.GetString("combiner");
  if (!combiner.ok()) return Prefixed(op, combiner.status());
  static constexpr absl::string_view kCombiners[] = {"set", "add",     "sub",    "mul",
                                                     "div", "minimum", "maximum"};
  if (std::find(std::begin(kCombiners), std::end(kCombiners), *combiner) == std::end(kCombiners)) {
    return OpError(op, absl::StrCat("unknown combiner '", *combiner,
                                    "' (set, add, sub, mul, div, minimum or maximum)"));
  }
  if (*combiner != "set") {
    // The combining op must accept values' dtype, and its result must round into data's.
    const std::optional<OpCode> code = ParseOpName(*combiner);
    absl::StatusOr<TensorType> combined = InferResultType(*code, {values, values}, {}, {});
    if (!combined.ok()) return Prefixed(op, combined.status());
  }
  if (absl::StatusOr<bool> wrap = attrs.GetBool("wrap", true); !wrap.ok()) {
    return Prefixed(op, wrap.status());
  }
  return data;
}

absl::StatusOr<TensorType> InferReduction(OpCode op, const TensorType& in,
                                          const Attributes& attrs) {
  absl::StatusOr<std::vector<int64_t>> axes = ReductionAxes(op, attrs, in.shape.rank());
  if (!axes.ok()) return axes.status();
  absl::StatusOr<bool> keepdims = attrs.GetBool("keepdims", false);
  if (!keepdims.ok()) return Prefixed(op, keepdims.status());
  std::vector<int64_t> dims;
  for (int i = 0; i < in.shape.rank(); ++i) {
    bool reduced = std::find(axes->begin(), axes->end(), i) != axes->end();
    if (!reduced) {
      dims.push_back(in.shape[i]);
    } else if (*keepdims) {
      dims.push_back(1);
    }
    if (reduced && in.shape[i] == 0 &&
        (op == OpCode::kReduceMin || op == OpCode::kReduceMax || op == OpCode::kArgMin ||
         op == OpCode::kArgMax)) {
      return OpError(op,
                     absl::StrCat("zero-size axis ", i, " of ", in.ToString(), " has no identity"));
    }
  }
  absl::StatusOr<DType> loop = SelectLoopFor(op, {in});
  if (!loop.ok()) return loop.status();
  DType result = *loop;
  switch (GetOpInfo(op).type_rule) {
    case TypeRule::kAccumulator:
      result = AccumulatorDType(in.dtype, result);
      break;
    case TypeRule::kBoolResult:
      result = DType::kBool;
      break;
    case TypeRule::kIndexResult:
      result = DType::kInt64;
      break;
    default:
      break;
  }
  return TensorType{result, Shape(std::move(dims))};
}

/// A user kernel's operands have exactly the dtypes its signature states (the front end
/// converted scalars); the result is the selected output's dtype over the broadcast shape.
absl::StatusOr<TensorType> InferUserElementwise(OpCode op, absl::Span<const TensorType> operands,
                                                const Attributes& attrs, const Shape& shape) {
  absl::StatusOr<UserElementwise> kernel = ReadUserElementwise(attrs);
  if (!kernel.ok()) return Prefixed(op, kernel.status());
  if (operands.size() != kernel->inputs.size()) {
    return OpError(
        op, absl::StrCat("kernel '", kernel->name, "' takes ", kernel->inputs.size(), " inputs (",
                         FormatUserParams(kernel->inputs), "), got ", operands.size()));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].dtype != kernel->inputs[i].dtype) {
      return OpError(
          op,
          absl::StrCat("kernel '", kernel->name, "': input '", kernel->inputs[i].name, "' is ",
                       DTypeNumpyName(kernel->inputs[i].dtype), ", got ", operands[i].ToString()));
    }
  }
  return TensorType{kernel->outputs[kernel->output].dtype, shape};
}

absl::StatusOr<TensorType> InferElementwise(OpCode op, absl::Span<const TensorType> operands,
                                            const Attributes& attrs,
                                            const std::optional<TensorType>& requested) {
  // Operands of one shape (the common case in a loop body) need no broadcasting.
  bool same_shapes = true;
  for (const TensorType& t : operands) same_shapes = same_shapes && t.shape == operands[0].shape;
  absl::StatusOr<Shape> shape;
  if (same_shapes && !operands.empty()) {
    shape = operands[0].shape;
  } else {
    std::vector<Shape> shapes;
    for (const TensorType& t : operands) shapes.push_back(t.shape);
    shape = BroadcastShapes(shapes);
    if (!shape.ok()) return Prefixed(op, shape.status());
  }
  const TypeRule rule = GetOpInfo(op).type_rule;
  if (rule == TypeRule::kGiven) {  // cast: any dtype to any dtype, same shape
    absl::StatusOr<TensorType> type = RequireRequested(op, requested);
    if (!type.ok()) return type;
    if (type->shape != operands[0].shape) {
      return OpError(
          op, absl::StrCat("result shape ", type->shape.ToString(), " differs from the operand's ",
                           operands[0].shape.ToString()));
    }
    return type;
  }
  if (rule == TypeRule::kUserSignature) return InferUserElementwise(op, operands, attrs, *shape);
  if (rule == TypeRule::kWhereRule) {
    if (operands[0].dtype != DType::kBool) {
      return OpError(op,
                     absl::StrCat("condition must be bool, not ", DTypeName(operands[0].dtype)));
    }
    return TensorType{PromoteTypes(operands[1].dtype, operands[2].dtype), *std::move(shape)};
  }
  absl::StatusOr<DType> loop = SelectLoopFor(op, operands);
  if (!loop.ok()) return loop.status();
  DType result = *loop;
  if (rule == TypeRule::kBoolResult) result = DType::kBool;
  if (rule == TypeRule::kRealOfLoop) result = RealPart(result);
  return TensorType{result, *std::move(shape)};
}

absl::Status CheckSameDType(OpCode op, absl::Span<const TensorType> operands) {
  for (const TensorType& t : operands) {
    if (t.dtype != operands[0].dtype) {
      return OpError(op, absl::StrCat("operands must share a dtype, got ", DTypeList(operands)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorType> InferSlice(OpCode op, const TensorType& in, const Attributes& attrs) {
  absl::StatusOr<absl::Span<const int64_t>> start = attrs.GetIntsView("start");
  absl::StatusOr<absl::Span<const int64_t>> stop = attrs.GetIntsView("stop");
  absl::StatusOr<absl::Span<const int64_t>> step = attrs.GetIntsView("step");
  for (const auto* s : {&start, &stop, &step}) {
    if (!s->ok()) return Prefixed(op, s->status());
  }
  int rank = in.shape.rank();
  if (static_cast<int>(start->size()) != rank || static_cast<int>(stop->size()) != rank ||
      static_cast<int>(step->size()) != rank) {
    return OpError(
        op, absl::StrCat("start, stop and step need ", rank, " entries for ", in.ToString()));
  }
  absl::InlinedVector<int64_t, 4> dims(rank);
  for (int i = 0; i < rank; ++i) {
    int64_t b = (*start)[i], e = (*stop)[i], s = (*step)[i], d = in.shape[i];
    // The normalized form of Python's slice.indices(d): forward slices stay in [0, d], backward
    // ones in [-1, d - 1] (stop = -1 means "through index 0").
    // |step| is bounded like an extent so that the length arithmetic cannot overflow.
    bool step_ok = s != 0 && s >= -kMaxElements && s <= kMaxElements;
    bool ok = step_ok && (s > 0 ? (b >= 0 && b <= d && e >= 0 && e <= d)
                                : (b >= -1 && b <= d - 1 && e >= -1 && e <= d - 1));
    if (!ok) {
      return OpError(op, absl::StrCat("axis ", i, ": start ", b, ", stop ", e, ", step ", s,
                                      " is not a normalized slice of extent ", d));
    }
    dims[i] = SliceLength(b, e, s);
  }
  return TensorType{in.dtype, Shape(absl::Span<const int64_t>(dims))};
}

absl::StatusOr<TensorType> InferDataMovement(OpCode op, absl::Span<const TensorType> operands,
                                             const Attributes& attrs,
                                             const std::optional<TensorType>& requested) {
  switch (op) {
    case OpCode::kBroadcastTo:
    case OpCode::kReshape: {
      absl::StatusOr<TensorType> type = RequireRequested(op, requested);
      if (!type.ok()) return type;
      const TensorType& in = operands[0];
      if (type->dtype != in.dtype) {
        return OpError(op, absl::StrCat("result dtype ", DTypeName(type->dtype),
                                        " differs from the operand's ", DTypeName(in.dtype)));
      }
      if (op == OpCode::kReshape && type->shape.num_elements() != in.shape.num_elements()) {
        return OpError(op,
                       absl::StrCat("cannot reshape ", in.ToString(), " (", in.shape.num_elements(),
                                    " elements) to ", type->shape.ToString()));
      }
      if (op == OpCode::kBroadcastTo && !BroadcastsTo(in.shape, type->shape)) {
        return OpError(
            op, absl::StrCat("cannot broadcast ", in.ToString(), " to ", type->shape.ToString()));
      }
      return type;
    }
    case OpCode::kTranspose: {
      absl::StatusOr<std::vector<int64_t>> perm = attrs.GetInts("perm");
      if (!perm.ok()) return Prefixed(op, perm.status());
      const TensorType& in = operands[0];
      std::vector<int64_t> sorted = *perm;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int64_t> identity(in.shape.rank());
      std::iota(identity.begin(), identity.end(), 0);
      if (sorted != identity) {
        return OpError(op, absl::StrCat("perm [", absl::StrJoin(*perm, ","),
                                        "] is not a permutation of the axes of ", in.ToString()));
      }
      std::vector<int64_t> dims;
      for (int64_t p : *perm) dims.push_back(in.shape[static_cast<int>(p)]);
      return TensorType{in.dtype, Shape(std::move(dims))};
    }
    case OpCode::kSlice:
      return InferSlice(op, operands[0], attrs);
    case OpCode::kUpdateSlice: {
      absl::StatusOr<TensorType> region = InferSlice(op, operands[0], attrs);
      if (!region.ok()) return region.status();
      if (operands[1].dtype != operands[0].dtype || !(operands[1].shape == region->shape)) {
        return OpError(
            op, absl::StrCat("the value ", operands[1].ToString(), " must be the region's type ",
                             region->ToString(), " of ", operands[0].ToString()));
      }
      return operands[0];
    }
    case OpCode::kTake:
      return InferTake(op, operands[0], operands[1], attrs);
    case OpCode::kConcatenate: {
      if (absl::Status s = CheckSameDType(op, operands); !s.ok()) return s;
      absl::StatusOr<int64_t> axis = attrs.GetInt("axis");
      if (!axis.ok()) return Prefixed(op, axis.status());
      const Shape& first = operands[0].shape;
      if (*axis < 0 || *axis >= first.rank()) {
        return OpError(op,
                       absl::StrCat("axis ", *axis, " is out of range for rank ", first.rank()));
      }
      std::vector<int64_t> dims = first.ToVector();
      dims[*axis] = 0;
      for (const TensorType& t : operands) {
        bool compatible = t.shape.rank() == first.rank();
        for (int i = 0; compatible && i < first.rank(); ++i) {
          compatible = i == *axis || t.shape[i] == first[i];
        }
        if (!compatible) {
          return OpError(
              op, absl::StrCat("shapes ", TypeList(operands), " differ outside axis ", *axis));
        }
        dims[*axis] += t.shape[static_cast<int>(*axis)];
        if (dims[*axis] > kMaxElements) {
          return OpError(op, absl::StrCat("the concatenated extent exceeds 2^56"));
        }
      }
      TensorType result{operands[0].dtype, Shape(std::move(dims))};
      if (absl::Status s = ValidateShape(result.shape); !s.ok()) return Prefixed(op, s);
      return result;
    }
    case OpCode::kPad: {
      absl::StatusOr<std::vector<int64_t>> low = attrs.GetInts("low");
      absl::StatusOr<std::vector<int64_t>> high = attrs.GetInts("high");
      if (!low.ok()) return Prefixed(op, low.status());
      if (!high.ok()) return Prefixed(op, high.status());
      const TensorType& in = operands[0];
      if (static_cast<int>(low->size()) != in.shape.rank() ||
          static_cast<int>(high->size()) != in.shape.rank()) {
        return OpError(op, absl::StrCat("low and high need ", in.shape.rank(), " entries for ",
                                        in.ToString()));
      }
      if (const AttrValue* v = attrs.Find("value");
          v && !std::holds_alternative<bool>(*v) && !std::holds_alternative<int64_t>(*v) &&
          !std::holds_alternative<double>(*v) &&
          !std::holds_alternative<std::complex<double>>(*v)) {
        return OpError(op,
                       absl::StrCat("attribute 'value' must be a number, not ", AttrTypeName(*v)));
      }
      std::vector<int64_t> dims = in.shape.ToVector();
      for (int i = 0; i < in.shape.rank(); ++i) {
        int64_t l = (*low)[i], h = (*high)[i];
        // Bounded so the sum cannot overflow; ValidateShape then bounds the element count.
        if (l < 0 || h < 0 || l > kMaxElements || h > kMaxElements) {
          return OpError(op, absl::StrCat("padding of axis ", i, " must be in [0, 2^56], got ", l,
                                          " and ", h));
        }
        dims[i] += l + h;
      }
      TensorType result{in.dtype, Shape(std::move(dims))};
      if (absl::Status s = ValidateShape(result.shape); !s.ok()) return Prefixed(op, s);
      return result;
    }
    case OpCode::kIota: {
      absl::StatusOr<TensorType> type = RequireRequested(op, requested);
      if (!type.ok()) return type;
      absl::StatusOr<int64_t> axis = attrs.GetInt("axis");
      if (!axis.ok()) return Prefixed(op, axis.status());
      if (*axis < 0 || *axis >= type->shape.rank()) {
        return OpError(op, absl::StrCat("axis ", *axis, " is out of range for ", type->ToString()));
      }
      if (!Contains(GetOpInfo(op).loops, type->dtype)) {
        return OpError(op, absl::StrCat("dtype ", DTypeName(type->dtype), " is not supported"));
      }
      return type;
    }
    case OpCode::kConstant: {
      absl::StatusOr<TensorType> type = RequireRequested(op, requested);
      if (!type.ok()) return type;
      const AttrValue* v = attrs.Find("value");
      if (!v) return OpError(op, "missing attribute 'value'");
      bool numeric = std::holds_alternative<bool>(*v) || std::holds_alternative<int64_t>(*v) ||
                     std::holds_alternative<double>(*v) ||
                     std::holds_alternative<std::complex<double>>(*v);
      if (!numeric) {
        return OpError(op,
                       absl::StrCat("attribute 'value' must be a number, not ", AttrTypeName(*v)));
      }
      return type;
    }
    default:
      return OpError(op, "is not a data movement op");
  }
}

absl::StatusOr<TensorType> InferMatmul(OpCode op, absl::Span<const TensorType> stored,
                                       const Attributes& attrs) {
  if (stored[0].shape.rank() == 0 || stored[1].shape.rank() == 0) {
    return OpError(op, absl::StrCat("operands must have rank >= 1, got ", TypeList(stored)));
  }
  absl::StatusOr<MatmulTransposes> transposes =
      ReadMatmulTransposes(attrs, stored[0].shape.rank(), stored[1].shape.rank());
  if (!transposes.ok()) return Prefixed(op, transposes.status());
  // The product is of the operands as the flags present them.
  const TensorType a = transposes->a ? SwapLastTwoAxes(stored[0]) : stored[0];
  const TensorType b = transposes->b ? SwapLastTwoAxes(stored[1]) : stored[1];
  const TensorType operands[] = {a, b};
  // NumPy's matmul: a 1-D operand gains a unit axis (prepended for a, appended for b) that is
  // removed from the result; leading axes are batch axes and broadcast.
  std::vector<int64_t> ad = a.shape.ToVector(), bd = b.shape.ToVector();
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  int64_t k_a = ad.back(), k_b = bd[bd.size() - 2];
  if (k_a != k_b) {
    return OpError(op, absl::StrCat("contracted extents differ: ", a.ToString(), " @ ",
                                    b.ToString(), " (", k_a, " vs ", k_b, ")"));
  }
  Shape batch_a(std::vector<int64_t>(ad.begin(), ad.end() - 2));
  Shape batch_b(std::vector<int64_t>(bd.begin(), bd.end() - 2));
  absl::StatusOr<Shape> batch = BroadcastShapes(batch_a, batch_b);
  if (!batch.ok()) {
    return OpError(op, absl::StrCat("batch axes of ", a.ToString(), " and ", b.ToString(),
                                    " do not broadcast"));
  }
  std::vector<int64_t> dims = batch->ToVector();
  if (a.shape.rank() > 1) dims.push_back(ad[ad.size() - 2]);
  if (b.shape.rank() > 1) dims.push_back(bd.back());
  absl::StatusOr<DType> loop = SelectLoopFor(op, operands);
  if (!loop.ok()) return loop.status();
  return TensorType{*loop, Shape(std::move(dims))};
}

absl::StatusOr<TensorType> InferLibrary(OpCode op, absl::Span<const TensorType> operands,
                                        const Attributes& attrs) {
  switch (op) {
    case OpCode::kMatmul:
      return InferMatmul(op, operands, attrs);
    case OpCode::kScatter:
      return InferScatter(op, operands[0], operands[1], operands[2], attrs);
    case OpCode::kFft: {
      absl::StatusOr<FftAttributes> fft = ReadFftAttributes(attrs, operands[0].shape.rank());
      if (!fft.ok()) return Prefixed(op, fft.status());
      absl::StatusOr<TensorType> type = FftResultType(*fft, operands[0]);
      if (!type.ok()) return Prefixed(op, type.status());
      return type;
    }
    case OpCode::kMatmulBias: {
      const TensorType& a = operands[0];
      const TensorType& b = operands[1];
      const TensorType& bias = operands[2];
      if (a.shape.rank() < 2 || b.shape.rank() != 2 || bias.shape.rank() != 1 ||
          a.dtype != b.dtype || bias.dtype != a.dtype ||
          (a.dtype != DType::kFloat32 && a.dtype != DType::kFloat64)) {
        return OpError(op, absl::StrCat("expects f32 or f64 a [..., m, k] and b [k, n] and a bias "
                                        "vector of their dtype; got ",
                                        TypeList(operands)));
      }
      if (absl::StatusOr<MatmulActivation> act = ReadMatmulActivation(attrs); !act.ok()) {
        return Prefixed(op, act.status());
      }
      absl::StatusOr<TensorType> product = InferMatmul(op, operands.subspan(0, 2), attrs);
      if (!product.ok()) return product.status();
      const int64_t columns = product->shape[product->shape.rank() - 1];
      if (bias.shape[0] != columns) {
        return OpError(op, absl::StrCat("bias ", bias.ToString(), " does not match the ", columns,
                                        " columns of the product"));
      }
      return product;
    }
    case OpCode::kSort:
    case OpCode::kArgSort: {
      const TensorType& a = operands[0];
      absl::StatusOr<int64_t> axis = attrs.GetInt("axis");
      if (!axis.ok()) return Prefixed(op, axis.status());
      if (*axis < 0 || *axis >= a.shape.rank()) {
        return OpError(
            op, absl::StrCat("axis ", *axis, " is out of range for ", a.ToString(),
                             a.shape.rank() == 0 ? " (a 0-d array has no axis to sort)" : ""));
      }
      if (attrs.Has("kth")) {
        absl::StatusOr<std::vector<int64_t>> kth = attrs.GetInts("kth");
        if (!kth.ok()) return Prefixed(op, kth.status());
        for (size_t i = 0; i < kth->size(); ++i) {
          if ((*kth)[i] < 0 || (*kth)[i] >= a.shape[*axis] ||
              (i > 0 && (*kth)[i] <= (*kth)[i - 1])) {
            return OpError(op, absl::StrCat("kth must be increasing positions in [0, ",
                                            a.shape[*axis], "), got ", (*kth)[i]));
          }
        }
      }
      return op == OpCode::kSort ? a : TensorType{DType::kInt64, a.shape};
    }
    case OpCode::kLinalg: {
      absl::StatusOr<LinalgRoutine> routine = ReadLinalgRoutine(attrs);
      if (!routine.ok()) return routine.status();
      return LinalgResultType(*routine, operands);
    }
    case OpCode::kSpmv: {
      const TensorType& values = operands[0];
      const TensorType& columns = operands[1];
      const TensorType& offsets = operands[2];
      const TensorType& x = operands[3];
      bool index_ok = (columns.dtype == DType::kInt32 || columns.dtype == DType::kInt64) &&
                      offsets.dtype == columns.dtype;
      bool ranks_ok = values.shape.rank() == 1 && columns.shape.rank() == 1 &&
                      offsets.shape.rank() == 1 && (x.shape.rank() == 1 || x.shape.rank() == 2) &&
                      values.shape[0] == columns.shape[0] && offsets.shape[0] >= 1;
      if (!index_ok || !ranks_ok) {
        return OpError(op, absl::StrCat("expects values T[nnz], col_indices and row_offsets "
                                        "i32|i64 [nnz] and [rows+1], x T[cols] or T[cols,k]; got ",
                                        TypeList(operands)));
      }
      absl::StatusOr<DType> loop = SelectLoopFor(op, {values, x});
      if (!loop.ok()) return loop.status();
      // A matrix x is k vectors side by side: the product has one column per column of x.
      if (x.shape.rank() == 2) return TensorType{*loop, Shape({offsets.shape[0] - 1, x.shape[1]})};
      return TensorType{*loop, Shape({offsets.shape[0] - 1})};
    }
    case OpCode::kSpsolve: {
      const TensorType& values = operands[0];
      const TensorType& columns = operands[1];
      const TensorType& offsets = operands[2];
      const TensorType& b = operands[3];
      const bool index_ok = (columns.dtype == DType::kInt32 || columns.dtype == DType::kInt64) &&
                            offsets.dtype == columns.dtype;
      const bool ranks_ok = values.shape.rank() == 1 && columns.shape.rank() == 1 &&
                            offsets.shape.rank() == 1 && values.shape[0] == columns.shape[0] &&
                            offsets.shape[0] >= 1 && (b.shape.rank() == 1 || b.shape.rank() == 2) &&
                            b.shape[0] == offsets.shape[0] - 1;
      if (!index_ok || !ranks_ok || values.dtype != b.dtype || !IsInexact(b.dtype)) {
        return OpError(op, absl::StrCat("expects values T[nnz], col_indices and row_offsets "
                                        "i32|i64 [nnz] and [n+1], b T[n] or T[n,k] with T "
                                        "inexact; got ",
                                        TypeList(operands)));
      }
      return b;
    }
    default:
      return OpError(op, "is not a library op");
  }
}

}  // namespace

int64_t SliceLength(int64_t start, int64_t stop, int64_t step) {
  if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop - step - 1) / -step : 0;
}

absl::StatusOr<TensorType> InferResultType(OpCode op, absl::Span<const TensorType> operands,
                                           const Attributes& attrs,
                                           const std::optional<TensorType>& requested) {
  if (absl::Status s = CheckArity(op, operands.size()); !s.ok()) return s;
  switch (GetOpInfo(op).kind) {
    case OpKind::kElementwise:
      return InferElementwise(op, operands, attrs, requested);
    case OpKind::kReduction:
      return InferReduction(op, operands[0], attrs);
    case OpKind::kScan:
      return InferScan(op, operands[0], attrs);
    case OpKind::kDataMovement:
      return InferDataMovement(op, operands, attrs, requested);
    case OpKind::kLibrary:
      return InferLibrary(op, operands, attrs);
    case OpKind::kOpaque:
      return RequireRequested(op, requested);
  }
  return OpError(op, "unknown op kind");
}

absl::StatusOr<DType> ComputeDType(OpCode op, absl::Span<const TensorType> operands) {
  const OpInfo& info = GetOpInfo(op);
  if (info.kind == OpKind::kDataMovement || info.kind == OpKind::kOpaque ||
      info.type_rule == TypeRule::kWhereRule || info.type_rule == TypeRule::kGiven ||
      info.type_rule == TypeRule::kUserSignature) {
    return absl::FailedPreconditionError(
        absl::StrCat(info.name, ": has no compute loop; use the result dtype"));
  }
  if (op == OpCode::kSpmv) return SelectLoopFor(op, {operands[0], operands[3]});
  if (op == OpCode::kLinalg || op == OpCode::kSpsolve) {
    return operands[0].dtype;  // the API casts the operands alike
  }
  return SelectLoopFor(op, operands);
}

}  // namespace gpuc::ir
