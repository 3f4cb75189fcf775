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

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace llvm::orc {
class JITDylib;
class LLJIT;
}  // namespace llvm::orc

namespace gpuc::runtime {

class HostJit {
 public:
  /// `symbols`: extra (name, address) definitions that loaded code may call.
  static absl::StatusOr<std::unique_ptr<HostJit>> Create(
      const std::vector<std::pair<const char*, void*>>& symbols);
  ~HostJit();

  /// One linked object file, in a library of its own (linked against the process and the
  /// caller's symbols), so the same kernel may be loaded again while an older copy is still in
  /// use. Destroying it unloads the code: nothing may call into it after.
  class Object {
   public:
    ~Object();
    Object(const Object&) = delete;
    Object& operator=(const Object&) = delete;
    absl::StatusOr<void*> Lookup(const std::string& symbol);

   private:
    friend class HostJit;
    Object(HostJit* jit, llvm::orc::JITDylib* dylib) : jit_(jit), dylib_(dylib) {}
    HostJit* jit_;
    llvm::orc::JITDylib* dylib_;
  };

  /// Links an object file; `name` is for error messages.
  absl::StatusOr<std::unique_ptr<Object>> AddObject(const std::string& object,
                                                    const std::string& name);
  /// Objects linked and not yet unloaded.
  int64_t loaded_objects() const;

 private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  mutable std::mutex mutex_;
  int64_t next_object_ = 0;
  int64_t loaded_ = 0;
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_HOST_JIT_H_
