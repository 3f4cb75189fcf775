//===- nvptx_compiler.cc - GPU kernels' LLVM IR to PTX --------------------===//
#include "codegen/nvptx_compiler.h"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_toolkit.h"
#include "codegen/host_compiler.h"
#include "codegen/kernel_spec.h"
#include "codegen/value_lowering.h"
#include "ir/op.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace gpuc::codegen {
namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";
constexpr int kHighestPtx = 85;  // what LLVM 19's NVPTX back end emits at most

std::string FindLibdevice() {
  return absl::StrCat(CudaToolkitRoot(), "/nvvm/libdevice/libdevice.10.bc");
}

/// libdevice's name for an LLVM math intrinsic that NVPTX cannot select, or "".
std::string LibdeviceNameOf(llvm::Intrinsic::ID id) {
  switch (id) {
    case llvm::Intrinsic::exp:
      return "exp";
    case llvm::Intrinsic::exp2:
      return "exp2";
    case llvm::Intrinsic::log:
      return "log";
    case llvm::Intrinsic::log2:
      return "log2";
    case llvm::Intrinsic::log10:
      return "log10";
    case llvm::Intrinsic::sin:
      return "sin";
    case llvm::Intrinsic::cos:
      return "cos";
    case llvm::Intrinsic::pow:
      return "pow";
    default:
      return "";
  }
}

llvm::Function* DeclareLike(llvm::Module& module, const std::string& name, llvm::Type* result,
                            llvm::ArrayRef<llvm::Type*> params) {
  llvm::FunctionCallee callee =
      module.getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
  auto* f = llvm::cast<llvm::Function>(callee.getCallee());
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();
  return f;
}

/// A user element operation's function: stays external, for nvJitLink to resolve against
/// NVRTC's object (codegen/user_function.h).
bool IsUserFunction(const llvm::Function& f) { return f.getName().starts_with("gpuc_user_"); }

/// Calls of math intrinsics and libm functions become libdevice calls, frem a call of
/// __nv_fmod.
absl::Status RetargetMath(llvm::Module& module) {
  std::vector<llvm::Instruction*> rewritten;
  for (llvm::Function& f : module) {
    for (llvm::Instruction& inst : llvm::instructions(f)) {
      llvm::Type* t = inst.getType();
      const char* suffix = t->isFloatTy() ? "f" : "";
      if (inst.getOpcode() == llvm::Instruction::FRem && (t->isFloatTy() || t->isDoubleTy())) {
        llvm::Function* fmod = DeclareLike(module, absl::StrCat("__nv_fmod", suffix), t, {t, t});
        llvm::IRBuilder<> b(&inst);
        inst.replaceAllUsesWith(b.CreateCall(fmod, {inst.getOperand(0), inst.getOperand(1)}));
        rewritten.push_back(&inst);
        continue;
      }
      auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
      if (!call || !(t->isFloatTy() || t->isDoubleTy())) continue;
      const std::string base = LibdeviceNameOf(call->getIntrinsicID());
      if (base.empty()) continue;
      std::vector<llvm::Type*> params;
      std::vector<llvm::Value*> args;
      for (llvm::Value* arg : call->args()) {
        params.push_back(arg->getType());
        args.push_back(arg);
      }
      llvm::Function* target = DeclareLike(module, absl::StrCat("__nv_", base, suffix), t, params);
      llvm::IRBuilder<> b(&inst);
      inst.replaceAllUsesWith(b.CreateCall(target, args));
      rewritten.push_back(&inst);
    }
  }
  for (llvm::Instruction* inst : rewritten) inst->eraseFromParent();
  // libm functions the host lowering calls by name ("tanh", "erfcf") have libdevice twins.
  std::vector<llvm::Function*> libm;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() && !f.isIntrinsic() && !f.getName().starts_with("__nv_") &&
        !f.getName().starts_with("gpuc_rt_") && !IsUserFunction(f)) {
      libm.push_back(&f);
    }
  }
  for (llvm::Function* f : libm) {
    llvm::Function* twin = DeclareLike(module, absl::StrCat("__nv_", f->getName().str()),
                                       f->getReturnType(), f->getFunctionType()->params());
    f->replaceAllUsesWith(twin);
    f->eraseFromParent();
  }
  return absl::OkStatus();
}

