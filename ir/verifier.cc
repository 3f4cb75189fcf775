//===- verifier.cc - Structural and type checks of a graph ----------------===//
#include "ir/verifier.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/type_inference.h"
#include "ir/value_names.h"

namespace gpuc::ir {
namespace {

/// The attribute names each op understands; anything else is a typo the verifier reports.
absl::Span<const absl::string_view> AllowedAttributes(OpCode op) {
  static constexpr absl::string_view kReduction[] = {"axes", "keepdims"};
  static constexpr absl::string_view kTranspose[] = {"perm"};
  // positions: where each offset comes from when positions are a plan's values
  // (ir/positions.h).
  static constexpr absl::string_view kSlice[] = {"start", "stop", "step", "positions"};
  // in_place: evaluation found that nothing else reads the old value's region (its storage
  // was donated, lib/eval/in_place_writes.h); the host then writes only the region.
  static constexpr absl::string_view kUpdateSlice[] = {"start", "stop", "step", "in_place",
                                                       "positions"};
  static constexpr absl::string_view kAxis[] = {"axis"};
  // kth: only these positions need hold what a full sort puts there (a partition).
  static constexpr absl::string_view kSort[] = {"axis", "kth"};
  // api: the public function that recorded it (bincount), named by its evaluation errors.
  // in_place: as update_slice's (the scatter writes its values into the old storage).
  static constexpr absl::string_view kScatter[] = {"axis", "combiner", "wrap", "api", "in_place"};
  static constexpr absl::string_view kPad[] = {"low", "high", "value", "positions"};
  static constexpr absl::string_view kConstant[] = {"value"};
  static constexpr absl::string_view kFft[] = {"axes", "inverse", "norm", "kind", "n"};
  // Set by gpuc::sparse on products of matrices whose structure it checked when they were
  // built; executors may then skip the check (the interpreter always checks).
  static constexpr absl::string_view kSpmv[] = {"validated"};
  static constexpr absl::string_view kMatmul[] = {"transpose_a", "transpose_b"};
  static constexpr absl::string_view kLinalg[] = {"routine"};
  static constexpr absl::string_view kMatmulBias[] = {"transpose_a", "transpose_b", "activation"};
  static constexpr absl::string_view kUserElementwise[] = {"name",      "inputs",   "outputs",
                                                           "operation", "preamble", "output"};
  switch (op) {
    case OpCode::kUserElementwise:
      return kUserElementwise;
    case OpCode::kReduceSum:
    case OpCode::kReduceProd:
    case OpCode::kReduceMin:
    case OpCode::kReduceMax:
    case OpCode::kReduceAny:
    case OpCode::kReduceAll:
    case OpCode::kArgMin:
    case OpCode::kArgMax:
      return kReduction;
    case OpCode::kTranspose:
      return kTranspose;
    case OpCode::kSlice:
      return kSlice;
    case OpCode::kUpdateSlice:
      return kUpdateSlice;
    case OpCode::kConcatenate:
    case OpCode::kIota:
    case OpCode::kCumSum:
    case OpCode::kCumProd:
    case OpCode::kTake:
      return kAxis;
    case OpCode::kSort:
    case OpCode::kArgSort:
      return kSort;
    case OpCode::kScatter:
      return kScatter;
    case OpCode::kPad:
      return kPad;
    case OpCode::kConstant:
      return kConstant;
    case OpCode::kFft:
      return kFft;
    case OpCode::kSpmv:
      return kSpmv;
    case OpCode::kMatmul:
      return kMatmul;
    case OpCode::kLinalg:
      return kLinalg;
    case OpCode::kMatmulBias:
      return kMatmulBias;
    default:
      return {};
  }
}

class Verifier {
 public:
  explicit Verifier(const Graph& graph) : graph_(graph), names_(graph) {}

  absl::Status Run() {
    for (size_t i = 0; i < graph_.params.size(); ++i) {
      const Node& p = *graph_.params[i];
      if (p.op() != OpCode::kParameter) {
        return Error(
            p, absl::StrCat("parameter ", i, " is a '", OpName(p.op()), "' node, not a parameter"));
      }
      if (!defined_.insert(&p).second) return Error(p, "is a parameter twice");
      if (absl::Status s = ValidateShape(p.shape()); !s.ok()) return Error(p, s.message());
    }
    for (const NodeRef& n : graph_.nodes) {
      if (absl::Status s = VerifyNode(*n); !s.ok()) return s;
      defined_.insert(n.get());
    }
    if (graph_.results.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("@", graph_.name, ": returns no values"));
    }
    for (const NodeRef& r : graph_.results) {
      if (!defined_.contains(r.get())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "@", graph_.name, ": result '", OpName(r->op()), "' is not defined in the graph"));
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const Node& node, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat("@", graph_.name, ": %", names_.NameOf(&node),
                                                   " = ", OpName(node.op()), ": ", message));
  }

  absl::Status VerifyNode(const Node& node) {
    if (defined_.contains(&node)) return Error(node, "is defined twice");
    if (node.op() == OpCode::kParameter) {
      return Error(node, "is a parameter that is not in the function signature");
    }
    for (int i = 0; i < node.num_operands(); ++i) {
      const Node* operand = node.operands()[i].get();
      if (operand == nullptr) return Error(node, absl::StrCat("operand ", i, " is null"));
      if (!defined_.contains(operand)) {
        // Either a use before definition (which is how a cycle would show) or a value from
        // outside the graph.
        return Error(node, absl::StrCat("operand ", i, " (%", names_.NameOf(operand),
                                        ") is not defined before its use"));
      }
    }
    absl::Span<const absl::string_view> allowed = AllowedAttributes(node.op());
    for (const auto& [name, value] : node.attrs().entries()) {
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        return Error(node, absl::StrCat("unknown attribute '", name, "'"));
      }
    }
    if (absl::Status s = ValidateShape(node.shape()); !s.ok()) return Error(node, s.message());
    std::vector<TensorType> operand_types;
    for (const NodeRef& operand : node.operands()) operand_types.push_back(operand->type());
    absl::StatusOr<TensorType> inferred =
        InferResultType(node.op(), operand_types, node.attrs(), node.type());
    if (!inferred.ok()) {
      // InferResultType's message starts with the op name, which Error() already gives.
      absl::string_view message = inferred.status().message();
      std::string prefix = absl::StrCat(OpName(node.op()), ": ");
      if (message.substr(0, prefix.size()) == prefix) message.remove_prefix(prefix.size());
      return Error(node, message);
    }
    if (!(*inferred == node.type())) {
      return Error(node, absl::StrCat("result type ", node.type().ToString(),
                                      " does not match the inferred ", inferred->ToString()));
    }
    return absl::OkStatus();
  }

  const Graph& graph_;
  ValueNames names_;
  absl::flat_hash_set<const Node*> defined_;
};

}  // namespace

absl::Status Verify(const Graph& graph) { return Verifier(graph).Run(); }

}  // namespace gpuc::ir
