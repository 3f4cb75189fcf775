//===- pass_manager.cc - Named pipelines of passes ------------------------===//
#include "passes/pass_manager.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/passes.h"

namespace gpuc::passes {
namespace {

using Factory = std::unique_ptr<Pass> (*)();

// The registry, in name order.
const std::vector<std::pair<std::string, Factory>>& Factories() {
  static const auto* factories = new std::vector<std::pair<std::string, Factory>>{
      {"canonicalize", &CreateCanonicalize},
      {"cse", &CreateCommonSubexpressionElimination},
      {"dce", &CreateDeadCodeElimination},
      {"fuse-matmul-epilogue", &CreateFuseMatmulEpilogue},
  };
  return *factories;
}

}  // namespace

std::string DefaultPipeline() { return "canonicalize,cse,dce"; }

std::vector<std::pair<std::string, std::string>> RegisteredPasses() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, factory] : Factories()) {
    out.emplace_back(name, std::string(factory()->description()));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(absl::string_view name) {
  std::vector<std::string> names;
  for (const auto& [known, factory] : Factories()) {
    if (known == name) return factory();
    names.push_back(known);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown pass '", name, "'; the passes are: ", absl::StrJoin(names, ", ")));
}

absl::StatusOr<PassManager> BuildPipeline(absl::string_view pipeline, PassManagerOptions options) {
  PassManager manager(std::move(options));
  for (absl::string_view name : absl::StrSplit(pipeline, ',', absl::SkipWhitespace())) {
    absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(absl::StripAsciiWhitespace(name));
    if (!pass.ok()) return pass.status();
    manager.Add(*std::move(pass));
  }
  return manager;
}

std::string PassManager::PipelineText() const {
  std::vector<std::string> names;
  for (const auto& pass : passes_) names.emplace_back(pass->name());
  return absl::StrJoin(names, ",");
}

absl::Status PassManager::Run(ir::Graph& graph) {
  timings_.clear();
  PassContext context(options_.fuel);
  for (const auto& pass : passes_) {
    ir::Graph working = graph;
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<bool> changed = pass->Run(working, context);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!changed.ok()) {
      return absl::Status(changed.status().code(),
                          absl::StrCat("pass '", pass->name(), "': ", changed.status().message()));
    }
    if (options_.verify_each && *changed) {
      if (absl::Status s = ir::Verify(working); !s.ok()) {
        return absl::InternalError(
            absl::StrCat("pass '", pass->name(), "' produced an invalid graph: ", s.message()));
      }
    }
    timings_.push_back({std::string(pass->name()), seconds, *changed});
    graph = std::move(working);
    if (options_.print_after_all != nullptr) {
      *options_.print_after_all << "// -----// IR after " << pass->name()
                                << (*changed ? "" : " (unchanged)") << " //----- //\n"
                                << ir::Print(graph);
    }
  }
  rewrites_ = context.rewrites();
  return absl::OkStatus();
}

std::string PassManager::TimingReport() const {
  double total = 0;
  for (const PassTiming& t : timings_) total += t.seconds;
  std::string out = absl::StrFormat("===- pass timing: %d passes, %.3f ms total -===\n",
                                    timings_.size(), total * 1e3);
  for (const PassTiming& t : timings_) {
    absl::StrAppendFormat(&out, "  %9.3f ms  %5.1f%%  %s%s\n", t.seconds * 1e3,
                          total > 0 ? 100 * t.seconds / total : 0.0, t.pass,
                          t.changed ? "" : " (unchanged)");
  }
  return out;
}

}  // namespace gpuc::passes
