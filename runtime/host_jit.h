//===- host_jit.h - Loading host machine code into the process ------------===//
//
// The host counterpart of module.h: object files (from the compiler or the kernel cache)
// are linked into the running process by ORC's LLJIT, against the process's own symbols
// (libm) and the symbols the caller defines (the support library), and their functions are
// looked up by name. Thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_HOST_JIT_H_
#define GPUC_RUNTIME_HOST_JIT_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace llvm::orc {
class LLJIT;
}

namespace gpuc::runtime {

class HostJit {
 public:
  /// `symbols`: extra (name, address) definitions that loaded code may call.
  static absl::StatusOr<std::unique_ptr<HostJit>> Create(
      const std::vector<std::pair<const char*, void*>>& symbols);
  ~HostJit();

  /// Links an object file; `name` is for error messages.
  absl::Status AddObject(const std::string& object, const std::string& name);
  absl::StatusOr<void*> Lookup(const std::string& symbol);

 private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::mutex mutex_;
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_HOST_JIT_H_
