//===- host_compiler.cc - LLVM IR to native code for the host CPU ---------===//
#include "codegen/host_compiler.h"

#include <deque>
#include <mutex>
#include <string>
#include <vector>

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
namespace {

// libmvec's AVX-512 routines (8 doubles, 16 floats a call), which LLVM's LIBMVEC_X86 table
// leaves out (it stops at AVX2's 4 doubles): those this process's libmvec exports. glibc
// 2.22 has exp, log, sin, cos and pow; 2.35 the rest.
std::vector<llvm::VecDesc> WideLibmvecRoutines() {
  struct Routine {
    const char* name;
    const char* intrinsic;  // the LLVM intrinsic's base name, or null
    bool binary;
  };
  static constexpr Routine kRoutines[] = {
      {"exp", "exp", false},     {"log", "log", false},     {"sin", "sin", false},
      {"cos", "cos", false},     {"tan", "tan", false},     {"pow", "pow", true},
      {"exp2", "exp2", false},   {"log2", "log2", false},   {"log10", "log10", false},
      {"expm1", nullptr, false}, {"log1p", nullptr, false}, {"sinh", nullptr, false},
      {"cosh", nullptr, false},  {"tanh", nullptr, false},  {"asin", nullptr, false},
      {"acos", nullptr, false},  {"atan", nullptr, false},  {"asinh", nullptr, false},
      {"acosh", nullptr, false}, {"atanh", nullptr, false}, {"cbrt", nullptr, false},
      {"erf", nullptr, false},   {"erfc", nullptr, false},  {"atan2", nullptr, true},
  };
  // The names live as long as the process, never moved: the table keeps StringRefs to them.
  static std::deque<std::string>* names = new std::deque<std::string>();
  static std::once_flag once;
  static std::vector<llvm::VecDesc>* table = new std::vector<llvm::VecDesc>();
  std::call_once(once, [] {
    for (const Routine& r : kRoutines) {
      const std::string params = r.binary ? "vv" : "v";
      for (const bool single : {false, true}) {
        const int lanes = single ? 16 : 8;
        const std::string vector =
            absl::StrCat("_ZGVeN", lanes, params, "_", r.name, single ? "f" : "");
        if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(vector)) continue;
        names->push_back(vector);
        const llvm::StringRef vector_name = names->back();
        const std::string abi = absl::StrCat("_ZGV_LLVM_N", lanes, params);
        names->push_back(abi);
        const llvm::StringRef abi_name = names->back();
        names->push_back(absl::StrCat(r.name, single ? "f" : ""));
        table->emplace_back(names->back(), vector_name, llvm::ElementCount::getFixed(lanes), false,
                            abi_name);
        if (r.intrinsic != nullptr) {
          names->push_back(absl::StrCat("llvm.", r.intrinsic, single ? ".f32" : ".f64"));
          table->emplace_back(names->back(), vector_name, llvm::ElementCount::getFixed(lanes),
                              false, abi_name);
        }
      }
    }
  });
  return *table;
}

}  // namespace

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
  // With AVX-512, loops use whole 512-bit registers (LLVM prefers 256 bits on such CPUs for
  // the clock drop of older Xeons) and libmvec's 8-double routines: a float32 softmax row
  // computes its exp in double, 4 lanes a call otherwise.
  compiler->wide_vectors_ = features.find("+avx512f") != std::string::npos;
  compiler->target_id_ =
      absl::StrCat(triple, " ", cpu, " ", features, " llvm-", LLVM_VERSION_STRING,
                   compiler->vector_math_ ? " mvec" : "", compiler->wide_vectors_ ? " zmm" : "");
  return compiler;
}

void HostCompiler::Optimize(llvm::Module& module) {
  module.setTargetTriple(machine_->getTargetTriple().str());
  module.setDataLayout(machine_->createDataLayout());
  if (wide_vectors_) {
    for (llvm::Function& f : module) f.addFnAttr("prefer-vector-width", "512");
  }
  RunO3Pipeline(module, *machine_, vector_math_, wide_vectors_);
}

void RunO3Pipeline(llvm::Module& module, llvm::TargetMachine& machine, bool vector_math,
                   bool wide_vector_math) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  const llvm::Triple triple(module.getTargetTriple());
  llvm::TargetLibraryInfoImpl library(triple);
  if (vector_math) {
    library.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    if (wide_vector_math) library.addVectorizableFunctions(WideLibmvecRoutines());
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
