//===- user_kernel_api.cc - ElementwiseKernel and ReductionKernel ----------===//
//
// Both record user_elementwise nodes (ir/user_kernel_semantics.h) with CuPy's type
// placeholders resolved, and a ReductionKernel puts a gpuc reduction between its map and its
// post-map, so gpuc's fusion treats user code like its own ops.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "codegen/cuda_compilers.h"
#include "codegen/user_function.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/raw_kernel.h"
#include "gpuc/reductions.h"
#include "ir/user_kernel_semantics.h"
#include "lib/api/recorder.h"
#include "lib/api/status_to_error.h"
#include "lib/exec/compile_cache.h"
#include "lib/raw_kernels/raw_module.h"

namespace gpuc {
namespace detail {
namespace {

/// One parameter as written: "[raw] type name"; `dtype` is empty for a placeholder.
struct WrittenParam {
  std::string type;
  std::optional<ir::DType> dtype;
  std::string name;
};

/// NumPy's dtype names, with the aliases np.dtype accepts ("float" is float64).
std::optional<ir::DType> CupyDType(absl::string_view name) {
  static const std::map<std::string, ir::DType, std::less<>> aliases = {
      {"float", ir::DType::kFloat64},  {"double", ir::DType::kFloat64},
      {"single", ir::DType::kFloat32}, {"half", ir::DType::kFloat16},
      {"int", ir::DType::kInt64},      {"uint", ir::DType::kUInt64},
      {"bool_", ir::DType::kBool}};
  if (auto it = aliases.find(name); it != aliases.end()) return it->second;
  return ir::ParseDType(name);
}

std::vector<WrittenParam> ParseParams(const std::string& text, const std::string& kernel,
                                      const char* which) {
  std::vector<WrittenParam> params;
  if (absl::StripAsciiWhitespace(text).empty()) return params;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::vector<std::string> words =
        absl::StrSplit(absl::StripAsciiWhitespace(item), ' ', absl::SkipEmpty());
    if (!words.empty() && words[0] == "raw") {
      ThrowInvalid(absl::StrCat("ElementwiseKernel '", kernel, "': ", which, " parameter '",
                                absl::StripAsciiWhitespace(item),
                                "' is raw; raw parameters (whole-array indexing) are not "
                                "supported: write a gpuc::RawKernel for that"));
    }
    if (words.size() != 2 || !ir::IsCIdentifier(words[0]) || !ir::IsCIdentifier(words[1])) {
      ThrowInvalid(absl::StrCat("ElementwiseKernel '", kernel, "': ", which, " parameter '",
                                absl::StripAsciiWhitespace(item), "' is not 'type name' (in \"",
                                text, "\")"));
    }
    WrittenParam p{words[0], CupyDType(words[0]), words[1]};
    if (p.dtype && ir::IsComplex(*p.dtype)) {
      ThrowInvalid(absl::StrCat("ElementwiseKernel '", kernel, "': parameter '", p.name, "' is ",
                                ir::DTypeNumpyName(*p.dtype),
                                "; user element kernels take real dtypes"));
    }
    params.push_back(std::move(p));
  }
  return params;
}

Scalar ScalarOf(const KernelArg& arg) {
  switch (arg.kind()) {
    case KernelArg::Kind::kBool:
      return Scalar(arg.unsigned_value() != 0);
    case KernelArg::Kind::kSigned:
      return Scalar(arg.signed_value());
    case KernelArg::Kind::kUnsigned:
      return Scalar(arg.unsigned_value());
    default:
      return Scalar(arg.float_value());
  }
}

std::string DescribeArg(const KernelArg& arg) {
  if (arg.kind() == KernelArg::Kind::kArray) {
    return absl::StrCat("an Array of ", ir::DTypeNumpyName(ToIr(arg.array().dtype())));
  }
  return "a number";
}

}  // namespace

struct ElementwiseKernelImpl {
  std::string name;
  std::vector<WrittenParam> inputs, outputs;
  std::string operation;
  std::string preamble;
  /// Signatures whose code compiled, so a second call compiles nothing.
  std::mutex mutex;
  std::set<std::string> checked;

