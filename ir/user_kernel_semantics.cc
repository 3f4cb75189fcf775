//===- user_kernel_semantics.cc - What a user_elementwise node means ------===//
#include "ir/user_kernel_semantics.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gpuc::ir {

bool IsCIdentifier(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

std::string FormatUserParams(const std::vector<UserParam>& params) {
  return absl::StrJoin(params, ", ", [](std::string* out, const UserParam& p) {
    absl::StrAppend(out, DTypeName(p.dtype), " ", p.name);
  });
}

absl::StatusOr<std::vector<UserParam>> ParseUserParams(absl::string_view text) {
  std::vector<UserParam> params;
  if (absl::StripAsciiWhitespace(text).empty()) return params;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::vector<absl::string_view> words =
        absl::StrSplit(absl::StripAsciiWhitespace(item), ' ', absl::SkipEmpty());
    if (words.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("parameter '",
                                                     absl::StripAsciiWhitespace(item),
                                                     "' is not 'dtype name' (in \"", text, "\")"));
    }
    std::optional<DType> dtype = ParseDType(words[0]);
    if (!dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter '", words[1], "': '", words[0], "' is not a dtype"));
    }
    params.push_back({*dtype, std::string(words[1])});
  }
  return params;
}

absl::StatusOr<UserElementwise> ReadUserElementwise(const Attributes& attrs) {
  UserElementwise kernel;
  absl::StatusOr<std::string> name = attrs.GetString("name");
  absl::StatusOr<std::string> inputs = attrs.GetString("inputs");
  absl::StatusOr<std::string> outputs = attrs.GetString("outputs");
  absl::StatusOr<std::string> operation = attrs.GetString("operation");
  absl::StatusOr<int64_t> output = attrs.GetInt("output");
  for (const absl::Status& s :
       {name.status(), inputs.status(), outputs.status(), operation.status(), output.status()}) {
    if (!s.ok()) return s;
  }
  kernel.name = *name;
  kernel.operation = *operation;
  if (const std::string* preamble = attrs.Get<std::string>("preamble")) kernel.preamble = *preamble;
  absl::StatusOr<std::vector<UserParam>> in = ParseUserParams(*inputs);
  if (!in.ok()) return in.status();
  absl::StatusOr<std::vector<UserParam>> out = ParseUserParams(*outputs);
  if (!out.ok()) return out.status();
  kernel.inputs = *std::move(in);
  kernel.outputs = *std::move(out);
  if (kernel.outputs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel.name, "' has no outputs"));
  }
  if (*output < 0 || *output >= static_cast<int64_t>(kernel.outputs.size())) {
    return absl::InvalidArgumentError(absl::StrCat("output ", *output, " of kernel '", kernel.name,
                                                   "', which has ", kernel.outputs.size()));
  }
  kernel.output = static_cast<int>(*output);
  absl::flat_hash_set<std::string> seen = {"i"};  // the loop index
  for (const std::vector<UserParam>* list : {&kernel.inputs, &kernel.outputs}) {
    for (const UserParam& p : *list) {
      if (!IsCIdentifier(p.name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("kernel '", kernel.name, "': '", p.name, "' is not a C++ identifier"));
      }
      if (!seen.insert(p.name).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("kernel '", kernel.name, "': the name '", p.name, "' is used twice",
                         p.name == "i" ? " (i is the loop index)" : ""));
      }
      if (IsComplex(p.dtype)) {
        return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel.name, "': parameter '",
                                                       p.name, "' is ", DTypeNumpyName(p.dtype),
                                                       "; user element kernels take real dtypes"));
      }
    }
  }
  return kernel;
}

Attributes UserElementwiseAttributes(const UserElementwise& kernel) {
  Attributes attrs;
  attrs.Set("name", kernel.name);
  attrs.Set("inputs", FormatUserParams(kernel.inputs));
  attrs.Set("outputs", FormatUserParams(kernel.outputs));
  attrs.Set("operation", kernel.operation);
  if (!kernel.preamble.empty()) attrs.Set("preamble", kernel.preamble);
  attrs.Set("output", static_cast<int64_t>(kernel.output));
  return attrs;
}

}  // namespace gpuc::ir
