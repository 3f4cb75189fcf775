//===- gpuc.cc - The gpuc command-line tool -------------------------------===//
//
// Reads a function in the textual IR (or its JSON form), verifies it, and dumps a stage
// (--emit) or runs it (--run) and prints a summary of each result. Exit status: 0 on success,
// 1 on any error, with one clear message on stderr.
//
//===----------------------------------------------------------------------===//
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/cuda_compilers.h"
#include "codegen/kernel_cache.h"
#include "ir/json.h"
#include "ir/npy.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/value_names.h"
#include "ir/verifier.h"
#include "lib/backend/host/host_superlu.h"
#include "lib/exec/options.h"
#include "lib/exec/target.h"
#include "passes/fusion.h"
#include "passes/pass_manager.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_libraries.h"
#include "tools/gpuc/compile_cuda.h"
#include "tools/gpuc/options.h"
#include "tools/gpuc/random_inputs.h"
#include "tools/gpuc/tensor_summary.h"

namespace gpuc::tool {
namespace {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  std::stringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<ir::Graph> LoadGraph(const Options& options) {
  absl::StatusOr<std::string> text = ReadInput(options.input_path);
  if (!text.ok()) return text.status();
  absl::string_view trimmed = *text;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
    trimmed.remove_prefix(1);
  }
  absl::StatusOr<ir::Graph> graph;
  if (absl::EndsWith(options.input_path, ".json") || absl::StartsWith(trimmed, "{")) {
    nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return absl::InvalidArgumentError("not valid JSON");
    graph = ir::FromJson(json);
  } else {
    graph = ir::Parse(*text);
  }
  if (!graph.ok()) return graph.status();
  if (options.verify) {
    if (absl::Status s = ir::Verify(*graph); !s.ok()) return s;
  }
  return graph;
}

absl::Status WriteOutput(const Options& options, const std::string& text) {
  if (options.output_path.empty()) {
    std::cout << text;
    return absl::OkStatus();
  }
  std::ofstream out(options.output_path, std::ios::binary);
  out << text;
  if (!out) return absl::InternalError(absl::StrCat("cannot write '", options.output_path, "'"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ir::HostTensor>> LoadArguments(const Options& options,
                                                          const ir::Graph& graph) {
  if (options.inputs == "random") {
    try {
      return RandomArguments(graph, options.seed);
    } catch (const std::bad_alloc&) {
      int64_t bytes = 0;
      for (const ir::NodeRef& p : graph.params) {
        bytes += p->shape().num_elements() * ir::DTypeSize(p->dtype());
      }
      return absl::ResourceExhaustedError(absl::StrCat("out of host memory: random inputs for @",
                                                       graph.name, " need ", bytes, " bytes"));
    }
  }
  std::vector<ir::HostTensor> args;
  for (absl::string_view path : absl::StrSplit(options.inputs, ',', absl::SkipEmpty())) {
    absl::StatusOr<ir::HostTensor> t = ir::LoadNpy(std::string(path));
    if (!t.ok()) return t.status();
    args.push_back(*std::move(t));
  }
  return args;
}

/// The execution options: the environment's, with the flags that map onto them.
exec::Options ExecutionOptions(const Options& flags) {
  exec::Options options = exec::Options::FromEnvironment();
  if (flags.fast_math) options.fast_math = true;
  if (flags.exact_math) options.exact_gpu_math = true;
  if (!flags.arch.empty()) options.gpu_arch = flags.arch;
  if (flags.max_kernel_arrays > 0) options.max_kernel_arrays = flags.max_kernel_arrays;
  return options;
}

/// The target whose stages --emit prints: the GPU's for gpu-llvm and ptx and for
/// --target=gpu (its code generation alone where there is no device), else --target's.
absl::StatusOr<exec::Target*> StageTarget(const Options& flags, const exec::Options& options) {
  if (flags.emit == "gpu-llvm" || flags.emit == "ptx" || flags.target == "gpu") {
    absl::StatusOr<exec::Target*> gpu = exec::CudaTarget(options);
    return gpu.ok() ? *gpu : &exec::CudaCodegenTarget();
  }
  return exec::TargetNamed(flags.target, options);
}

absl::Status Run(const Options& flags, const exec::Options& options, const ir::Graph& lowered) {
  absl::StatusOr<exec::Target*> target = exec::TargetNamed(flags.target, options);
  if (!target.ok()) return target.status();
  absl::StatusOr<std::vector<ir::HostTensor>> args = LoadArguments(flags, lowered);
  if (!args.ok()) return args.status();
  absl::StatusOr<std::shared_ptr<const exec::Executable>> executable =
      (*target)->Compile(lowered, options);
  if (!executable.ok()) return executable.status();
  absl::StatusOr<std::vector<ir::HostTensor>> results =
      (*target)->RunOnHostValues(**executable, *args);
  if (!results.ok()) return results.status();
  const ir::Graph& graph = lowered;
  ir::ValueNames names(graph);
  std::string out = absl::StrCat(
      "@", graph.name, " on ", flags.target, " (inputs: ",
      flags.inputs == "random" ? absl::StrCat("random, seed ", flags.seed) : flags.inputs, ")\n");
  for (size_t i = 0; i < results->size(); ++i) {
    absl::StrAppend(&out, SummarizeTensor(absl::StrCat("%", names.NameOf(graph.results[i].get())),
                                          (*results)[i], flags.show_values));
    if (!flags.save_outputs.empty()) {
      std::string path = absl::StrCat(flags.save_outputs, "/result", i, ".npy");
      if (absl::Status s = ir::SaveNpy(path, (*results)[i]); !s.ok()) return s;
    }
  }
  if (flags.stats) absl::StrAppend(&out, (*target)->StatsText());
  std::cout << out;
  return absl::OkStatus();
}

absl::Status ManageCache(const Options& flags, const exec::Options& options) {
  codegen::DiskCache cache(options.cache_directory, options.cache_max_bytes);
  if (flags.cache == "prune") {
    std::cout << "pruned " << cache.Prune(options.cache_max_bytes) << " entries\n";
  } else if (flags.cache == "clear") {
    std::cout << "removed " << cache.Clear() << " entries\n";
  }
  const codegen::DiskCache::Usage usage = cache.Scan();
  std::cout << cache.directory() << ": " << usage.entries << " kernels, " << usage.bytes
            << " bytes (cap " << options.cache_max_bytes << ")\n";
  return absl::OkStatus();
}

std::string InfoText(const exec::Options& options) {
  return absl::StrCat("gpuc ", GPUC_VERSION, "\n", "LLVM: ", GPUC_LLVM_VERSION, "\n",
                      "targets: host (native code through LLVM ORC JIT), gpu (PTX through "
                      "LLVM NVPTX, cubins linked by the driver), interp (reference "
                      "interpreter)\n",
                      "kernel cache: ", options.cache_directory, "\n",
                      runtime::DescribeCudaDevices(), "\n",
                      "vendor libraries: ", runtime::DescribeCudaLibraries(), "\n",
                      "host sparse LU: ", detail::DescribeSuperlu(), "\n",
                      "CUDA compilers: ", codegen::DescribeCudaCompilers(), "\n",
                      "options in force:\n", options.Describe());
}

std::string OpListText() {
  std::string out;
  for (ir::OpCode op : ir::AllOps()) {
    const ir::OpInfo& info = ir::GetOpInfo(op);
    absl::StrAppend(
        &out, info.name, "\t",
        info.arity == ir::kVariadic ? std::string("variadic") : absl::StrCat(info.arity), "\t",
        ir::OpKindName(info.kind), "\n");
  }
  return out;
}

absl::Status Main(const Options& flags) {
  if (flags.help) {
    std::cout << UsageText();
    return absl::OkStatus();
  }
  if (flags.version) {
    std::cout << "gpuc " << GPUC_VERSION << "\n";
    return absl::OkStatus();
  }
  const exec::Options options = ExecutionOptions(flags);
  exec::SetCurrentOptions(options);  // what the libraries' own lookups see too
  if (flags.info) {
    std::cout << InfoText(options);
    return absl::OkStatus();
  }
  if (flags.list_ops) {
    std::cout << OpListText();
    return absl::OkStatus();
  }
  if (!flags.cache.empty()) return ManageCache(flags, options);
  if (flags.compile_cuda) return CompileCudaFile(flags);
  if (flags.list_passes) {
    for (const auto& [name, description] : passes::RegisteredPasses()) {
      std::cout << name << "\t" << description << "\n";
    }
    return absl::OkStatus();
  }
  absl::StatusOr<ir::Graph> graph = LoadGraph(flags);
  if (!graph.ok()) {
    // "file:3:7: ..." for parse errors (compiler style), "file: @f: ..." for the rest.
    absl::string_view message = graph.status().message();
    bool positioned = !message.empty() && absl::ascii_isdigit(message[0]);
    return absl::Status(graph.status().code(),
                        absl::StrCat(flags.input_path, positioned ? ":" : ": ", message));
  }
  absl::StatusOr<exec::Target*> target = StageTarget(flags, options);
  if (!target.ok()) return target.status();
  // The stages after the IR read the lowered graph (the target's pipeline: the graph passes,
  // or --passes, then its own lowering); --emit=ir and json show it as parsed.
  ir::Graph lowered = *graph;
  const bool fuses = flags.emit == "fused" || flags.emit == "plan" || flags.emit == "llvm" ||
                     flags.emit == "llvm-opt" || flags.emit == "gpu-llvm" || flags.emit == "ptx" ||
                     flags.explain_fusion;
  if (flags.run || flags.emit == "opt" || fuses || flags.print_after_all || flags.time_passes) {
    passes::PassManagerOptions pass_options;
    pass_options.verify_each = flags.verify;
    pass_options.fuel = flags.fuel;
    if (flags.print_after_all) pass_options.print_after_all = &std::cerr;
    const std::optional<std::string> graph_passes =
        flags.passes_given ? std::optional<std::string>(flags.passes) : std::nullopt;
    // A pipeline that names no pass is the flag's mistake, not the file's: said without it.
    if (absl::StatusOr<passes::PassManager> pipeline =
            passes::BuildPipeline((*target)->Pipeline(options, graph_passes), pass_options);
        !pipeline.ok()) {
      return pipeline.status();
    }
    std::string timings;
    absl::Status s = (*target)->Lower(lowered, options, pass_options, graph_passes, &timings);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(flags.input_path, ": ", s.message()));
    if (flags.time_passes) std::cerr << timings;
  }
  const passes::FusionBudgets budgets = (*target)->Budgets(options);
  std::string text;
  if (flags.emit == "ir") {
    text = ir::Print(*graph);
  } else if (flags.emit == "json") {
    text = ir::ToJson(*graph).dump(2) + "\n";
  } else if (flags.emit == "opt") {
    text = ir::Print(lowered);
  } else if (flags.emit == "fused") {
    text = passes::PrintFusionPlan(lowered, passes::PlanFusion(lowered, budgets));
  } else if (flags.emit == "plan") {
    text = (*target)->PlanText(lowered, options);
  } else if (flags.emit == "llvm" || flags.emit == "llvm-opt") {
    // Host code, whatever --target says: the CPU's LLVM IR.
    absl::StatusOr<std::string> kernels = exec::HostTarget().KernelText(
        lowered, options,
        flags.emit == "llvm" ? exec::KernelForm::kLlvm : exec::KernelForm::kOptimizedLlvm);
    if (!kernels.ok()) return kernels.status();
    text = *std::move(kernels);
  } else if (flags.emit == "gpu-llvm" || flags.emit == "ptx") {
    absl::StatusOr<std::string> kernels = (*target)->KernelText(
        lowered, options, flags.emit == "ptx" ? exec::KernelForm::kPtx : exec::KernelForm::kLlvm);
    if (!kernels.ok()) return kernels.status();
    text = *std::move(kernels);
  }
  if (!flags.emit.empty()) {
    if (absl::Status s = WriteOutput(flags, text); !s.ok()) return s;
  }
  if (flags.explain_fusion) {
    const passes::FusionPlan plan = passes::PlanFusion(lowered, budgets);
    std::cout << "// fusion of @" << lowered.name << ": " << plan.kernels.size() << " kernel"
              << (plan.kernels.size() == 1 ? "" : "s") << "\n";
    for (const std::string& decision : plan.decisions) std::cout << decision << "\n";
  }
  if (flags.run) return Run(flags, options, lowered);
  return absl::OkStatus();
}

}  // namespace
}  // namespace gpuc::tool

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<gpuc::tool::Options> options = gpuc::tool::ParseOptions(args);
  if (!options.ok()) {
    std::cerr << "gpuc: error: " << options.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = gpuc::tool::Main(*options); !s.ok()) {
    std::cerr << "gpuc: error: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