  /// The node attributes and operands for `args` (inputs, then optionally outputs).
  struct Resolved {
    ir::UserElementwise kernel;
    std::vector<Array> operands;
    std::vector<Array> given_outputs;
  };
  Resolved Resolve(const std::vector<KernelArg>& args) const;
  /// Compiles the operation once per signature, so that its errors surface at the call.
  void CheckCompiles(const ir::UserElementwise& kernel);
  std::vector<Array> Record(const std::vector<KernelArg>& args);
};

ElementwiseKernelImpl::Resolved ElementwiseKernelImpl::Resolve(
    const std::vector<KernelArg>& args) const {
  const std::string what = absl::StrCat("ElementwiseKernel '", name, "'");
  if (args.size() != inputs.size() && args.size() != inputs.size() + outputs.size()) {
    ThrowInvalid(absl::StrCat(
        what, " takes ", inputs.size(), " inputs",
        outputs.empty() ? "" : absl::StrCat(" (and optionally ", outputs.size(), " outputs)"),
        ", got ", args.size(), " arguments"));
  }
  // Placeholders from the arrays: inputs first, then given outputs.
  std::map<std::string, ir::DType> types;
  auto bind = [&](const WrittenParam& p, const KernelArg& arg) {
    if (arg.kind() == KernelArg::Kind::kView) {
      ThrowInvalid(absl::StrCat(what, ": parameter '", p.name,
                                "' got gpuc::view; element kernels take Arrays and numbers"));
    }
    if (arg.kind() != KernelArg::Kind::kArray) return;
    const ir::DType dtype = ImplOf(arg.array(), "ElementwiseKernel").node->dtype();
    if (p.dtype) {
      if (*p.dtype != dtype) {
        ThrowInvalid(absl::StrCat(what, ": parameter '", p.type, " ", p.name, "' got ",
                                  DescribeArg(arg), "; convert it with astype(",
                                  ir::DTypeNumpyName(*p.dtype), ")"));
      }
      return;
    }
    auto [it, inserted] = types.emplace(p.type, dtype);
    if (!inserted && it->second != dtype) {
      ThrowInvalid(absl::StrCat(what, ": type ", p.type, " is ", ir::DTypeNumpyName(it->second),
                                " from an earlier argument, but '", p.name, "' got ",
                                DescribeArg(arg)));
    }
  };
  for (size_t k = 0; k < inputs.size(); ++k) bind(inputs[k], args[k]);
  const bool outputs_given = args.size() > inputs.size();
  if (outputs_given) {
    for (size_t k = 0; k < outputs.size(); ++k) {
      const KernelArg& arg = args[inputs.size() + k];
      if (arg.kind() != KernelArg::Kind::kArray) {
        ThrowInvalid(absl::StrCat(what, ": output '", outputs[k].name, "' must be an Array, got ",
                                  DescribeArg(arg)));
      }
      bind(outputs[k], arg);
    }
  }
  Resolved resolved;
  resolved.kernel.name = name;
  resolved.kernel.operation = operation;
  auto type_of = [&](const WrittenParam& p, const KernelArg* arg) -> ir::DType {
    if (p.dtype) return *p.dtype;
    if (auto it = types.find(p.type); it != types.end()) return it->second;
    if (arg != nullptr && arg->kind() != KernelArg::Kind::kArray) {
      // A number alone resolves its placeholder with its own default dtype.
      const ir::DType own = ToIr(DefaultDType(ScalarOf(*arg)));
      types.emplace(p.type, own);
      return own;
    }
    ThrowInvalid(absl::StrCat(what, ": cannot tell the type ", p.type, " of '", p.name,
                              "': no array argument has it; pass an output array"));
  };
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ir::DType dtype = type_of(inputs[k], &args[k]);
    resolved.kernel.inputs.push_back({dtype, inputs[k].name});
    if (args[k].kind() == KernelArg::Kind::kArray) {
      resolved.operands.push_back(args[k].array());
    } else {
      resolved.operands.push_back(Constant(ScalarOf(args[k]), FromIr(dtype)));
    }
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    resolved.kernel.outputs.push_back({type_of(outputs[k], nullptr), outputs[k].name});
    if (outputs_given) resolved.given_outputs.push_back(args[inputs.size() + k].array());
  }
  // Placeholders are typedefs in the code, as in CuPy.
  std::string typedefs;
  for (const auto& [placeholder, dtype] : types) {
    absl::StrAppend(&typedefs, "typedef ", codegen::UserCType(dtype), " ", placeholder, ";\n");
  }
  resolved.kernel.preamble = absl::StrCat(typedefs, preamble);
  return resolved;
}

