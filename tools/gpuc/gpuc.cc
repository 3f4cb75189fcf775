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
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/kernel_cache.h"
#include "codegen/kernel_spec.h"
#include "codegen/nvptx_compiler.h"
#include "ir/interpreter.h"
#include "ir/json.h"
#include "ir/npy.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/value_names.h"
#include "ir/verifier.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/cuda/gpu_library.h"
#include "lib/backend/host/host_executor.h"
#include "passes/buffer_plan.h"
#include "passes/fusion.h"
#include "passes/pass_manager.h"
#include "runtime/cuda_compilers.h"
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
  if (options.inputs == "random") return RandomArguments(graph, options.seed);
  std::vector<ir::HostTensor> args;
  for (absl::string_view path : absl::StrSplit(options.inputs, ',', absl::SkipEmpty())) {
    absl::StatusOr<ir::HostTensor> t = ir::LoadNpy(std::string(path));
    if (!t.ok()) return t.status();
    args.push_back(*std::move(t));
  }
  return args;
}

passes::FusionBudgets Budgets(const Options& options) {
  passes::FusionBudgets budgets;
  if (options.max_kernel_arrays > 0) budgets.max_kernel_arrays = options.max_kernel_arrays;
  return budgets;
}

std::string StatsText(const detail::HostBackendStats& s) {
  return absl::StrCat("host: ", s.kernel_runs, " compiled kernel runs (", s.compiles,
                      " compiled in ", s.compile_microseconds / 1000, " ms, ", s.disk_hits,
                      " from the disk cache, ", s.memory_hits, " from memory), ",
                      s.interpreted_kernels, " interpreted, ", s.library_steps, " library steps\n");
}

std::string GpuStatsText(const detail::GpuBackendStats& s) {
  std::string text =
      absl::StrCat("gpu: ", s.kernel_launches, " kernel launches (", s.compiles, " compiled in ",
                   s.compile_microseconds / 1000, " ms, ", s.disk_hits, " from the disk cache, ",
                   s.memory_hits, " from memory), ", s.library_calls, " vendor-library calls, ",
                   s.host_kernels, " kernels and ", s.library_steps, " library steps on the host, ",
                   s.uploads, " uploads, ", s.downloads, " downloads\n");
  if (s.host_kernels + s.library_steps > 0) {
    absl::StrAppend(&text, "gpu: last host step: ", s.last_host_reason, "\n");
  }
  return text;
}

/// Runs `graph` on the GPU: inputs copied in, results copied out.
absl::StatusOr<std::vector<ir::HostTensor>> RunOnGpu(const Options& options, const ir::Graph& graph,
                                                     const std::vector<ir::HostTensor>& args) {
  absl::StatusOr<detail::GpuExecutor*> gpu = detail::GpuExecutor::Get();
  if (!gpu.ok()) return gpu.status();
  std::vector<detail::DeviceTensor> device_args;
  for (const ir::HostTensor& a : args) {
    absl::StatusOr<detail::DeviceTensor> d = (*gpu)->Upload(a);
    if (!d.ok()) return d.status();
    device_args.push_back(*std::move(d));
  }
  absl::StatusOr<std::vector<detail::DeviceTensor>> results =
      (*gpu)->Run(graph, device_args, Budgets(options));
  if (!results.ok()) return results.status();
  std::vector<ir::HostTensor> host;
  for (const detail::DeviceTensor& r : *results) {
    absl::StatusOr<ir::HostTensor> h = (*gpu)->Download(r);
    if (!h.ok()) return h.status();
    host.push_back(*std::move(h));
  }
  return host;
}

