//===- user_function.cc - A user element operation as a linked device function ===//
#include "codegen/user_function.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gpuc::codegen {
namespace {

using ir::DType;

/// The type a value crosses the call boundary as.
std::string AbiCType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
      return "int";
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
      return "unsigned int";
    case DType::kInt64:
      return "long long";
    case DType::kUInt64:
      return "unsigned long long";
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
      return "float";
    case DType::kFloat64:
      return "double";
    default:
      return "void";  // complex: refused by ReadUserElementwise
  }
}

/// `value` (of the ABI type) as the user's type, and back.
std::string FromAbi(DType dtype, const std::string& value) {
  if (dtype == DType::kFloat16) return absl::StrCat("__float2half_rn(", value, ")");
  if (dtype == DType::kBFloat16) return absl::StrCat("__float2bfloat16_rn(", value, ")");
  if (dtype == DType::kBool) return absl::StrCat("(", value, " != 0)");
  return absl::StrCat("static_cast<", UserCType(dtype), ">(", value, ")");
}

std::string ToAbi(DType dtype, const std::string& value) {
  if (dtype == DType::kFloat16) return absl::StrCat("__half2float(", value, ")");
  if (dtype == DType::kBFloat16) return absl::StrCat("__bfloat162float(", value, ")");
  return absl::StrCat("static_cast<", AbiCType(dtype), ">(", value, ")");
}

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

std::string UserCType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "bool";
    case DType::kInt8:
      return "signed char";
    case DType::kUInt8:
      return "unsigned char";
    case DType::kInt16:
      return "short";
    case DType::kUInt16:
      return "unsigned short";
    case DType::kInt32:
      return "int";
    case DType::kUInt32:
      return "unsigned int";
    case DType::kInt64:
      return "long long";
    case DType::kUInt64:
      return "unsigned long long";
    case DType::kFloat16:
      return "__half";
    case DType::kBFloat16:
      return "__nv_bfloat16";
    case DType::kFloat32:
      return "float";
    case DType::kFloat64:
      return "double";
    default:
      return "void";
  }
}

std::string UserFunctionSymbol(const ir::UserElementwise& kernel, int output) {
  const std::string key = absl::StrCat(kernel.name, "\n", ir::FormatUserParams(kernel.inputs), "\n",
                                       ir::FormatUserParams(kernel.outputs), "\n", kernel.preamble,
                                       "\n", kernel.operation);
  return absl::StrFormat("gpuc_user_%016x_%d", StableHash(key), output);
}

UserFunctionSource BuildUserFunctionSource(const ir::UserElementwise& kernel) {
  std::string text = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";
  absl::StrAppend(&text, "// ", kernel.name, ": gpuc user_elementwise\n");
  if (!kernel.preamble.empty()) absl::StrAppend(&text, kernel.preamble, "\n");
  // The operation, once: inputs by value, outputs by reference, the loop index `i`.
  std::vector<std::string> params;
  for (const ir::UserParam& p : kernel.inputs) {
    params.push_back(absl::StrCat(UserCType(p.dtype), " ", p.name));
  }
  for (const ir::UserParam& p : kernel.outputs) {
    params.push_back(absl::StrCat(UserCType(p.dtype), "& ", p.name));
  }
  params.push_back("const long long i");
  absl::StrAppend(&text, "static __device__ __forceinline__ void gpuc_user_operation(",
                  absl::StrJoin(params, ", "), ") {\n");
  UserFunctionSource source;
  source.operation_line = CountLines(text) + 1;
  absl::StrAppend(&text, kernel.operation, ";\n}\n");
  // One exported function per output, in the call ABI.
  for (size_t k = 0; k < kernel.outputs.size(); ++k) {
    std::vector<std::string> abi_params, inputs, call_args;
    for (const ir::UserParam& p : kernel.inputs) {
      abi_params.push_back(absl::StrCat(AbiCType(p.dtype), " in_", p.name));
      call_args.push_back(FromAbi(p.dtype, absl::StrCat("in_", p.name)));
    }
    abi_params.push_back("long long i");
    absl::StrAppend(&text, "extern \"C\" __device__ ", AbiCType(kernel.outputs[k].dtype), " ",
                    UserFunctionSymbol(kernel, static_cast<int>(k)), "(",
                    absl::StrJoin(abi_params, ", "), ") {\n");
    for (const ir::UserParam& p : kernel.outputs) {
      absl::StrAppend(&text, "  ", UserCType(p.dtype), " ", p.name, "{};\n");
      call_args.push_back(p.name);
    }
    call_args.push_back("i");
    absl::StrAppend(&text, "  gpuc_user_operation(", absl::StrJoin(call_args, ", "), ");\n",
                    "  return ", ToAbi(kernel.outputs[k].dtype, kernel.outputs[k].name), ";\n}\n");
  }
  source.text = std::move(text);
  return source;
}

