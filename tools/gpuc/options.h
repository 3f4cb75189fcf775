//===- options.h - The gpuc tool's command-line flags ---------------------===//
//
// Plain flags in the style of LLVM's opt and llc: `gpuc FILE --emit=ir`, `--run`, and so on.
// Parsing reports unknown flags and bad values with the flag's name.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_TOOLS_GPUC_OPTIONS_H_
#define GPUC_TOOLS_GPUC_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gpuc::tool {

struct Options {
  std::string input_path;  // .gir or .json; "-" for stdin
  std::string emit;        // ir | json | opt | fused | plan | llvm | llvm-opt | gpu-llvm | ptx
  std::string arch;        // --arch: GPU architecture for ptx; empty: the device's, else sm_90
  bool fast_math = false;
  bool exact_math = false;
  std::string output_path;  // -o; empty for stdout
  bool run = false;
  std::string inputs = "random";  // random | a.npy,b.npy
  uint64_t seed = 0;
  std::string target = "host";  // where --run executes: host | gpu | interp
  bool stats = false;           // --run: print the host back end's kernel statistics
  std::string cache;            // stats | prune | clear: manage the disk kernel cache
  std::string save_outputs;     // directory to write result .npy files into
  int show_values = 8;          // how many leading values a summary prints
  bool verify = true;
  std::string passes;            // --passes=a,b (empty: none)
  bool passes_given = false;     // without --passes, passes::DefaultPipeline() runs
  bool print_after_all = false;  // print the graph after each pass, to stderr
  bool time_passes = false;      // per-pass timing table, to stderr
  int64_t fuel = -1;             // rewrites allowed; < 0 unlimited
  bool list_passes = false;
  bool explain_fusion = false;
  int max_kernel_arrays = 0;  // > 0: overrides FusionBudgets::max_kernel_arrays (for tests)  //
                              // every fusion decision with its reason, to stdout
  bool compile_cuda = false;  // input is CUDA C++: compile it with NVRTC
  std::vector<std::string> name_expressions;  // --name-expression=E (repeatable)
  std::vector<std::string> nvrtc_options;     // --nvrtc-option=O (repeatable)
  bool info = false;
  bool list_ops = false;
  bool help = false;
  bool version = false;
};

absl::StatusOr<Options> ParseOptions(const std::vector<std::string>& args);
std::string UsageText();

}  // namespace gpuc::tool

#endif  // GPUC_TOOLS_GPUC_OPTIONS_H_
