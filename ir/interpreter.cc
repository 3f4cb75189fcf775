//===- interpreter.cc - The reference interpreter: graph walk -------------===//
#include "ir/interpreter.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/interpreter_kernels.h"

namespace gpuc::ir {
namespace {

// An evaluation error happens far from the code that caused it; the node's recording site
// points back there.
absl::Status WithLocation(const absl::Status& status, const Node& node) {
  if (node.location().empty()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(status.message(), " (recorded at ", node.location(), ")"));
}

}  // namespace

absl::StatusOr<HostTensor> InterpretNode(const Node& node,
                                         const std::vector<const HostTensor*>& operands) {
  switch (node.info().kind) {
    case OpKind::kElementwise:
      if (node.op() == OpCode::kUserElementwise) {
        // CUDA C++ has no host compiler here: say so instead of guessing.
        const std::string* name = node.attrs().Get<std::string>("name");
        return WithLocation(
            absl::UnimplementedError(absl::StrCat(
                "user_elementwise '", name ? *name : "?",
                "': a user CUDA C++ kernel runs only on a GPU; the interpreter and the host "
                "back end cannot run it (no CUDA device is present, or GPUC_BACKEND is not gpu)")),
            node);
      }
      return interp::EvalElementwiseNode(node, operands);
    case OpKind::kReduction:
      return interp::EvalReductionNode(node, *operands[0]);
    case OpKind::kScan:
      return interp::EvalScanNode(node, *operands[0]);
    case OpKind::kDataMovement: {
      if (node.op() != OpCode::kTake) return interp::EvalDataMovementNode(node, operands);
      absl::StatusOr<HostTensor> value = interp::EvalTakeNode(node, *operands[0], *operands[1]);
      if (!value.ok()) return WithLocation(value.status(), node);
      return value;
    }
    case OpKind::kLibrary: {
      absl::StatusOr<HostTensor> value = interp::EvalLibraryNode(node, operands);
      if (!value.ok()) return WithLocation(value.status(), node);
      return value;
    }
    case OpKind::kOpaque:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("cannot interpret '", OpName(node.op()), "'"));
}

absl::StatusOr<std::vector<HostTensor>> Interpret(const Graph& graph,
                                                  absl::Span<const HostTensor> args) {
  if (args.size() != graph.params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("@", graph.name, " takes ", graph.params.size(),
                                                   " arguments, got ", args.size()));
  }
  absl::flat_hash_map<const Node*, HostTensor> values;
  for (size_t i = 0; i < args.size(); ++i) {
    const Node& p = *graph.params[i];
    if (!(args[i].type() == p.type())) {
      return absl::InvalidArgumentError(
          absl::StrCat("@", graph.name, ": argument ", i, " (%", p.name(), ") has type ",
                       args[i].type().ToString(), ", expected ", p.type().ToString()));
    }
    values[&p] = args[i];
  }
  for (const NodeRef& n : graph.nodes) {
    interp::Operands operands;
    for (const NodeRef& o : n->operands()) operands.push_back(&values.at(o.get()));
    absl::StatusOr<HostTensor> value = InterpretNode(*n, operands);
    if (!value.ok()) {
      if (n->info().kind == OpKind::kOpaque) {
        return absl::InvalidArgumentError(
            absl::StrCat("@", graph.name, ": cannot interpret '", OpName(n->op()), "'"));
      }
      return value.status();
    }
    values[n.get()] = *std::move(value);
  }
  std::vector<HostTensor> results;
  for (const NodeRef& r : graph.results) results.push_back(values.at(r.get()));
  return results;
}

}  // namespace gpuc::ir
