//===- gpuc/errors.h - The exception type of gpuc's public API ------------===//
//
// Inside the library errors are absl::Status values; at the public API they become gpuc::Error,
// whose message names what failed (the op, shapes and dtypes; the bytes asked and available).
// An error never leaves the process or other objects unusable.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_ERRORS_H_
#define GPUC_ERRORS_H_

#include <stdexcept>
#include <string>

namespace gpuc {

class Error : public std::runtime_error {
 public:
  /// What kind of failure (absl::StatusCode's names, lower case): "invalid_argument",
  /// "resource_exhausted" (out of memory), "unavailable" (no such device), "internal", ...
  Error(std::string kind, const std::string& message)
      : std::runtime_error(message), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

}  // namespace gpuc

#endif  // GPUC_ERRORS_H_
