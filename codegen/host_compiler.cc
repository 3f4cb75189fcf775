//===- host_compiler.cc - LLVM IR to native code for the host CPU ---------===//
#include "codegen/host_compiler.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

namespace gpuc::codegen {

absl::StatusOr<std::unique_ptr<HostCompiler>> HostCompiler::Create() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return absl::InternalError(absl::StrCat("no LLVM target for ", triple, ": ", error));
  const std::string cpu = llvm::sys::getHostCPUName().str();
  std::string features;
  for (const auto& [name, enabled] : llvm::sys::getHostCPUFeatures()) {
    if (!features.empty()) features += ",";
    features += (enabled ? "+" : "-") + name.str();
  }
  llvm::TargetOptions options;  // IEEE: no fast-math, no flush to zero
  auto compiler = std::unique_ptr<HostCompiler>(new HostCompiler());
  compiler->machine_.reset(target->createTargetMachine(triple, cpu, features, options,
                                                       llvm::Reloc::PIC_, std::nullopt,
                                                       llvm::CodeGenOptLevel::Aggressive));
  if (!compiler->machine_) return absl::InternalError("cannot create the host target machine");
  // glibc's vector math library, where the process can load it (kernels then call its
  // routines by name; the JIT finds them among the process's libraries). NumPy's own SIMD
  // exp/log/sin made a scalar libm call per element 3-5x slower than NumPy on softmax rows.
  compiler->vector_math_ = llvm::Triple(triple).isX86() &&
                           !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  compiler->target_id_ = absl::StrCat(triple, " ", cpu, " ", features, " llvm-",
                                      LLVM_VERSION_STRING, compiler->vector_math_ ? " mvec" : "");
  return compiler;
}

void HostCompiler::Optimize(llvm::Module& module) {
  module.setTargetTriple(machine_->getTargetTriple().str());
  module.setDataLayout(machine_->createDataLayout());
  RunO3Pipeline(module, *machine_, vector_math_);
}

void RunO3Pipeline(llvm::Module& module, llvm::TargetMachine& machine, bool vector_math) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  const llvm::Triple triple(module.getTargetTriple());
  llvm::TargetLibraryInfoImpl library(triple);
  if (vector_math) {
    library.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    // Registered before the defaults: the first registration of an analysis wins.
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  }
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

absl::StatusOr<std::string> HostCompiler::EmitObject(llvm::Module& module) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);  // seekable, as ELF emission needs
  llvm::legacy::PassManager passes;
  if (machine_->addPassesToEmitFile(passes, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return absl::InternalError("the host target cannot emit object files");
  }
  passes.run(module);
  return std::string(object.begin(), object.end());
}

std::string PrintModule(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

}  // namespace gpuc::codegen
