//===- gpu_kernel_entry.cc - A GPU kernel in the disk cache ---------------===//
#include "lib/backend/cuda/gpu_kernel_entry.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gpuc::detail {

std::string SerializeGpuKernelEntry(const codegen::GpuKernelLayout& layout,
                                    const std::string& cubin) {
  std::string out =
      absl::StrCat("gpuc-gpu-kernel ", layout.phases.size(), " ", layout.reports_errors ? 1 : 0,
                   " ", layout.row_local_kernel.empty() ? 0 : 1, "\n");
  for (const codegen::GpuPhaseLaunch& p : layout.phases) {
    absl::StrAppend(&out, static_cast<int>(p.kind), " ", p.vector, " ", p.state_bytes, "\n");
  }
  return out + cubin;
}

std::optional<std::pair<codegen::GpuKernelLayout, std::string>> ParseGpuKernelEntry(
    const std::string& entry, const codegen::KernelSpec& spec) {
  size_t pos = 0;
  auto line = [&]() -> std::optional<std::string> {
    size_t end = entry.find('\n', pos);
    if (end == std::string::npos) return std::nullopt;
    std::string l = entry.substr(pos, end - pos);
    pos = end + 1;
    return l;
  };
  std::optional<std::string> header = line();
  if (!header) return std::nullopt;
  std::vector<std::string> words = absl::StrSplit(*header, ' ');
  size_t phases = 0;
  int errors = 0, row_local = 0;
  if (words.size() != 4 || words[0] != "gpuc-gpu-kernel" || !absl::SimpleAtoi(words[1], &phases) ||
      !absl::SimpleAtoi(words[2], &errors) || !absl::SimpleAtoi(words[3], &row_local) ||
      phases != spec.phases.size()) {
    return std::nullopt;
  }
  codegen::GpuKernelLayout layout;
  layout.reports_errors = errors != 0;
  if (row_local) layout.row_local_kernel = spec.name + "_rows";
  for (size_t i = 0; i < phases; ++i) {
    std::optional<std::string> l = line();
    if (!l) return std::nullopt;
    std::vector<std::string> f = absl::StrSplit(*l, ' ');
    int kind = 0;
    codegen::GpuPhaseLaunch p;
    if (f.size() != 3 || !absl::SimpleAtoi(f[0], &kind) || !absl::SimpleAtoi(f[1], &p.vector) ||
        !absl::SimpleAtoi(f[2], &p.state_bytes) || kind < 0 || kind > 2) {
      return std::nullopt;
    }
    p.kind = static_cast<codegen::GpuPhaseLaunch::Kind>(kind);
    p.kernel = spec.phases[i].function_name;
    p.combine_kernel = p.kernel + "_combine";
    layout.phases.push_back(std::move(p));
  }
  return std::make_pair(std::move(layout), entry.substr(pos));
}

}  // namespace gpuc::detail