absl::Status Run(const Options& options, const ir::Graph& graph) {
  absl::StatusOr<std::vector<ir::HostTensor>> args = LoadArguments(options, graph);
  if (!args.ok()) return args.status();
  absl::StatusOr<std::vector<ir::HostTensor>> results =
      options.target == "interp" ? ir::Interpret(graph, *args)
      : options.target == "gpu"  ? RunOnGpu(options, graph, *args)
                                 : detail::HostExecutor::Get().Run(graph, *args, Budgets(options));
  if (!results.ok()) return results.status();
  ir::ValueNames names(graph);
  std::string out = absl::StrCat(
      "@", graph.name, " on ", options.target, " (inputs: ",
      options.inputs == "random" ? absl::StrCat("random, seed ", options.seed) : options.inputs,
      ")\n");
  for (size_t i = 0; i < results->size(); ++i) {
    absl::StrAppend(&out, SummarizeTensor(absl::StrCat("%", names.NameOf(graph.results[i].get())),
                                          (*results)[i], options.show_values));
    if (!options.save_outputs.empty()) {
      std::string path = absl::StrCat(options.save_outputs, "/result", i, ".npy");
      if (absl::Status s = ir::SaveNpy(path, (*results)[i]); !s.ok()) return s;
    }
  }
  if (options.stats && options.target == "host") {
    absl::StrAppend(&out, StatsText(detail::HostExecutor::Get().stats()));
  }
  if (options.stats && options.target == "gpu") {
    absl::StrAppend(&out, GpuStatsText((*detail::GpuExecutor::Get())->stats()));
  }
  std::cout << out;
  return absl::OkStatus();
}

/// Each kernel's LLVM IR; library steps say where they run instead.
absl::StatusOr<std::string> LlvmText(const ir::Graph& graph, const passes::FusionPlan& plan,
                                     bool optimized) {
  const passes::BufferPlan buffers = passes::PlanBuffers(graph, plan);
  std::string out;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const passes::FusedKernel& kernel = plan.kernels[k];
    absl::StrAppend(&out, "; kernel ", k, " (", passes::KernelKindName(kernel.kind), ")\n");
    if (!codegen::IsCompilable(kernel)) {
      absl::StrAppend(&out, "; ", ir::OpName(kernel.nodes[0]->op()),
                      " runs on the host's library implementation\n\n");
      continue;
    }
    absl::StatusOr<std::string> text =
        detail::HostExecutor::Get().KernelLlvmIr(kernel, buffers, optimized);
    if (absl::IsUnimplemented(text.status())) {
      absl::StrAppend(&out, "; runs on the interpreter: ", text.status().message(), "\n\n");
      continue;
    }
    if (!text.ok()) return text.status();
    absl::StrAppend(&out, *text, "\n");
  }
  return out;
}

/// The architecture --emit=ptx compiles for: --arch, else the GPU's, else sm_90.
std::string GpuArch(const Options& options) {
  if (!options.arch.empty()) return options.arch;
  absl::StatusOr<const runtime::CudaDriver*> driver = runtime::GetCudaDriver();
  if (driver.ok()) {
    absl::StatusOr<std::vector<runtime::CudaDeviceProperties>> devices =
        runtime::QueryCudaDevices(**driver);
    if (devices.ok() && !devices->empty()) {
      return codegen::ArchForComputeCapability((*devices)[0].compute_capability_major,
                                               (*devices)[0].compute_capability_minor);
    }
  }
  return "sm_90";
}