void ElementwiseKernelImpl::CheckCompiles(const ir::UserElementwise& kernel) {
  // Without NVRTC there is nothing to check here; evaluation will say why it cannot run.
  if (!codegen::GetNvrtc().ok()) return;
  // The symbol's hash covers the signature, the code and the preamble's typedefs.
  const std::string signature = codegen::UserFunctionSymbol(kernel, 0);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (checked.count(signature)) return;
  }
  codegen::DiskCache* cache = exec::DiskCacheFor(exec::CurrentOptions());
  internal::ThrowIfError(
      codegen::CompileUserFunction(kernel, RawKernelArchitecture(), cache).status());
  std::lock_guard<std::mutex> lock(mutex);
  checked.insert(signature);
}

std::vector<Array> ElementwiseKernelImpl::Record(const std::vector<KernelArg>& args) {
  Resolved resolved = Resolve(args);
  CheckCompiles(resolved.kernel);
  std::vector<Array> results;
  for (size_t k = 0; k < resolved.kernel.outputs.size(); ++k) {
    resolved.kernel.output = static_cast<int>(k);
    Array result = detail::Record(ir::OpCode::kUserElementwise, resolved.operands,
                                  ir::UserElementwiseAttributes(resolved.kernel));
    if (!resolved.given_outputs.empty()) {
      Array& out = resolved.given_outputs[k];
      if (out.shape() != result.shape()) {
        ThrowInvalid(absl::StrCat("ElementwiseKernel '", name, "': output '",
                                  resolved.kernel.outputs[k].name, "' has shape ",
                                  ToIrShape(out.shape()).ToString(), ", the result ",
                                  ToIrShape(result.shape()).ToString()));
      }
      // The given handle (and its copies) now stands for the result.
      ImplOf(out, "ElementwiseKernel") = ImplOf(result, "ElementwiseKernel");
    }
    results.push_back(std::move(result));
  }
  return results;
}

struct ReductionKernelImpl {
  enum class Reduce { kSum, kProd, kMax, kMin };
  std::shared_ptr<ElementwiseKernelImpl> map;  // inputs -> the reduce type
  WrittenParam output;
  std::string reduce_type;  // a dtype name or a placeholder
  Reduce reduce = Reduce::kSum;
  std::optional<double> identity;  // empty when it is the reduction's own
  std::string post_map_expr;
  std::string name, preamble;
};

namespace {

ReductionKernelImpl::Reduce ParseReduce(const std::string& expression, const std::string& name) {
  std::string e = absl::StrReplaceAll(expression, {{" ", ""}, {"\t", ""}, {"\n", ""}});
  using R = ReductionKernelImpl::Reduce;
  if (e == "a+b" || e == "b+a") return R::kSum;
  if (e == "a*b" || e == "b*a") return R::kProd;
  for (const char* f : {"max(a,b)", "max(b,a)", "fmax(a,b)", "fmaxf(a,b)", "::max(a,b)"}) {
    if (e == f) return R::kMax;
  }
  for (const char* f : {"min(a,b)", "min(b,a)", "fmin(a,b)", "fminf(a,b)", "::min(a,b)"}) {
    if (e == f) return R::kMin;
  }
  ThrowInvalid(absl::StrCat("ReductionKernel '", name, "': reduce_expr '", expression,
                            "' is not one of a + b, a * b, max(a, b), min(a, b); other "
                            "combinations need a gpuc::RawKernel"));
}

/// The identity's value, or nothing when it is the reduction's own (0, 1, -inf, +inf).
std::optional<double> ParseIdentity(const std::string& text, ReductionKernelImpl::Reduce reduce,
                                    const std::string& name) {
  std::string t = absl::StrReplaceAll(text, {{" ", ""}});
  double value = 0;
  if (t == "INFINITY" || t == "CUDART_INF" || t == "CUDART_INF_F") {
    value = INFINITY;
  } else if (t == "-INFINITY" || t == "-CUDART_INF" || t == "-CUDART_INF_F") {
    value = -INFINITY;
  } else if (!absl::SimpleAtod(absl::StripSuffix(absl::StripSuffix(t, "f"), "F"), &value)) {
    ThrowInvalid(absl::StrCat("ReductionKernel '", name, "': identity '", text,
                              "' is not a number (or ±INFINITY, ±CUDART_INF, ±CUDART_INF_F)"));
  }
  using R = ReductionKernelImpl::Reduce;
  const double own = reduce == R::kSum    ? 0.0
                     : reduce == R::kProd ? 1.0
                     : reduce == R::kMax  ? -INFINITY
                                          : INFINITY;
  if (value == own) return std::nullopt;
  return value;
}

}  // namespace
}  // namespace detail

