//===- status_to_error.h - absl::Status -> gpuc::Error at the API edge -----===//
//
// The library works with absl::Status inside; the public API throws gpuc::Error. These helpers
// are the one place that converts, so every public function reports errors the same way.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_API_STATUS_TO_ERROR_H_
#define GPUC_LIB_API_STATUS_TO_ERROR_H_

#include "absl/status/statusor.h"
#include "gpuc/errors.h"

namespace gpuc::internal {

/// gpuc::Error with the status's message and its code as the kind ("resource_exhausted").
[[noreturn]] void ThrowError(const absl::Status& status);

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) ThrowError(status);
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) ThrowError(value.status());
  return *std::move(value);
}

}  // namespace gpuc::internal

#endif  // GPUC_LIB_API_STATUS_TO_ERROR_H_
