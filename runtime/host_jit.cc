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

absl::Status HostJit::AddObject(const std::string& object, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object, name);
  if (llvm::Error e = jit_->addObjectFile(std::move(buffer))) {
    return absl::InternalError(absl::StrCat("cannot load ", name, ": ", Message(std::move(e))));
  }
  return absl::OkStatus();
}

absl::StatusOr<void*> HostJit::Lookup(const std::string& symbol) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto address = jit_->lookup(symbol);
  if (!address) {
    return absl::NotFoundError(
        absl::StrCat("no symbol ", symbol, ": ", Message(address.takeError())));
  }
  return address->toPtr<void*>();
}

}  // namespace gpuc::runtime