ElementwiseKernel::ElementwiseKernel(const std::string& in_params, const std::string& out_params,
                                     const std::string& operation, const std::string& name,
                                     const std::string& preamble)
    : impl_(std::make_shared<detail::ElementwiseKernelImpl>()) {
  if (!ir::IsCIdentifier(name)) {
    detail::ThrowInvalid(
        absl::StrCat("ElementwiseKernel: name '", name, "' is not a C++ identifier"));
  }
  impl_->name = name;
  impl_->inputs = detail::ParseParams(in_params, name, "input");
  impl_->outputs = detail::ParseParams(out_params, name, "output");
  if (impl_->outputs.empty()) {
    detail::ThrowInvalid(absl::StrCat("ElementwiseKernel '", name, "' has no output parameters"));
  }
  if (impl_->inputs.empty()) {
    detail::ThrowInvalid(absl::StrCat("ElementwiseKernel '", name,
                                      "' has no input parameters; its shape would be unknown"));
  }
  impl_->operation = operation;
  impl_->preamble = preamble;
}

Array ElementwiseKernel::operator()(const std::vector<KernelArg>& args) const {
  if (impl_->outputs.size() != 1) {
    detail::ThrowInvalid(absl::StrCat("ElementwiseKernel '", impl_->name, "' has ",
                                      impl_->outputs.size(), " outputs: use call()"));
  }
  return impl_->Record(args)[0];
}

std::vector<Array> ElementwiseKernel::call(const std::vector<KernelArg>& args) const {
  return impl_->Record(args);
}

const std::string& ElementwiseKernel::name() const { return impl_->name; }

ReductionKernel::ReductionKernel(const std::string& in_params, const std::string& out_params,
                                 const std::string& map_expr, const std::string& reduce_expr,
                                 const std::string& post_map_expr, const std::string& identity,
                                 const std::string& name, const std::string& reduce_type,
                                 const std::string& preamble)
    : impl_(std::make_shared<detail::ReductionKernelImpl>()) {
  if (!ir::IsCIdentifier(name)) {
    detail::ThrowInvalid(
        absl::StrCat("ReductionKernel: name '", name, "' is not a C++ identifier"));
  }
  impl_->name = name;
  impl_->preamble = preamble;
  std::vector<detail::WrittenParam> outputs = detail::ParseParams(out_params, name, "output");
  if (outputs.size() != 1) {
    detail::ThrowInvalid(absl::StrCat("ReductionKernel '", name,
                                      "' needs exactly one output parameter, got \"", out_params,
                                      "\""));
  }
  impl_->output = outputs[0];
  impl_->reduce_type = reduce_type.empty() ? outputs[0].type : reduce_type;
  impl_->reduce = detail::ParseReduce(reduce_expr, name);
  impl_->identity = detail::ParseIdentity(identity, impl_->reduce, name);
  impl_->post_map_expr = post_map_expr;
  // The map: the inputs to one value of the reduce type.
  impl_->map = std::make_shared<detail::ElementwiseKernelImpl>();
  impl_->map->name = absl::StrCat(name, "_map");
  impl_->map->inputs = detail::ParseParams(in_params, name, "input");
  if (impl_->map->inputs.empty()) {
    detail::ThrowInvalid(absl::StrCat("ReductionKernel '", name, "' has no input parameters"));
  }
  impl_->map->outputs = {
      {impl_->reduce_type, detail::CupyDType(impl_->reduce_type), "gpuc_mapped"}};
  impl_->map->operation = absl::StrCat("gpuc_mapped = (", map_expr, ")");
  impl_->map->preamble = preamble;
}

