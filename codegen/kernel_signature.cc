//===- kernel_signature.cc - A user kernel's parameters, read from its PTX -===//
#include "codegen/kernel_signature.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"

namespace gpuc::codegen {
namespace {

int ScalarSize(absl::string_view type) {
  if (type.size() < 2) return 0;
  int bits = 0;
  if (!absl::SimpleAtoi(type.substr(1), &bits)) return 0;
  return bits / 8;
}

/// One `.param` declaration: ".param .u64 name", ".param .align 8 .b8 name[56]",
/// ".param .align 4 .f32 name" (rare).
absl::StatusOr<KernelParameter> ParseParameter(absl::string_view text) {
  KernelParameter parameter;
  text = absl::StripAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&text, ".param")) {
    return absl::InvalidArgumentError(absl::StrCat("not a .param: ", text));
  }
  text = absl::StripLeadingAsciiWhitespace(text);
  if (absl::ConsumePrefix(&text, ".align")) {
    text = absl::StripLeadingAsciiWhitespace(text);
    size_t space = text.find(' ');
    if (space == absl::string_view::npos ||
        !absl::SimpleAtoi(text.substr(0, space), &parameter.align_bytes)) {
      return absl::InvalidArgumentError("bad .align in a .param");
    }
    text = absl::StripLeadingAsciiWhitespace(text.substr(space));
  }
  if (!absl::ConsumePrefix(&text, ".")) {
    return absl::InvalidArgumentError("a .param without a type");
  }
  size_t space = text.find(' ');
  if (space == absl::string_view::npos)
    return absl::InvalidArgumentError("a .param without a name");
  parameter.ptx_type = std::string(text.substr(0, space));
  absl::string_view name = absl::StripAsciiWhitespace(text.substr(space));
  parameter.size_bytes = ScalarSize(parameter.ptx_type);
  if (size_t open = name.find('['); open != absl::string_view::npos) {
    int count = 0;
    if (!absl::SimpleAtoi(name.substr(open + 1, name.find(']') - open - 1), &count)) {
      return absl::InvalidArgumentError("bad array extent in a .param");
    }
    parameter.size_bytes *= count;
  }
  if (parameter.align_bytes == 0) parameter.align_bytes = parameter.size_bytes;
  return parameter;
}

/// Splits "a, b<c, d>, e" at the commas outside brackets.
std::vector<std::string> SplitTopLevel(absl::string_view list) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.emplace_back(absl::StripAsciiWhitespace(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  absl::string_view last = absl::StripAsciiWhitespace(list.substr(start));
  if (!last.empty() || !parts.empty()) parts.emplace_back(last);
  return parts;
}

}  // namespace

bool KernelParameter::MayBePointer() const {
  if (!cpp_type.empty()) return absl::EndsWith(cpp_type, "*");
  return size_bytes == 8 && !IsAggregate() && ptx_type != "f64";
}

bool KernelParameter::MayWrite() const {
  if (cpp_type.empty()) return true;
  if (absl::EndsWith(cpp_type, "*")) {
    absl::string_view pointee = absl::StripSuffix(cpp_type, "*");
    return !absl::EndsWith(absl::StripTrailingAsciiWhitespace(pointee), "const") &&
           !absl::StartsWith(pointee, "const ");
  }
  // An ArrayView over const elements is read-only; any other aggregate might hold a pointer.
  return !absl::StrContains(cpp_type, "<const ") && !absl::StrContains(cpp_type, " const,");
}

std::string KernelParameter::PointeeType() const {
  if (!absl::EndsWith(cpp_type, "*")) return "";
  std::string pointee(absl::StripAsciiWhitespace(absl::StripSuffix(cpp_type, "*")));
  if (absl::StrContains(pointee, "*")) return "";  // a pointer to pointers
  absl::StrReplaceAll({{"const", ""}, {"volatile", ""}, {"__restrict__", ""}}, &pointee);
  return std::string(absl::StripAsciiWhitespace(pointee));
}

std::optional<std::vector<std::string>> DemangledParameterTypes(const std::string& mangled,
                                                                std::string* demangled) {
  if (!absl::StartsWith(mangled, "_Z")) return std::nullopt;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || text == nullptr) return std::nullopt;
  absl::string_view full(text.get());
  if (demangled != nullptr) *demangled = std::string(full);
  // The parameter list is the last parenthesized group: "void f<int (*)(int)>(float*, int)".
  if (full.empty() || full.back() != ')') return std::nullopt;
  int depth = 0;
  size_t open = absl::string_view::npos;
  for (size_t i = full.size(); i-- > 0;) {
    if (full[i] == ')') ++depth;
    if (full[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == absl::string_view::npos) return std::nullopt;
  std::vector<std::string> types = SplitTopLevel(full.substr(open + 1, full.size() - open - 2));
  if (types.size() == 1 && types[0] == "void") types.clear();
  return types;
}

absl::StatusOr<std::vector<KernelSignature>> ParseKernelSignatures(absl::string_view ptx) {
  std::vector<KernelSignature> kernels;
  size_t at = 0;
  while ((at = ptx.find(".entry ", at)) != absl::string_view::npos) {
    at += 7;
    const size_t open = ptx.find('(', at);
    if (open == absl::string_view::npos) break;
    const size_t close = ptx.find(')', open);
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError("PTX: an .entry's parameter list is not closed");
    }
    KernelSignature kernel;
    kernel.name = std::string(absl::StripAsciiWhitespace(ptx.substr(at, open - at)));
    for (const std::string& text : SplitTopLevel(ptx.substr(open + 1, close - open - 1))) {
      if (text.empty()) continue;
      absl::StatusOr<KernelParameter> parameter = ParseParameter(text);
      if (!parameter.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("PTX of kernel ", kernel.name, ": ", parameter.status().message()));
      }
      kernel.parameters.push_back(*std::move(parameter));
    }
    kernel.demangled = kernel.name;
    if (std::optional<std::vector<std::string>> types =
            DemangledParameterTypes(kernel.name, &kernel.demangled);
        types && types->size() == kernel.parameters.size()) {
      for (size_t i = 0; i < types->size(); ++i) kernel.parameters[i].cpp_type = (*types)[i];
    }
    kernels.push_back(std::move(kernel));
    at = close;
  }
  return kernels;
}

std::string DescribeParameter(const KernelParameter& p) {
  if (!p.cpp_type.empty()) return p.cpp_type;
  if (p.IsAggregate()) return absl::StrCat("a ", p.size_bytes, "-byte struct");
  return absl::StrCat(".", p.ptx_type);
}

std::string DescribeSignature(const KernelSignature& kernel) {
  if (kernel.demangled != kernel.name) return kernel.demangled;
  std::vector<std::string> types;
  for (const KernelParameter& p : kernel.parameters) types.push_back(DescribeParameter(p));
  return absl::StrCat(kernel.name, "(", absl::StrJoin(types, ", "), ")");
}

}  // namespace gpuc::codegen
