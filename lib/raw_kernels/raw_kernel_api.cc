//===- raw_kernel_api.cc - RawModule and RawKernel -------------------------===//
#include <atomic>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gpuc/raw_kernel.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/api/status_to_error.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/eval/evaluator.h"
#include "lib/raw_kernels/kernel_arguments.h"
#include "lib/raw_kernels/raw_module.h"
#include "runtime/cuda_driver.h"

namespace gpuc {
namespace {

using detail::RawModuleImpl;

/// "raw_module_3.cu": NVRTC's name for a source, unique per process so messages tell modules
/// apart; the cache key does not include it, so it costs no cache hits.
std::string ProgramName(absl::string_view stem) {
  static std::atomic<int> counter{0};
  return absl::StrCat(stem, "_", counter++, ".cu");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) detail::ThrowInvalid(absl::StrCat("RawModule::from_file: cannot read '", path, "'"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The device forms of the Array arguments; a written array whose buffer anything else can
/// see gets a private copy first (value semantics), and its host copy is dropped after.
struct ResolvedArrays {
  std::vector<detail::DeviceArgument> arguments;
  std::vector<const detail::Buffer*> written;
};

bool SharedWithOthers(const detail::ArrayImpl& impl, const detail::DeviceTensor& device) {
  // Our impl holds the node; the node holds the buffer; the buffer and `device` hold storage.
  return impl.node.use_count() > 1 || impl.node->binding().use_count() > 1 ||
         device.storage.use_count() > 2;
}

ResolvedArrays ResolveArrays(const codegen::KernelSignature& kernel,
                             const std::vector<KernelArg>& args, detail::GpuExecutor& executor) {
  std::vector<detail::ArrayImpl*> pending;
  for (const KernelArg& arg : args) {
    if (arg.kind() != KernelArg::Kind::kArray && arg.kind() != KernelArg::Kind::kView) continue;
    detail::ArrayImpl& impl = detail::ImplOf(arg.array(), "RawKernel");
    if (impl.traced) {
      detail::ThrowInvalid(absl::StrCat("RawKernel ", kernel.demangled,
                                        ": cannot launch on a gpuc::compile placeholder; "
                                        "launch it outside the traced function"));
    }
    if (!impl.evaluated()) pending.push_back(&impl);
  }
  if (!pending.empty()) detail::EvaluateArrays(pending);
  runtime::CudaStream* stream = internal::ValueOrThrow(executor.stream());
  ResolvedArrays resolved;
  resolved.arguments.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& arg = args[i];
    if (arg.kind() != KernelArg::Kind::kArray && arg.kind() != KernelArg::Kind::kView) continue;
    detail::ArrayImpl& impl = *arg.array().impl();
    detail::DeviceTensor device = internal::ValueOrThrow(impl.buffer().OnDevice(executor.device()));
    if (kernel.parameters[i].MayWrite()) {
      if (SharedWithOthers(impl, device)) {
        std::shared_ptr<detail::DeviceStorage> storage =
            internal::ValueOrThrow(detail::DeviceStorage::Allocate(
                executor.device(), *stream, static_cast<size_t>(device.size_in_bytes())));
        internal::ThrowIfError(stream->CopyDeviceToDevice(
            storage->address(), device.address, static_cast<size_t>(device.size_in_bytes())));
        detail::DeviceTensor copy{device.type, storage, storage->address()};
        detail::BindResult(impl, std::make_shared<const detail::Buffer>(copy));
        device = copy;
      }
      resolved.written.push_back(&impl.buffer());
    }
    resolved.arguments[i] = {device.address, device.type.shape};
  }
  return resolved;
}

void LaunchOnCurrentStream(RawModuleImpl& module, const std::string& symbol, Dim3 grid, Dim3 block,
                           const std::vector<KernelArg>& args, unsigned shared_bytes) {
  // Checked before anything is evaluated, loaded or launched.
  const codegen::KernelSignature* signature = module.Signature(symbol);
  if (signature != nullptr) internal::ThrowIfError(detail::CheckKernelArguments(*signature, args));
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    detail::ThrowInvalid(absl::StrCat("RawKernel ", symbol, ": grid (", grid.x, ", ", grid.y, ", ",
                                      grid.z, ") and block (", block.x, ", ", block.y, ", ",
                                      block.z, ") must have no zero extent"));
  }
  runtime::CudaModule* loaded = internal::ValueOrThrow(module.Loaded());
  runtime::CudaKernel kernel = internal::ValueOrThrow(loaded->GetKernel(symbol));
  std::optional<codegen::KernelSignature> from_driver;
  if (signature == nullptr) {
    from_driver = internal::ValueOrThrow(module.DriverSignature(kernel));
    signature = &*from_driver;
    internal::ThrowIfError(detail::CheckKernelArguments(*signature, args));
  }
  detail::GpuExecutor& executor = *internal::ValueOrThrow(detail::GpuExecutor::Get());
  ResolvedArrays arrays = ResolveArrays(*signature, args, executor);
  detail::PackedArguments packed =
      internal::ValueOrThrow(detail::PackKernelArguments(*signature, args, arrays.arguments));
  runtime::CudaStream* stream = internal::ValueOrThrow(executor.stream());
  internal::ThrowIfError(runtime::Launch(*stream, kernel, {grid.x, grid.y, grid.z},
                                         {block.x, block.y, block.z}, shared_bytes,
                                         packed.pointers()));
  for (const detail::Buffer* buffer : arrays.written) buffer->DiscardHostCopy();
}

}  // namespace

RawModule::RawModule(const std::string& source, const std::vector<std::string>& options,
                     const std::vector<std::string>& name_expressions)
    : impl_(internal::ValueOrThrow(
          RawModuleImpl::Compile(source, ProgramName("raw_module"), options, name_expressions))) {}

RawModule RawModule::from_file(const std::string& path, const std::vector<std::string>& options,
                               const std::vector<std::string>& name_expressions) {
  std::string contents = ReadFile(path);
  if (absl::EndsWith(path, ".ptx")) {
    return RawModule(internal::ValueOrThrow(
        RawModuleImpl::FromImage(RawModuleImpl::Image::kPtx, std::move(contents), path)));
  }
  if (absl::EndsWith(path, ".cubin") || absl::EndsWith(path, ".fatbin")) {
    return RawModule(internal::ValueOrThrow(
        RawModuleImpl::FromImage(RawModuleImpl::Image::kCubin, std::move(contents), path)));
  }
  return RawModule(
      internal::ValueOrThrow(RawModuleImpl::Compile(contents, path, options, name_expressions)));
}

RawKernel RawModule::get_function(const std::string& name) const {
  return RawKernel(impl_, name, internal::ValueOrThrow(impl_->ResolveKernel(name)));
}

std::vector<std::string> RawModule::kernel_names() const {
  std::vector<std::string> names;
  for (const codegen::KernelSignature& kernel : impl_->signatures) names.push_back(kernel.name);
  return names;
}

std::string RawModule::lowered_name(const std::string& name_expression) const {
  for (const auto& [expression, lowered] : impl_->compiled.lowered_names) {
    if (expression == name_expression) return lowered;
  }
  detail::ThrowInvalid(absl::StrCat(impl_->program_name, ": '", name_expression,
                                    "' was not given as a name expression"));
}

const std::string& RawModule::ptx() const { return impl_->compiled.ptx; }
const std::string& RawModule::compile_log() const { return impl_->compiled.log; }
bool RawModule::from_cache() const { return impl_->compiled.from_disk_cache; }

namespace {

using Global = runtime::CudaGlobal;

Global FindGlobal(RawModuleImpl& module, const std::string& name) {
  runtime::CudaModule* loaded = internal::ValueOrThrow(module.Loaded());
  return internal::ValueOrThrow(loaded->GetGlobal(name));
}

void CheckGlobalSize(const RawModuleImpl& module, const std::string& name, const Global& global,
                     size_t bytes) {
  if (bytes != global.bytes) {
    detail::ThrowInvalid(absl::StrCat(module.program_name, ": __device__ global '", name, "' is ",
                                      global.bytes, " bytes, ", bytes, " given"));
  }
}

}  // namespace

void RawModule::write_global(const std::string& name, const void* data, size_t bytes) const {
  Global global = FindGlobal(*impl_, name);
  CheckGlobalSize(*impl_, name, global, bytes);
  detail::GpuExecutor& executor = *internal::ValueOrThrow(detail::GpuExecutor::Get());
  runtime::CudaStream* stream = internal::ValueOrThrow(executor.stream());
  internal::ThrowIfError(stream->CopyHostToDevice(global.address, data, bytes));
  internal::ThrowIfError(stream->Synchronize());  // `data` may go away when we return
}

void RawModule::read_global(const std::string& name, void* data, size_t bytes) const {
  Global global = FindGlobal(*impl_, name);
  CheckGlobalSize(*impl_, name, global, bytes);
  detail::GpuExecutor& executor = *internal::ValueOrThrow(detail::GpuExecutor::Get());
  runtime::CudaStream* stream = internal::ValueOrThrow(executor.stream());
  internal::ThrowIfError(stream->CopyDeviceToHost(data, global.address, bytes));
  internal::ThrowIfError(stream->Synchronize());
}

size_t RawModule::global_size(const std::string& name) const {
  return FindGlobal(*impl_, name).bytes;
}

RawKernel::RawKernel(const std::string& source, const std::string& name,
                     const std::vector<std::string>& options) {
  // A template instantiation is a name expression: NVRTC instantiates and names it.
  std::vector<std::string> expressions;
  if (absl::StrContains(name, "<")) expressions.push_back(name);
  module_ = internal::ValueOrThrow(RawModuleImpl::Compile(
      source, ProgramName(name.substr(0, name.find('<'))), options, expressions));
  name_ = name;
  symbol_ = internal::ValueOrThrow(module_->ResolveKernel(name));
}

RawKernel::RawKernel(std::shared_ptr<detail::RawModuleImpl> module, std::string name,
                     std::string symbol)
    : module_(std::move(module)), name_(std::move(name)), symbol_(std::move(symbol)) {}

void RawKernel::operator()(Dim3 grid, Dim3 block, const std::vector<KernelArg>& args,
                           unsigned shared_bytes) const {
  LaunchOnCurrentStream(*module_, symbol_, grid, block, args, shared_bytes);
}

void RawKernel::launch(Dim3 grid, Dim3 block, const std::vector<KernelArg>& args,
                       unsigned shared_bytes, const Stream& stream) const {
  StreamGuard guard(stream);
  LaunchOnCurrentStream(*module_, symbol_, grid, block, args, shared_bytes);
}

std::string RawKernel::signature() const {
  const codegen::KernelSignature* signature = module_->Signature(symbol_);
  return signature ? detail::DescribeSignature(*signature) : symbol_;
}

KernelAttributes RawKernel::attributes() const {
  runtime::CudaModule* loaded = internal::ValueOrThrow(module_->Loaded());
  runtime::CudaKernel kernel = internal::ValueOrThrow(loaded->GetKernel(symbol_));
  const runtime::CudaDriver& driver = *internal::ValueOrThrow(runtime::GetCudaDriver());
  auto get = [&](CUfunction_attribute attribute, const char* what) {
    int value = 0;
    internal::ThrowIfError(runtime::CudaStatus(
        driver, driver.cuFuncGetAttribute(&value, attribute, kernel.function), what));
    return value;
  };
  KernelAttributes a;
  a.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "cuFuncGetAttribute");
  a.num_registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute");
  a.shared_size_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "cuFuncGetAttribute");
  a.const_size_bytes = get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "cuFuncGetAttribute");
  a.local_size_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "cuFuncGetAttribute");
  a.max_dynamic_shared_size_bytes =
      get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "cuFuncGetAttribute");
  a.ptx_version = get(CU_FUNC_ATTRIBUTE_PTX_VERSION, "cuFuncGetAttribute");
  a.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION, "cuFuncGetAttribute");
  return a;
}

void RawKernel::set_max_dynamic_shared_memory(int bytes) const {
  runtime::CudaModule* loaded = internal::ValueOrThrow(module_->Loaded());
  runtime::CudaKernel kernel = internal::ValueOrThrow(loaded->GetKernel(symbol_));
  const runtime::CudaDriver& driver = *internal::ValueOrThrow(runtime::GetCudaDriver());
  internal::ThrowIfError(runtime::CudaStatus(
      driver,
      driver.cuFuncSetAttribute(kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                bytes),
      absl::StrCat("RawKernel ", name_, ": set_max_dynamic_shared_memory(", bytes, ")")));
}

}  // namespace gpuc
