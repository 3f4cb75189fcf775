//===- host_jit.cc - Loading host machine code into the process -----------===//
#include "runtime/host_jit.h"

#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

namespace gpuc::runtime {
namespace {

std::string Message(llvm::Error error) { return llvm::toString(std::move(error)); }

}  // namespace

HostJit::~HostJit() = default;

absl::StatusOr<std::unique_ptr<HostJit>> HostJit::Create(
    const std::vector<std::pair<const char*, void*>>& symbols) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return absl::InternalError(
        absl::StrCat("cannot start the host JIT: ", Message(jit.takeError())));
  std::unique_ptr<HostJit> host(new HostJit());
  host->jit_ = std::move(*jit);
  llvm::orc::JITDylib& main = host->jit_->getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      host->jit_->getDataLayout().getGlobalPrefix());
  if (!process) return absl::InternalError(Message(process.takeError()));
  main.addGenerator(std::move(*process));
  llvm::orc::SymbolMap defined;
  for (const auto& [name, address] : symbols) {
    defined[host->jit_->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                                  llvm::JITSymbolFlags::Exported};
  }
  if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(defined)))) {
    return absl::InternalError(Message(std::move(e)));
  }
  return host;
}

absl::StatusOr<std::unique_ptr<HostJit::Object>> HostJit::AddObject(const std::string& object,
                                                                    const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto dylib = jit_->createJITDylib(absl::StrCat("gpuc_object_", next_object_++));
  if (!dylib) {
    return absl::InternalError(
        absl::StrCat("cannot load ", name, ": ", Message(dylib.takeError())));
  }
  // The process's symbols (libm) and the caller's (the support library) live in main.
  dylib->addToLinkOrder(jit_->getMainJITDylib());
  std::unique_ptr<Object> loaded(new Object(this, &*dylib));
  ++loaded_;
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object, name);
  if (llvm::Error e = jit_->addObjectFile(*dylib, std::move(buffer))) {
    return absl::InternalError(absl::StrCat("cannot load ", name, ": ", Message(std::move(e))));
  }
  return loaded;
}

int64_t HostJit::loaded_objects() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return loaded_;
}

HostJit::Object::~Object() {
  std::lock_guard<std::mutex> lock(jit_->mutex_);
  --jit_->loaded_;
  // Unloading can only fail if the session is already gone; the memory is then freed with it.
  llvm::consumeError(jit_->jit_->getExecutionSession().removeJITDylib(*dylib_));
}

absl::StatusOr<void*> HostJit::Object::Lookup(const std::string& symbol) {
  std::lock_guard<std::mutex> lock(jit_->mutex_);
  auto address = jit_->jit_->lookup(*dylib_, symbol);
  if (!address) {
    return absl::NotFoundError(
        absl::StrCat("no symbol ", symbol, ": ", Message(address.takeError())));
  }
  return address->toPtr<void*>();
}

}  // namespace gpuc::runtime
