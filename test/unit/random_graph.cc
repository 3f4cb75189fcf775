//===- random_graph.cc - Seeded random IR graphs for differential tests ---===//
#include "test/unit/random_graph.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "ir/type_inference.h"

namespace gpuc::test {
namespace {

using ir::DType;
using ir::NodeRef;
using ir::OpCode;

class Builder {
 public:
  Builder(uint64_t seed, const RandomGraphOptions& options) : rng_(seed), options_(options) {}

  ir::Graph Build() {
    // Parameters share one base shape (rank 1 to 3) or a broadcastable piece of it.
    const int rank = Pick(1, 3);
    for (int i = 0; i < rank; ++i) base_.push_back(Pick(1, 6));
    for (int i = 0; i < options_.num_params; ++i) {
      std::vector<int64_t> dims = base_;
      if (i > 0 && Chance(0.3)) dims[Pick(0, rank - 1)] = 1;  // broadcasts against the others
      const DType dtype = PickDType();
      params_.push_back(ir::Node::Create(OpCode::kParameter, {dtype, ir::Shape(dims)}, {}, {},
                                         absl::StrCat("p", i)));
      values_.push_back(params_.back());
    }
    int attempts = 0;
    while (static_cast<int>(values_.size()) - options_.num_params < options_.num_nodes &&
           attempts++ < options_.num_nodes * 20) {
      if (NodeRef n = TryNode()) values_.push_back(std::move(n));
    }
    std::vector<NodeRef> results;
    for (int i = 0; i < options_.num_results; ++i) {
      // Prefer late values so that most of the graph is live.
      const int lo = std::max(0, static_cast<int>(values_.size()) - 6);
      results.push_back(values_[Pick(lo, static_cast<int>(values_.size()) - 1)]);
    }
    return ir::Graph::FromResults("random", params_, std::move(results));
  }

