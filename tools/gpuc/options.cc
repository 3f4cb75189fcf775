//===- options.cc - The gpuc tool's command-line flags --------------------===//
#include "tools/gpuc/options.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gpuc::tool {

std::string UsageText() {
  return R"(usage: gpuc FILE.gir|FILE.json [options]
       gpuc --compile-cuda FILE.cu [--name-expression=E]... [--nvrtc-option=O]... [-o FILE.cubin]
       gpuc --info | --list-ops | --help | --version

Reads a gpuc IR function and dumps a stage or runs it.

  --emit=ir|json|opt|fused|plan|llvm|llvm-opt|gpu-llvm|ptx
                        print the verified graph as .gir text or JSON, (opt) after the
                        pass pipeline, (fused) cut into kernels, (plan) with its buffer
                        plan, each kernel's LLVM IR as emitted (llvm) or after O3 for this
                        CPU (llvm-opt), its GPU kernels' LLVM IR as emitted (gpu-llvm) or
                        their PTX (ptx; needs no GPU)
  --arch=sm_NN          GPU architecture for --emit=ptx (default: the device's, else sm_90)
  --fast-math           GPU code may flush denormals and approximate division, square
                        root and transcendental functions (default: IEEE)
  --exact-math          GPU code computes f32/f16/bf16 math functions in double, bit-identical
                        to the interpreter (default: in float, within libdevice's ulp bounds)
  --explain-fusion      print every fusion decision and the reason for each kernel boundary
  --max-kernel-arrays=N override the fusion budget of arrays per kernel (default 64)
  --passes=A,B,...      the pass pipeline for --emit=opt and --run (default
                        canonicalize,cse,dce; --passes= runs none); see --list-passes
  --print-after-all     print the graph after every pass (stderr)
  --time-passes         print each pass's time (stderr)
  --fuel=N              allow only the first N rewrites, to bisect a bad one
  -o FILE               write --emit output to FILE instead of stdout
  --run                 run the function and print a summary of every result
  --inputs=random|A.npy,B.npy
                        arguments for --run: seeded random values (default) or .npy files
  --seed=N              seed for --inputs=random (default 0)
  --target=host|gpu|interp
                        where --run executes: compiled for this CPU through LLVM (default),
                        on the GPU (cuda:0, or GPUC_DEVICE's), or the reference interpreter;
                        with gpu, --emit=fused|plan and --explain-fusion show the GPU's graph
                        (after its lowering: bias and ReLU into the GEMM's epilogue)
  --stats               after --run, how each kernel was obtained (compiled, disk cache,
                        memory) and ran
  --cache=stats|prune|clear
                        the disk kernel cache ($GPUC_CACHE_DIR, default ~/.cache/gpuc):
                        its size, evict down to $GPUC_CACHE_MAX_BYTES (default 1 GiB), or
                        remove every entry
  --save-outputs=DIR    write each result of --run to DIR/result<i>.npy
  --show=N              leading values printed per result (default 8)
  --no-verify           skip the verifier (for debugging the verifier itself)
  --compile-cuda        compile FILE.cu (a RawModule's source) with NVRTC for --arch through
                        the disk kernel cache, and print its kernels' signatures, the
                        lowered names of --name-expression=E and where the cubin came from
                        (-o writes the cubin); --nvrtc-option=O passes O to NVRTC
  --info                versions and back ends
  --list-ops            the op table: name, arity, kind
  --list-passes         the passes a pipeline can name
)";
}

absl::StatusOr<Options> ParseOptions(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value_of = [&](absl::string_view flag) -> std::string {
      return arg.substr(flag.size() + 1);  // after "--flag="
    };
    auto is_flag = [&](absl::string_view flag) {
      return absl::StartsWith(arg, absl::StrCat(flag, "="));
    };
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--version") {
      options.version = true;
    } else if (arg == "--info") {
      options.info = true;
    } else if (arg == "--compile-cuda") {
      options.compile_cuda = true;
    } else if (is_flag("--name-expression")) {
      options.name_expressions.push_back(value_of("--name-expression"));
    } else if (is_flag("--nvrtc-option")) {
      options.nvrtc_options.push_back(value_of("--nvrtc-option"));
    } else if (arg == "--list-ops") {
      options.list_ops = true;
    } else if (arg == "--list-passes") {
      options.list_passes = true;
    } else if (is_flag("--max-kernel-arrays")) {
      if (!absl::SimpleAtoi(value_of("--max-kernel-arrays"), &options.max_kernel_arrays) ||
          options.max_kernel_arrays < 2) {
        return absl::InvalidArgumentError("--max-kernel-arrays needs an integer of at least 2");
      }
    } else if (arg == "--explain-fusion") {
      options.explain_fusion = true;
    } else if (arg == "--print-after-all") {
      options.print_after_all = true;
    } else if (arg == "--time-passes") {
      options.time_passes = true;
    } else if (is_flag("--passes")) {
      options.passes = value_of("--passes");
      options.passes_given = true;
    } else if (is_flag("--fuel")) {
      if (!absl::SimpleAtoi(value_of("--fuel"), &options.fuel) || options.fuel < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--fuel needs a non-negative integer, got '", value_of("--fuel"), "'"));
      }
    } else if (arg == "--stats") {
      options.stats = true;
    } else if (is_flag("--cache")) {
      options.cache = value_of("--cache");
      if (options.cache != "stats" && options.cache != "prune" && options.cache != "clear") {
        return absl::InvalidArgumentError(
            absl::StrCat("--cache=", options.cache, " is not one of stats, prune, clear"));
      }
    } else if (arg == "--run") {
      options.run = true;
    } else if (arg == "--no-verify") {
      options.verify = false;
    } else if (is_flag("--arch")) {
      options.arch = value_of("--arch");
      if (!absl::StartsWith(options.arch, "sm_")) {
        return absl::InvalidArgumentError(
            absl::StrCat("--arch=", options.arch, " is not an architecture such as sm_90"));
      }
    } else if (arg == "--fast-math") {
      options.fast_math = true;
    } else if (arg == "--exact-math") {
      options.exact_math = true;
    } else if (is_flag("--emit")) {
      options.emit = value_of("--emit");
      // "--emit=" is a typo, not a request for no output.
      if (options.emit.empty()) {
        return absl::InvalidArgumentError(
            "--emit= needs a stage (ir, json, opt, fused, plan, llvm, llvm-opt, gpu-llvm, ptx)");
      }
    } else if (arg == "-o") {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError("-o needs a file name");
      options.output_path = args[++i];
    } else if (is_flag("--inputs")) {
      options.inputs = value_of("--inputs");
    } else if (is_flag("--seed")) {
      if (!absl::SimpleAtoi(value_of("--seed"), &options.seed)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--seed needs an unsigned integer, got '", value_of("--seed"), "'"));
      }
    } else if (is_flag("--show")) {
      if (!absl::SimpleAtoi(value_of("--show"), &options.show_values) || options.show_values < 0) {
        return absl::InvalidArgumentError("--show needs a non-negative integer");
      }
    } else if (is_flag("--target")) {
      options.target = value_of("--target");
    } else if (is_flag("--save-outputs")) {
      options.save_outputs = value_of("--save-outputs");
    } else if (arg == "-" || !absl::StartsWith(arg, "-")) {
      if (!options.input_path.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("more than one input file: '", options.input_path, "' and '", arg, "'"));
      }
      options.input_path = arg;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "' (see --help)"));
    }
  }
  static constexpr absl::string_view kStages[] = {"",     "ir",   "json",     "opt",      "fused",
                                                  "plan", "llvm", "llvm-opt", "gpu-llvm", "ptx"};
  bool known = false;
  for (absl::string_view s : kStages) known = known || options.emit == s;
  if (!known) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--emit=", options.emit,
        " is not a stage (ir, json, opt, fused, plan, llvm, llvm-opt, gpu-llvm, ptx)"));
  }
  if (options.target != "host" && options.target != "interp" && options.target != "gpu") {
    return absl::InvalidArgumentError(
        absl::StrCat("--target=", options.target, " is not a target (host, gpu, interp)"));
  }
  bool standalone = options.help || options.version || options.info || options.list_ops ||
                    options.list_passes || !options.cache.empty();
  if (!standalone && options.input_path.empty()) {
    return absl::InvalidArgumentError("no input file (see --help)");
  }
  return options;
}

}  // namespace gpuc::tool