absl::StatusOr<CompiledCuda> CompileUserFunction(const ir::UserElementwise& kernel,
                                                 const std::string& arch, DiskCache* cache) {
  UserFunctionSource source = BuildUserFunctionSource(kernel);
  CudaSourceOptions options;
  options.arch = arch;
  options.relocatable = true;
  const std::string program = absl::StrCat(kernel.name, ".cu");
  absl::StatusOr<CompiledCuda> compiled = CompileCudaSource(source.text, program, options, cache);
  if (compiled.ok()) return compiled;
  // "line 7" of the generated unit is line 1 of the user's operation (or of the preamble).
  std::string message(compiled.status().message());
  const std::string first = message.substr(0, message.find('\n'));
  std::string where;
  if (size_t at = first.find(": line "); at != std::string::npos) {
    int line = 0;
    if (absl::SimpleAtoi(first.substr(at + 7, first.find(':', at + 7) - at - 7), &line)) {
      where = line >= source.operation_line
                  ? absl::StrCat(" (line ", line - source.operation_line + 1, " of the operation)")
                  : " (in the preamble)";
    }
  }
  return absl::Status(compiled.status().code(),
                      absl::StrCat("ElementwiseKernel '", kernel.name, "'", where, ": ", message,
                                   "\ngenerated source:\n", source.text));
}

bool UsesUserFunctions(const KernelSpec& spec) {
  return std::any_of(spec.members.begin(), spec.members.end(),
                     [](const ir::Node* n) { return n->op() == ir::OpCode::kUserElementwise; });
}

absl::StatusOr<std::string> LinkWithUserFunctions(const KernelSpec& spec, const std::string& ptx,
                                                  const std::string& arch, DiskCache* cache) {
  std::vector<LinkInput> inputs = {{LinkInput::Kind::kPtx, ptx, spec.name + ".ptx"}};
  absl::flat_hash_set<std::string> linked;
  for (const ir::Node* member : spec.members) {
    if (member->op() != ir::OpCode::kUserElementwise) continue;
    absl::StatusOr<ir::UserElementwise> kernel = ir::ReadUserElementwise(member->attrs());
    if (!kernel.ok()) return kernel.status();
    const std::string symbol = UserFunctionSymbol(*kernel, 0);
    if (!linked.insert(symbol).second) continue;  // another output of the same operation
    absl::StatusOr<CompiledCuda> compiled = CompileUserFunction(*kernel, arch, cache);
    if (!compiled.ok()) return compiled.status();
    inputs.push_back({LinkInput::Kind::kCubin, compiled->cubin, symbol + ".o"});
  }
  absl::StatusOr<std::string> cubin = LinkDeviceCode(inputs, arch);
  if (!cubin.ok()) {
    return absl::Status(cubin.status().code(),
                        absl::StrCat("linking ", spec.name,
                                     " with its user functions: ", cubin.status().message()));
  }
  return cubin;
}

}  // namespace gpuc::codegen