Array ReductionKernel::operator()(const std::vector<KernelArg>& args,
                                  const std::vector<int64_t>& axes, bool keepdims) const {
  const detail::ReductionKernelImpl& k = *impl_;
  if (args.size() != k.map->inputs.size()) {
    detail::ThrowInvalid(absl::StrCat("ReductionKernel '", k.name, "' takes ", k.map->inputs.size(),
                                      " inputs, got ", args.size()));
  }
  detail::ElementwiseKernelImpl::Resolved resolved = k.map->Resolve(args);
  k.map->CheckCompiles(resolved.kernel);
  Array mapped = detail::Record(ir::OpCode::kUserElementwise, resolved.operands,
                                ir::UserElementwiseAttributes(resolved.kernel));
  const DType reduce_dtype = detail::FromIr(resolved.kernel.outputs[0].dtype);
  const Axes axis_list = axes.empty() ? Axes() : Axes(axes);
  Array reduced;
  switch (k.reduce) {
    case detail::ReductionKernelImpl::Reduce::kSum:
      reduced = sum(mapped, axis_list, keepdims);
      break;
    case detail::ReductionKernelImpl::Reduce::kProd:
      reduced = prod(mapped, axis_list, keepdims);
      break;
    case detail::ReductionKernelImpl::Reduce::kMax:
      reduced = max(mapped, axis_list, keepdims);
      break;
    case detail::ReductionKernelImpl::Reduce::kMin:
      reduced = min(mapped, axis_list, keepdims);
      break;
  }
  // Integer sums and products accumulate wider; CuPy's are in the reduce type (the same
  // values modulo 2^bits).
  if (reduced.dtype() != reduce_dtype) reduced = reduced.astype(reduce_dtype);
  if (k.identity) {
    Array start = detail::Constant(*k.identity, reduce_dtype);
    switch (k.reduce) {
      case detail::ReductionKernelImpl::Reduce::kSum:
        reduced = add(reduced, start);
        break;
      case detail::ReductionKernelImpl::Reduce::kProd:
        reduced = multiply(reduced, start);
        break;
      case detail::ReductionKernelImpl::Reduce::kMax:
        reduced = maximum(reduced, start);
        break;
      case detail::ReductionKernelImpl::Reduce::kMin:
        reduced = minimum(reduced, start);
        break;
    }
    if (reduced.dtype() != reduce_dtype) reduced = reduced.astype(reduce_dtype);
  }
  // The post-map: the output from `a`; its placeholder is the reduce type's unless stated.
  ir::UserElementwise post;
  post.name = absl::StrCat(k.name, "_post_map");
  post.inputs = {{detail::ToIr(reduce_dtype), "a"}};
  ir::DType out_dtype = k.output.dtype.value_or(detail::ToIr(reduce_dtype));
  if (!k.output.dtype) {
    // The output's placeholder, resolved like the map's inputs (e.g. "T y" with "T x").
    for (const ir::UserParam& p : resolved.kernel.inputs) {
      for (const detail::WrittenParam& w : k.map->inputs) {
        if (w.name == p.name && w.type == k.output.type) out_dtype = p.dtype;
      }
    }
  }
  post.outputs = {{out_dtype, k.output.name}};
  post.operation = k.post_map_expr;
  post.preamble = resolved.kernel.preamble;
  const std::string trivial = absl::StrReplaceAll(k.post_map_expr, {{" ", ""}, {";", ""}});
  if (trivial == absl::StrCat(k.output.name, "=a"))
    return reduced.astype(detail::FromIr(out_dtype));
  k.map->CheckCompiles(post);
  return detail::Record(ir::OpCode::kUserElementwise, {reduced},
                        ir::UserElementwiseAttributes(post));
}

}  // namespace gpuc
