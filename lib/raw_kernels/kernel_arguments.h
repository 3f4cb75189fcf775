//===- kernel_arguments.h - Checking and packing a user kernel's arguments -===//
//
// A RawKernel launch is checked against the kernel's parameters before anything is evaluated
// or launched (codegen/kernel_signature.h): the count, each argument's kind (an Array for a
// pointer, gpuc::view for an ArrayView, a number for a scalar), the element type where the
// C++ type names one, and that a number fits its parameter. Packing then lays each value out
// as the parameter's type, for cuLaunchKernel.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_RAW_KERNELS_KERNEL_ARGUMENTS_H_
#define GPUC_LIB_RAW_KERNELS_KERNEL_ARGUMENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/kernel_signature.h"
#include "gpuc/raw_kernel.h"
#include "ir/dtype.h"
#include "ir/shape.h"

namespace gpuc::detail {

/// Ok, or InvalidArgument naming the kernel's signature, the argument and the parameter.
absl::Status CheckKernelArguments(const codegen::KernelSignature& kernel,
                                  absl::Span<const KernelArg> args);

/// An Array argument once on the device.
struct DeviceArgument {
  uint64_t address = 0;
  ir::Shape shape;
};

/// The parameter values laid out for cuLaunchKernel: `pointers()[i]` points at parameter i.
class PackedArguments {
 public:
  void** pointers() { return pointers_.data(); }
  size_t size() const { return pointers_.size(); }
  /// Parameter i's bytes (tests).
  std::vector<uint8_t> bytes(size_t i) const;

 private:
  friend absl::StatusOr<PackedArguments> PackKernelArguments(const codegen::KernelSignature&,
                                                             absl::Span<const KernelArg>,
                                                             absl::Span<const DeviceArgument>);
  std::vector<std::vector<uint64_t>> storage_;  // 8-byte aligned, one block per parameter
  std::vector<size_t> sizes_;
  std::vector<void*> pointers_;
};

/// Packs checked arguments; `arrays[i]` is argument i's device form when it is an Array or a
/// view (ignored otherwise).
absl::StatusOr<PackedArguments> PackKernelArguments(const codegen::KernelSignature& kernel,
                                                    absl::Span<const KernelArg> args,
                                                    absl::Span<const DeviceArgument> arrays);

/// Whether a pointer to the C++ type `cpp` ("float", "unsigned int", "void") may point at
/// elements of `dtype`; unknown names (user structs) may.
bool PointeeAccepts(const std::string& cpp, ir::DType dtype);

using codegen::DescribeSignature;

}  // namespace gpuc::detail

#endif  // GPUC_LIB_RAW_KERNELS_KERNEL_ARGUMENTS_H_
