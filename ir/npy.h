//===- npy.h - NumPy .npy files <-> HostTensor ----------------------------===//
//
// Reads format versions 1.0-3.0 in C or Fortran order (Fortran data is transposed into gpuc's
// row-major layout) for every gpuc dtype; writes version 1.0 in C order. bfloat16 has no NumPy
// descriptor, so saving one is a clear error (cast to float32 first).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_NPY_H_
#define GPUC_IR_NPY_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "ir/host_tensor.h"

namespace gpuc::ir {

absl::StatusOr<HostTensor> ParseNpy(absl::string_view bytes);
absl::StatusOr<std::string> SerializeNpy(const HostTensor& tensor);

absl::StatusOr<HostTensor> LoadNpy(const std::string& path);
absl::Status SaveNpy(const std::string& path, const HostTensor& tensor);

}  // namespace gpuc::ir

#endif  // GPUC_IR_NPY_H_
