//===- status_to_error.cc - absl::Status -> gpuc::Error at the API edge ---===//
#include "lib/api/status_to_error.h"

#include "absl/strings/ascii.h"

namespace gpuc::internal {

void ThrowError(const absl::Status& status) {
  throw Error(absl::AsciiStrToLower(absl::StatusCodeToString(status.code())),
              std::string(status.message()));
}

}  // namespace gpuc::internal
