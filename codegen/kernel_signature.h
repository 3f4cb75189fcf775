//===- kernel_signature.h - A user kernel's parameters, read from its PTX --===//
//
// CUDA C++ has no reflection, but its PTX names every kernel and each parameter's PTX type
// and size (`.param .u64 k_param_0`, `.param .align 8 .b8 k_param_1[56]`), and a C++ kernel's
// mangled name spells the C++ types (`_Z3addPfPKff` is `add(float*, float const*, float)`).
// Launches check their arguments against both: the count always, sizes always, and the C++
// types where the name is mangled (extern "C" kernels have only the PTX types).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_KERNEL_SIGNATURE_H_
#define GPUC_CODEGEN_KERNEL_SIGNATURE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuc::codegen {

struct KernelParameter {
  /// The PTX type: "u64", "f32", "s32", "u8", ... or "b8" for an aggregate (a struct).
  std::string ptx_type;
  int size_bytes = 0;
  int align_bytes = 0;
  /// The C++ type from the demangled name ("float const*", "gpuc::ArrayView<float, 2>"), or
  /// empty for an extern "C" kernel.
  std::string cpp_type;

  bool IsAggregate() const { return ptx_type == "b8"; }
  /// A pointer in C++, or (extern "C") a 64-bit parameter that may be one.
  bool MayBePointer() const;
  /// A C++ pointer whose pointee is not const: the kernel may write through it. Unknown
  /// (extern "C") counts as writable.
  bool MayWrite() const;
  /// The pointee's C++ type without const ("float", "unsigned int"), or empty.
  std::string PointeeType() const;
};

struct KernelSignature {
  std::string name;       // as in the PTX (mangled for C++ kernels)
  std::string demangled;  // "void add<float>(float*, float const*, float)"; == name when extern "C"
  std::vector<KernelParameter> parameters;
};

/// "float const*", "a 12-byte struct" or ".u64": a parameter as a person reads it.
std::string DescribeParameter(const KernelParameter& p);
/// "void add<float>(float*, float const*, float)": the demangled name, or the name with the
/// parameters described.
std::string DescribeSignature(const KernelSignature& kernel);

/// Every `.entry` of `ptx`, in order.
absl::StatusOr<std::vector<KernelSignature>> ParseKernelSignatures(absl::string_view ptx);

/// The demangled parameter types of a mangled C++ function name; nothing for a name that is not
/// mangled.
std::optional<std::vector<std::string>> DemangledParameterTypes(const std::string& mangled,
                                                                std::string* demangled);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_KERNEL_SIGNATURE_H_