/// Each kernel's GPU kernels: their LLVM IR as emitted (ptx = false) or their PTX.
absl::StatusOr<std::string> GpuText(const ir::Graph& graph, const passes::FusionPlan& plan,
                                    const Options& options, bool ptx) {
  codegen::GpuCompileOptions gpu_options;
  gpu_options.arch = GpuArch(options);
  gpu_options.fast_math = options.fast_math;
  gpu_options.exact_math = options.exact_math;
  if (const char* v = std::getenv("GPUC_GPU_VECTOR_REDUCTIONS")) {
    gpu_options.vector_reductions = std::string(v) != "0";
  }
  absl::StatusOr<std::unique_ptr<codegen::NvptxCompiler>> compiler =
      codegen::NvptxCompiler::Create(gpu_options);
  if (!compiler.ok()) return compiler.status();
  const passes::BufferPlan buffers = passes::PlanBuffers(graph, plan);
  std::string out;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const passes::FusedKernel& kernel = plan.kernels[k];
    absl::StrAppend(&out, "// kernel ", k, " (", passes::KernelKindName(kernel.kind), ")\n");
    if (!codegen::IsCompilable(kernel)) {
      absl::StrAppend(&out, "// ", ir::OpName(kernel.nodes[0]->op()),
                      " is a library step, not a generated kernel\n\n");
      continue;
    }
    absl::StatusOr<codegen::KernelSpec> spec =
        codegen::BuildKernelSpec(kernel, detail::InPlaceOutputs(kernel, buffers));
    if (!spec.ok()) return spec.status();
    std::string llvm_ir;
    absl::StatusOr<codegen::GpuCompiledKernel> compiled =
        codegen::CompileGpuKernel(*spec, **compiler, &llvm_ir);
    if (absl::IsUnimplemented(compiled.status())) {
      absl::StrAppend(&out, "// not compiled for the GPU: ", compiled.status().message(), "\n\n");
      continue;
    }
    if (!compiled.ok()) return compiled.status();
    for (size_t i = 0; i < compiled->layout.phases.size(); ++i) {
      const codegen::GpuPhaseLaunch& p = compiled->layout.phases[i];
      const char* kind = p.kind == codegen::GpuPhaseLaunch::Kind::kStore ? "store"
                         : p.kind == codegen::GpuPhaseLaunch::Kind::kReduceRows
                             ? "reduce (a block per row)"
                             : "reduce (a thread per row)";
      absl::StrAppend(&out, "// phase ", i, ": ", kind, " ", p.kernel);
      if (p.kind == codegen::GpuPhaseLaunch::Kind::kStore) {
        absl::StrAppend(&out, ", ", p.vector, " elements per step");
      } else {
        if (p.vector > 1) absl::StrAppend(&out, ", ", p.vector, " elements per load");
        absl::StrAppend(&out, ", ", p.state_bytes, " bytes of state per split, combined by ",
                        p.combine_kernel);
      }
      absl::StrAppend(&out, "\n");
    }
    if (!compiled->layout.row_local_kernel.empty()) {
      absl::StrAppend(&out, "// every phase, a block per row: ", compiled->layout.row_local_kernel,
                      "\n");
    }
    absl::StrAppend(&out, ptx ? compiled->ptx : llvm_ir, "\n");
  }
  return out;
}

absl::Status ManageCache(const Options& options) {
  codegen::DiskCache cache(codegen::DiskCache::DefaultDirectory(),
                           codegen::DiskCache::DefaultMaxBytes());
  if (options.cache == "prune") {
    std::cout << "pruned " << cache.Prune(codegen::DiskCache::DefaultMaxBytes()) << " entries\n";
  } else if (options.cache == "clear") {
    std::cout << "removed " << cache.Clear() << " entries\n";
  }
  const codegen::DiskCache::Usage usage = cache.Scan();
  std::cout << cache.directory() << ": " << usage.entries << " kernels, " << usage.bytes
            << " bytes (cap " << codegen::DiskCache::DefaultMaxBytes() << ")\n";
  return absl::OkStatus();
}

