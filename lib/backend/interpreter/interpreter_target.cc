//===- interpreter_target.cc - The reference interpreter as a target ------===//
//
// The oracle every back end is tested against, behind the same interface: the graph passes,
// no fusion (Compile keeps the lowered graph), every node evaluated in float64-faithful
// reference code (ir/interpreter.h).
//
//===----------------------------------------------------------------------===//
#include "absl/strings/str_cat.h"
#include "ir/interpreter.h"
#include "lib/exec/target.h"

namespace gpuc::exec {
namespace {

class InterpretedGraph : public Executable {
 public:
  explicit InterpretedGraph(const ir::Graph& graph) : graph_(graph) {}
  const ir::Graph& graph() const override { return graph_; }

  absl::StatusOr<std::vector<BufferRef>> Run(absl::Span<const BufferRef> args) const override {
    absl::StatusOr<std::vector<ir::HostTensor>> values = HostValuesOf(args);
    if (!values.ok()) return values.status();
    absl::StatusOr<std::vector<ir::HostTensor>> results;
    try {
      results = ir::Interpret(graph_, *values);
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "out of host memory: the interpreter could not allocate a value of @", graph_.name));
    }
    if (!results.ok()) return results.status();
    return BuffersOf(*std::move(results));
  }

 private:
  ir::Graph graph_;
};

class ReferenceInterpreterTarget final : public Target {
 public:
  absl::string_view name() const override { return "interp"; }

  absl::StatusOr<std::shared_ptr<const Executable>> Compile(const ir::Graph& lowered,
                                                            const Options& options) override {
    return std::make_shared<InterpretedGraph>(lowered);
  }

  std::string StatsText() const override { return ""; }
};

}  // namespace

Target& InterpreterTarget() {
  static auto* target = new ReferenceInterpreterTarget();
  return *target;
}

}  // namespace gpuc::exec