/// Bodies for the host support library's conversions: one cvt instruction each on the GPU.
absl::Status DefineSupportFunctions(llvm::Module& module) {
  if (llvm::Function* f = module.getFunction(kElementwiseHelper); f && !f->use_empty()) {
    // The helper's first argument is the op, its second the loop dtype.
    std::string what = "an operation";
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(f->user_back())) {
      auto* op = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
      auto* loop = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
      if (op && loop) {
        what = absl::StrCat(ir::OpName(static_cast<ir::OpCode>(op->getZExtValue())), " in ",
                            ir::DTypeName(static_cast<ir::DType>(loop->getZExtValue())));
      }
    }
    return absl::UnimplementedError(
        absl::StrCat(what, " (the host computes it through its support library)"));
  }
  llvm::LLVMContext& c = module.getContext();
  auto define = [&](const char* name,
                    const std::function<llvm::Value*(llvm::IRBuilder<>&, llvm::Value*)>& body) {
    llvm::Function* f = module.getFunction(name);
    if (!f || !f->isDeclaration()) return;
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
    b.CreateRet(body(b, f->getArg(0)));
  };
  define(kHalfToFloat, [](llvm::IRBuilder<>& b, llvm::Value* bits) {
    llvm::Value* h = b.CreateBitCast(b.CreateTrunc(bits, b.getInt16Ty()), b.getHalfTy());
    return b.CreateFPExt(h, b.getFloatTy());
  });
  auto to_bits = [](llvm::IRBuilder<>& b, llvm::Value* v, llvm::Type* t) {
    return b.CreateZExt(b.CreateBitCast(b.CreateFPTrunc(v, t), b.getInt16Ty()), b.getInt32Ty());
  };
  define(kFloatToHalf,
         [&](llvm::IRBuilder<>& b, llvm::Value* v) { return to_bits(b, v, b.getHalfTy()); });
  define(kDoubleToHalf, [&](llvm::IRBuilder<>& b, llvm::Value* v) {
    return to_bits(b, v, b.getHalfTy());  // cvt.rn.f16.f64: one rounding
  });
  define(kDoubleToBFloat16, [&](llvm::IRBuilder<>& b, llvm::Value* v) {
    return to_bits(b, v, b.getBFloatTy());  // cvt.rn.bf16.f64 (sm_90)
  });
  return absl::OkStatus();
}

}  // namespace

std::string ArchForComputeCapability(int major, int minor) {
  return absl::StrCat("sm_", major, minor);
}

absl::StatusOr<std::unique_ptr<NvptxCompiler>> NvptxCompiler::Create(GpuCompileOptions options) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  if (options.ptx_version == 0) options.ptx_version = kHighestPtx;
  options.ptx_version = std::min(options.ptx_version, kHighestPtx);
  if (options.libdevice_path.empty()) options.libdevice_path = FindLibdevice();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target) return absl::InternalError(absl::StrCat("no LLVM NVPTX target: ", error));
  auto compiler = std::unique_ptr<NvptxCompiler>(new NvptxCompiler());
  llvm::TargetOptions target_options;
  if (options.fast_math) {
    target_options.UnsafeFPMath = true;
    target_options.NoInfsFPMath = false;
    target_options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  } else {
    // Contraction into fma changes results; the interpreter rounds every operation.
    target_options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
  }
  const std::string features = absl::StrCat("+ptx", options.ptx_version);
  compiler->machine_.reset(target->createTargetMachine(kTriple, options.arch, features,
                                                       target_options, std::nullopt, std::nullopt,
                                                       llvm::CodeGenOptLevel::Aggressive));
  if (!compiler->machine_) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create an NVPTX target machine for ", options.arch));
  }
  if (!compiler->machine_->getMCSubtargetInfo()->isCPUStringValid(options.arch)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown GPU architecture ", options.arch,
                                                   " (LLVM ", LLVM_VERSION_STRING,
                                                   " knows sm_35 ... sm_90a)"));
  }
  std::ifstream in(options.libdevice_path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(
        "cannot read libdevice at ", options.libdevice_path,
        " (the CUDA toolkit's nvvm/libdevice/libdevice.10.bc; set CUDA_HOME to find it)"));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  compiler->libdevice_bitcode = bytes.str();
  compiler->target_id_ =
      absl::StrCat(kTriple, " ", options.arch, " ptx", options.ptx_version,
                   options.fast_math ? " fast-math" : " ieee",
                   options.exact_math ? " exact-math" : " float-math",
                   options.vector_reductions ? " vector-reductions" : "", " llvm-",
                   LLVM_VERSION_STRING, " libdevice-", compiler->libdevice_bitcode.size(), "-",
                   StableHash(compiler->libdevice_bitcode));
  compiler->options_ = std::move(options);
  return compiler;
}