std::string InfoText() {
  return absl::StrCat("gpuc ", GPUC_VERSION, "\n", "LLVM: ", GPUC_LLVM_VERSION, "\n",
                      "targets: host (native code through LLVM ORC JIT), gpu (PTX through "
                      "LLVM NVPTX, cubins linked by the driver), interp (reference "
                      "interpreter)\n",
                      "kernel cache: ", codegen::DiskCache::DefaultDirectory(), "\n",
                      runtime::DescribeCudaDevices(), "\n",
                      "vendor libraries: ", runtime::DescribeCudaLibraries(), "\n",
                      "CUDA compilers: ", runtime::DescribeCudaCompilers(), "\n");
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

absl::Status Main(const Options& options) {
  if (options.help) {
    std::cout << UsageText();
    return absl::OkStatus();
  }
  if (options.version) {
    std::cout << "gpuc " << GPUC_VERSION << "\n";
    return absl::OkStatus();
  }
  if (options.info) {
    std::cout << InfoText();
    return absl::OkStatus();
  }
  if (options.list_ops) {
    std::cout << OpListText();
    return absl::OkStatus();
  }
  if (!options.cache.empty()) return ManageCache(options);
  if (options.compile_cuda) return CompileCudaFile(options);
  if (options.list_passes) {
    for (const auto& [name, description] : passes::RegisteredPasses()) {
      std::cout << name << "\t" << description << "\n";
    }
    return absl::OkStatus();
  }
  absl::StatusOr<ir::Graph> graph = LoadGraph(options);
  if (!graph.ok()) {
    // "file:3:7: ..." for parse errors (compiler style), "file: @f: ..." for the rest.
    absl::string_view message = graph.status().message();
    bool positioned = !message.empty() && absl::ascii_isdigit(message[0]);
    return absl::Status(graph.status().code(),
                        absl::StrCat(options.input_path, positioned ? ":" : ": ", message));
  }
  // The stages after the IR read the optimized graph; --emit=ir and json show it as parsed.
  ir::Graph optimized = *graph;
  const bool fuses = options.emit == "fused" || options.emit == "plan" || options.emit == "llvm" ||
                     options.emit == "llvm-opt" || options.emit == "gpu-llvm" ||
                     options.emit == "ptx" || options.explain_fusion;
  if (options.run || options.emit == "opt" || fuses || options.print_after_all ||
      options.time_passes) {
    passes::PassManagerOptions pass_options;
    pass_options.verify_each = options.verify;
    pass_options.fuel = options.fuel;
    if (options.print_after_all) pass_options.print_after_all = &std::cerr;
    absl::StatusOr<passes::PassManager> pipeline = passes::BuildPipeline(
        options.passes_given ? options.passes : passes::DefaultPipeline(), pass_options);
    if (!pipeline.ok()) return pipeline.status();
    if (absl::Status s = pipeline->Run(optimized); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(options.input_path, ": ", s.message()));
    }
    if (options.time_passes) std::cerr << pipeline->TimingReport();
  }
  // The stages a GPU runs are the ones after its own lowering (the executor applies it when
  // it prepares a plan, so --run needs nothing here).
  if (fuses && (options.target == "gpu" || options.emit == "gpu-llvm" || options.emit == "ptx")) {
    if (absl::Status s = detail::ApplyGpuLowering(optimized); !s.ok()) return s;
  }
  if (options.emit == "ir") {
    if (absl::Status s = WriteOutput(options, ir::Print(*graph)); !s.ok()) return s;
  } else if (options.emit == "json") {
    if (absl::Status s = WriteOutput(options, ir::ToJson(*graph).dump(2) + "\n"); !s.ok()) return s;
  } else if (options.emit == "opt") {
    if (absl::Status s = WriteOutput(options, ir::Print(optimized)); !s.ok()) return s;
  } else if (options.emit == "fused") {
    const passes::FusionPlan plan = passes::PlanFusion(optimized, Budgets(options));
    if (absl::Status s = WriteOutput(options, passes::PrintFusionPlan(optimized, plan)); !s.ok())
      return s;
  } else if (options.emit == "plan") {
    const passes::FusionPlan plan = passes::PlanFusion(optimized, Budgets(options));
    const passes::BufferPlan buffers = passes::PlanBuffers(optimized, plan);
    std::string text = passes::PrintBufferPlan(optimized, plan, buffers);
    // Library kernels: the vendor call each executor makes, with its parameters.
    const ir::ValueNames names(optimized);
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const passes::FusedKernel& kernel = plan.kernels[k];
      if (kernel.kind != passes::KernelKind::kLibrary) continue;
      for (const ir::NodeRef& node : kernel.nodes) {
        absl::StrAppend(&text, "library ", k, " %", names.NameOf(node.get()), ": ",
                        detail::DescribeLibraryLowering(*node), "\n");
      }
    }
    if (absl::Status s = WriteOutput(options, text); !s.ok()) return s;
  } else if (options.emit == "llvm" || options.emit == "llvm-opt") {
    const passes::FusionPlan plan = passes::PlanFusion(optimized, Budgets(options));
    absl::StatusOr<std::string> text = LlvmText(optimized, plan, options.emit == "llvm-opt");
    if (!text.ok()) return text.status();
    if (absl::Status s = WriteOutput(options, *text); !s.ok()) return s;
  } else if (options.emit == "gpu-llvm" || options.emit == "ptx") {
    const passes::FusionPlan plan = passes::PlanFusion(optimized, Budgets(options));
    absl::StatusOr<std::string> text = GpuText(optimized, plan, options, options.emit == "ptx");
    if (!text.ok()) return text.status();
    if (absl::Status s = WriteOutput(options, *text); !s.ok()) return s;
  }
  if (options.explain_fusion) {
    const passes::FusionPlan plan = passes::PlanFusion(optimized, Budgets(options));
    std::cout << "// fusion of @" << optimized.name << ": " << plan.kernels.size() << " kernel"
              << (plan.kernels.size() == 1 ? "" : "s") << "\n";
    for (const std::string& decision : plan.decisions) std::cout << decision << "\n";
  }
  if (options.run) return Run(options, optimized);
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