 private:
  static constexpr DType kDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32};

  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  // Mostly the common dtypes; with all_dtypes, every dtype now and then.
  DType PickDType() {
    if (!options_.all_dtypes || Chance(0.6)) return kDTypes[Pick(0, 2)];
    return static_cast<DType>(Pick(0, ir::kNumDTypes - 1));
  }
  // Any elementwise op of the given arity (philox aside: random bits are tested on their own).
  OpCode PickElementwise(int arity) {
    std::vector<OpCode> ops;
    for (OpCode op : ir::AllOps()) {
      const ir::OpInfo& info = ir::GetOpInfo(op);
      if (info.kind == ir::OpKind::kElementwise && info.arity == arity && op != OpCode::kCast &&
          op != OpCode::kPhilox) {
        ops.push_back(op);
      }
    }
    return ops[Pick(0, static_cast<int>(ops.size()) - 1)];
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  // Mostly one of the last few values, so that chains form and most nodes stay live.
  const NodeRef& AnyValue() {
    const int n = static_cast<int>(values_.size());
    return values_[Chance(0.7) ? Pick(std::max(0, n - 4), n - 1) : Pick(0, n - 1)];
  }

  // A node of `op` over `operands`, typed by the IR's own rule; null if the types do not fit.
  NodeRef Make(OpCode op, std::vector<NodeRef> operands, ir::Attributes attrs = {},
               std::optional<ir::TensorType> requested = std::nullopt) {
    std::vector<ir::TensorType> types;
    for (const NodeRef& o : operands) types.push_back(o->type());
    absl::StatusOr<ir::TensorType> type = ir::InferResultType(op, types, attrs, requested);
    if (!type.ok()) return nullptr;
    return ir::Node::Create(op, *type, std::move(operands), std::move(attrs),
                            absl::StrCat("v", values_.size()));
  }

  NodeRef TryNode() {
    static constexpr OpCode kUnary[] = {OpCode::kNeg,    OpCode::kAbs, OpCode::kExp, OpCode::kTanh,
                                        OpCode::kSquare, OpCode::kSin, OpCode::kSqrt};
    static constexpr OpCode kBinary[] = {OpCode::kAdd,     OpCode::kSub,     OpCode::kMul,
                                         OpCode::kMaximum, OpCode::kMinimum, OpCode::kDiv};
    static constexpr OpCode kReductions[] = {OpCode::kReduceSum, OpCode::kReduceMax,
                                             OpCode::kReduceMin};
    const int kind = Pick(0, 99);
    if (options_.all_ops && kind < 30 && Chance(0.5)) {
      if (Chance(0.15)) {
        const NodeRef& x = AnyValue();
        NodeRef cond = Make(OpCode::kGt, {x, AnyValue()});
        return cond ? Make(OpCode::kWhere, {cond, x, AnyValue()}) : nullptr;
      }
      const int arity = Pick(1, 2);
      if (arity == 1) return Make(PickElementwise(1), {AnyValue()});
      return Make(PickElementwise(2), {AnyValue(), AnyValue()});
    }
    if (options_.all_ops && kind >= 80 && kind < 88 && Chance(0.5)) return TryView();
    if (kind < 30) return Make(kBinary[Pick(0, 5)], {AnyValue(), AnyValue()});
    if (kind < 50) return Make(kUnary[Pick(0, 6)], {AnyValue()});
    if (kind < 58) {
      const NodeRef& x = AnyValue();
      return Make(OpCode::kCast, {x}, {}, ir::TensorType{PickDType(), x->shape()});
    }
    if (kind < 64) {  // a weak scalar constant mixed in
      const NodeRef& x = AnyValue();
      NodeRef c = ir::Node::Create(OpCode::kConstant, {x->dtype(), ir::Shape()}, {},
                                   ir::Attributes{{"value", static_cast<int64_t>(Pick(1, 3))}});
      return Make(kBinary[Pick(0, 2)], {x, c});
    }
    if (kind < 80) {  // a reduction over a random nonempty axis subset
      const NodeRef& x = AnyValue();
      const int rank = x->shape().rank();
      if (rank == 0) return nullptr;
      std::vector<int64_t> axes;
      for (int a = 0; a < rank; ++a) {
        if (Chance(0.5)) axes.push_back(a);
      }
      if (axes.empty()) axes.push_back(Pick(0, rank - 1));
      static constexpr OpCode kAllReductions[] = {
          OpCode::kReduceSum, OpCode::kReduceProd, OpCode::kReduceMin, OpCode::kReduceMax,
          OpCode::kReduceAny, OpCode::kReduceAll,  OpCode::kArgMin,    OpCode::kArgMax};
      if (options_.all_ops && Chance(0.4)) {
        const OpCode op = kAllReductions[Pick(0, 7)];
        if (op == OpCode::kArgMin || op == OpCode::kArgMax) {  // one axis or all of them
          std::vector<int64_t> one = {Pick(0, rank - 1)}, all;
          for (int a = 0; a < rank; ++a) all.push_back(a);
          return Make(op, {x},
                      ir::Attributes{{"axes", Chance(0.7) ? one : all}, {"keepdims", Chance(0.5)}});
        }
        return Make(op, {x}, ir::Attributes{{"axes", axes}, {"keepdims", Chance(0.6)}});
      }
      return Make(kReductions[Pick(0, 2)], {x},
                  ir::Attributes{{"axes", axes}, {"keepdims", Chance(0.6)}});
    }
    if (kind < 88) {  // a transpose
      const NodeRef& x = AnyValue();
      std::vector<int64_t> perm(x->shape().rank());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
      std::shuffle(perm.begin(), perm.end(), rng_);
      std::vector<int64_t> dims;
      for (int64_t p : perm) dims.push_back(x->shape()[static_cast<int>(p)]);
      return Make(OpCode::kTranspose, {x}, ir::Attributes{{"perm", perm}},
                  ir::TensorType{x->dtype(), ir::Shape(dims)});
    }
    if (kind < 94) {  // broadcast a smaller value up to the base shape
      const NodeRef& x = AnyValue();
      return Make(OpCode::kBroadcastTo, {x}, {}, ir::TensorType{x->dtype(), ir::Shape(base_)});
    }
    if (options_.allow_library && kind < 97) {
      const NodeRef& a = AnyValue();
      const NodeRef& b = AnyValue();
      if (a->shape().rank() < 1 || b->shape().rank() < 1) return nullptr;
      return Make(OpCode::kMatmul, {a, b});
    }
    const NodeRef& x = AnyValue();  // a flattening reshape
    return Make(OpCode::kReshape, {x}, {},
                ir::TensorType{x->dtype(), ir::Shape{x->shape().num_elements()}});
  }

  // Slices (with negative steps), pads, concatenations, gathers, iotas and scans.
  NodeRef TryView() {
    const NodeRef& x = AnyValue();
    const int rank = x->shape().rank();
    const int which = Pick(0, 5);
    if (rank == 0 && which < 4) return nullptr;
    if (which == 0) {
      std::vector<int64_t> start, stop, step;
      for (int d = 0; d < rank; ++d) {
        const int64_t n = x->shape()[d];
        const bool reverse = Chance(0.3);
        const int64_t s = Pick(0, static_cast<int>(n) - 1);
        start.push_back(reverse ? n - 1 - s : s);
        stop.push_back(reverse ? -1 : n);  // normalized: -1 runs through index 0
        step.push_back(reverse ? -Pick(1, 2) : Pick(1, 2));
      }
      std::vector<int64_t> dims;
      for (int d = 0; d < rank; ++d) dims.push_back(ir::SliceLength(start[d], stop[d], step[d]));
      return Make(OpCode::kSlice, {x},
                  ir::Attributes{{"start", start}, {"stop", stop}, {"step", step}},
                  ir::TensorType{x->dtype(), ir::Shape(dims)});
    }
    if (which == 1) {
      std::vector<int64_t> low, high;
      for (int d = 0; d < rank; ++d) {
        low.push_back(Pick(0, 2));
        high.push_back(Pick(0, 2));
      }
      return Make(OpCode::kPad, {x}, ir::Attributes{{"low", low}, {"high", high}, {"value", 1.5}});
    }
    if (which == 2) {
      const int64_t axis = Pick(0, rank - 1);
      return Make(OpCode::kConcatenate, {x, AnyValue()}, ir::Attributes{{"axis", axis}});
    }
    if (which == 3) {  // indices in range, drawn from an iota, reversed or not
      const int axis = Pick(0, rank - 1);
      const int64_t n = x->shape()[axis];
      NodeRef iota = Make(OpCode::kIota, {}, ir::Attributes{{"axis", int64_t{0}}},
                          ir::TensorType{DType::kInt64, ir::Shape{n}});
      if (!iota) return nullptr;
      NodeRef indices = iota;
      if (Chance(0.5)) {
        indices = Make(OpCode::kSlice, {iota},
                       ir::Attributes{{"start", std::vector<int64_t>{n - 1}},
                                      {"stop", std::vector<int64_t>{-1}},
                                      {"step", std::vector<int64_t>{-1}}},
                       ir::TensorType{DType::kInt64, ir::Shape{n}});
        if (!indices) return nullptr;
      }
      return Make(OpCode::kTake, {x, indices}, ir::Attributes{{"axis", int64_t{axis}}});
    }
    if (which == 4) {
      std::vector<int64_t> dims = base_;
      return Make(OpCode::kIota, {},
                  ir::Attributes{{"axis", int64_t{Pick(0, static_cast<int>(dims.size()) - 1)}}},
                  ir::TensorType{PickDType(), ir::Shape(dims)});
    }
    if (rank == 0) return nullptr;
    return Make(Chance(0.5) ? OpCode::kCumSum : OpCode::kCumProd, {x},
                ir::Attributes{{"axis", int64_t{Pick(0, rank - 1)}}});
  }

  std::mt19937_64 rng_;
  RandomGraphOptions options_;
  std::vector<int64_t> base_;
  std::vector<NodeRef> params_;
  std::vector<NodeRef> values_;
};

}  // namespace

ir::Graph RandomGraph(uint64_t seed, const RandomGraphOptions& options) {
  return Builder(seed, options).Build();
}

}  // namespace gpuc::test