absl::Status NvptxCompiler::Optimize(llvm::Module& module) {
  module.setTargetTriple(kTriple);
  module.setDataLayout(machine_->createDataLayout());
  if (absl::Status s = DefineSupportFunctions(module); !s.ok()) return s;
  if (absl::Status s = RetargetMath(module); !s.ok()) return s;
  // libdevice reads this flag through NVVMReflect: 0 keeps denormals (IEEE).
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", options_.fast_math ? 1 : 0);
  bool needs_libdevice = false;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) needs_libdevice = true;
  }
  if (needs_libdevice) {
    llvm::Expected<std::unique_ptr<llvm::Module>> libdevice = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(libdevice_bitcode, "libdevice.10.bc"), module.getContext());
    if (!libdevice) {
      return absl::InternalError(
          absl::StrCat("cannot parse libdevice: ", llvm::toString(libdevice.takeError())));
    }
    (*libdevice)->setTargetTriple(kTriple);
    (*libdevice)->setDataLayout(module.getDataLayout());
    if (llvm::Linker::linkModules(module, std::move(*libdevice),
                                  llvm::Linker::Flags::LinkOnlyNeeded)) {
      return absl::InternalError("linking libdevice failed");
    }
  }
  // Fast math covers libdevice's bodies too (linked above), not only the kernels' own math.
  if (options_.fast_math) {
    for (llvm::Function& f : module) {
      if (f.isDeclaration()) continue;
      f.addFnAttr("unsafe-fp-math", "true");
      f.addFnAttr("denormal-fp-math-f32", "preserve-sign");
      for (llvm::Instruction& inst : llvm::instructions(f)) {
        if (llvm::isa<llvm::FPMathOperator>(inst)) inst.setFast(true);
      }
    }
  }
  // Only the kernels stay visible: the rest inlines or goes.
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::GlobalVariable& g : module.globals()) {
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  for (llvm::Function& f : module) {
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty() && !IsUserFunction(f) &&
        f.getName() != "__nvvm_reflect") {  // NVVMReflect folds it in O3
      return absl::UnimplementedError(
          absl::StrCat("no GPU implementation of ", f.getName().str(), " (not in libdevice)"));
    }
  }
  RunO3Pipeline(module, *machine_);  // with NVVMReflect, which folds __nvvm_reflect
  return absl::OkStatus();
}

absl::StatusOr<std::string> NvptxCompiler::EmitPtx(llvm::Module& module) {
  llvm::SmallVector<char, 0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager passes;
  if (machine_->addPassesToEmitFile(passes, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("the NVPTX target cannot emit PTX");
  }
  passes.run(module);
  return std::string(text.begin(), text.end());
}

absl::StatusOr<GpuCompiledKernel> CompileGpuKernel(const KernelSpec& spec, NvptxCompiler& compiler,
                                                   std::string* llvm_ir) {
  llvm::LLVMContext context;
  GpuCompiledKernel result;
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      EmitGpuKernel(spec, context, &result.layout,
                    {compiler.options().exact_math, compiler.options().vector_reductions});
  if (!module.ok()) return module.status();
  if (llvm_ir) *llvm_ir = PrintModule(**module);
  if (absl::Status s = compiler.Optimize(**module); !s.ok()) return s;
  absl::StatusOr<std::string> ptx = compiler.EmitPtx(**module);
  if (!ptx.ok()) return ptx.status();
  result.ptx = *std::move(ptx);
  return result;
}

}  // namespace gpuc::codegen
