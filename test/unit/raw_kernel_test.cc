//===- raw_kernel_test.cc - User CUDA kernels without a GPU ---------------===//
//
// NVRTC compiles and nvJitLink links on any machine with the toolkit: these tests compile
// good and bad sources, resolve names, check launch arguments against the kernels' signatures,
// pack parameters, hit the disk cache, and link NVRTC's relocatable code with PTX from gpuc's
// own NVPTX back end. Launches themselves are in test/gpu/raw_kernel_gpu_test.cc.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>

#include "absl/strings/match.h"
#include "codegen/cuda_compilers.h"
#include "codegen/cuda_source_compiler.h"
#include "codegen/kernel_signature.h"
#include "gpuc/gpuc.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/raw_kernels/kernel_arguments.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

#define SKIP_WITHOUT_NVRTC()                                                            \
  if (absl::StatusOr<const codegen::Nvrtc*> nvrtc = codegen::GetNvrtc(); !nvrtc.ok()) { \
    GTEST_SKIP() << nvrtc.status().message();                                           \
  }

constexpr char kKernels[] = R"(
#include <gpuc/array_view.cuh>
#include <cuda_fp16.h>
template <typename T>
__global__ void axpy(T* y, const T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
extern "C" __global__ void fill(float* y, float v, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}
__global__ void scale_half(__half* y, __half a, unsigned int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hmul(y[i], a);
}
__global__ void flags(bool* out, bool on, unsigned char small, short s) {}
__global__ void copy2d(gpuc::ArrayView<float, 2> out, gpuc::ArrayView<const float, 2> in) {
  out(threadIdx.y, threadIdx.x) = in(threadIdx.y, threadIdx.x);
}
)";

std::string Unique(absl::string_view source) {
  // A fresh comment makes a source no earlier run cached.
  static std::mt19937_64 rng(std::random_device{}());
  return absl::StrCat("// ", rng(), " ",
                      std::chrono::steady_clock::now().time_since_epoch().count(), "\n", source);
}

using test::ErrorOf;

TEST(RawKernelTest, CompilesTemplatesByNameExpression) {
  SKIP_WITHOUT_NVRTC();
  RawModule module(kKernels, {}, {"axpy<float>", "axpy<double>"});
  EXPECT_EQ(module.lowered_name("axpy<float>"), "_Z4axpyIfEvPT_PKS0_S0_i");
  EXPECT_EQ(module.lowered_name("axpy<double>"), "_Z4axpyIdEvPT_PKS0_S0_i");
  EXPECT_EQ(module.get_function("axpy<double>").signature(),
            "void axpy<double>(double*, double const*, double, int)");
  EXPECT_EQ(module.get_function("fill").signature(), "fill(.u64, .f32, .u64)");
  // A C++ (mangled) kernel is found by its plain name when only one has it.
  EXPECT_EQ(module.get_function("copy2d").signature(),
            "copy2d(gpuc::ArrayView<float, 2>, gpuc::ArrayView<float const, 2>)");
  std::vector<std::string> names = module.kernel_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "fill"), names.end());
  EXPECT_NE(module.ptx().find(".entry fill("), std::string::npos);
  // Two instantiations share the name "axpy": ambiguous.
  EXPECT_NE(ErrorOf([&] { module.get_function("axpy"); }).find("ambiguous"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { module.get_function("nope"); }).find("no kernel 'nope'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { module.lowered_name("axpy<int>"); }).find("not given"),
            std::string::npos);
}

TEST(RawKernelTest, RawKernelInstantiatesATemplateName) {
  SKIP_WITHOUT_NVRTC();
  RawKernel kernel(kKernels, "axpy<float>");
  EXPECT_EQ(kernel.signature(), "void axpy<float>(float*, float const*, float, int)");
  EXPECT_EQ(kernel.name(), "axpy<float>");
}

TEST(RawKernelTest, CompileErrorNamesTheLineAndCarriesTheLog) {
  SKIP_WITHOUT_NVRTC();
  const std::string source =
      "extern \"C\" __global__ void broken(float* y) {\n"
      "  int fine = 1;\n"
      "  y[threadIdx.x] = missing_value + fine;\n"
      "}\n";
  std::string message = ErrorOf([&] { RawKernel kernel(source, "broken"); });
  EXPECT_NE(message.find("NVRTC could not compile broken_"), std::string::npos) << message;
  EXPECT_NE(message.find("line 3: error: identifier \"missing_value\" is undefined"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("NVRTC log:"), std::string::npos) << message;
  // A bad option is an error too, and the process goes on compiling.
  EXPECT_NE(
      ErrorOf([&] { RawKernel kernel(kKernels, "fill", {"--no-such-option"}); }).find("NVRTC"),
      std::string::npos);
  RawKernel good(kKernels, "fill", {"-DUNUSED=1"});
  EXPECT_EQ(good.signature(), "fill(.u64, .f32, .u64)");
}

TEST(RawKernelTest, UserOptionsReachNvrtc) {
  SKIP_WITHOUT_NVRTC();
  const std::string source =
      "#ifndef WIDTH\n#error WIDTH must be set\n#endif\n"
      "extern \"C\" __global__ void k(float* y) { y[0] = WIDTH; }\n";
  EXPECT_NE(ErrorOf([&] { RawKernel kernel(source, "k"); }).find("WIDTH must be set"),
            std::string::npos);
  RawKernel kernel(source, "k", {"-DWIDTH=4"});
  EXPECT_EQ(kernel.signature(), "k(.u64)");
}

TEST(RawKernelTest, SecondCompileComesFromTheDiskCache) {
  SKIP_WITHOUT_NVRTC();
  const std::string source = Unique(kKernels);
  const codegen::CudaSourceStats before = codegen::GetCudaSourceStats();
  RawModule first(source);
  RawModule second(source);
  const codegen::CudaSourceStats after = codegen::GetCudaSourceStats();
  EXPECT_FALSE(first.from_cache());
  EXPECT_TRUE(second.from_cache());
  EXPECT_EQ(after.compiles - before.compiles, 1);
  EXPECT_EQ(after.disk_hits - before.disk_hits, 1);
  EXPECT_EQ(first.ptx(), second.ptx());
  // Other options are another entry.
  RawModule third(source, {"-DOTHER=1"});
  EXPECT_FALSE(third.from_cache());
}

class RawKernelArgumentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_NVRTC();
    module_ = std::make_unique<RawModule>(kKernels, std::vector<std::string>{},
                                          std::vector<std::string>{"axpy<float>"});
  }
  std::string LaunchError(const std::string& kernel, const std::vector<KernelArg>& args) {
    RawKernel k = module_->get_function(kernel);
    return ErrorOf([&] { k({1}, {32}, args); });
  }
  std::unique_ptr<RawModule> module_;
};

TEST_F(RawKernelArgumentTest, WrongCountIsAnError) {
  Array y = random::uniform({8}, 0, 1, float32);
  std::string message = LaunchError("axpy<float>", {y, y, 2.0f});
  EXPECT_NE(message.find("void axpy<float>(float*, float const*, float, int): 3 arguments given, "
                         "the kernel takes 4"),
            std::string::npos)
      << message;
}

TEST_F(RawKernelArgumentTest, ElementTypeMustMatchThePointer) {
  Array y = random::uniform({8}, 0, 1, float32);
  Array x64 = random::uniform({8}, 0, 1, float64);
  std::string message = LaunchError("axpy<float>", {y, x64, 2.0f, 8});
  EXPECT_NE(message.find("argument 2 is an Array of float64 [8], but parameter 2 is float const*: "
                         "the elements are float, not float64"),
            std::string::npos)
      << message;
}

TEST_F(RawKernelArgumentTest, NumbersMustSuitTheirParameters) {
  Array y = random::uniform({8}, 0, 1, float32);
  EXPECT_NE(LaunchError("axpy<float>", {y, y, 2.0f, 2.5})
                .find("a floating-point number for an "
                      "integer parameter"),
            std::string::npos);
  EXPECT_NE(LaunchError("axpy<float>", {y, y, 2.0f, int64_t{1} << 40}).find("does not fit int"),
            std::string::npos);
  Array h = full({8}, 1, float16);
  EXPECT_NE(LaunchError("scale_half", {h, 1.0, -1}).find("does not fit unsigned int"),
            std::string::npos);
  EXPECT_NE(LaunchError("scale_half", {y, 1.0, 8}).find("the elements are __half, not float32"),
            std::string::npos);
  Array b = full({8}, true, bool_);
  EXPECT_NE(LaunchError("flags", {b, 2, 1, 1}).find("bool parameter"), std::string::npos);
  EXPECT_NE(LaunchError("flags", {b, true, 256, 1}).find("does not fit unsigned char"),
            std::string::npos);
  EXPECT_NE(LaunchError("flags", {b, true, 255, 40000}).find("does not fit short"),
            std::string::npos);
  EXPECT_NE(LaunchError("axpy<float>", {3, y, 2.0f, 8}).find("a pointer parameter takes an Array"),
            std::string::npos);
  EXPECT_NE(LaunchError("axpy<float>", {y, y, y, 8}).find("is not one"), std::string::npos);
}

TEST_F(RawKernelArgumentTest, ViewsMustMatchRankAndType) {
  Array a = random::uniform({4, 4}, 0, 1, float32);
  Array v = random::uniform({4}, 0, 1, float32);
  EXPECT_NE(LaunchError("copy2d", {view(a), view(v)}).find("the view has 1 axes, the parameter 2"),
            std::string::npos);
  EXPECT_NE(LaunchError("copy2d", {a, view(a)}).find("takes gpuc::view(array)"), std::string::npos);
  EXPECT_NE(LaunchError("axpy<float>", {view(a), a, 1.0f, 16}).find("is not one"),
            std::string::npos);
  Array i = arange(16).reshape({4, 4});
  EXPECT_NE(LaunchError("copy2d", {view(a), view(i)}).find("the elements are float, not int64"),
            std::string::npos);
}

TEST_F(RawKernelArgumentTest, CorrectArgumentsLaunchOrSayThereIsNoDevice) {
  Array y = full({64}, 1.5, float32);
  Array x = random::uniform({64}, -1, 1, float32);
  RawKernel axpy = module_->get_function("axpy<float>");
  if (!detail::GpuExecutor::Get().ok()) {
    std::string message = ErrorOf([&] { axpy({1}, {64}, {y, x, 2.0f, 64}); });
    EXPECT_NE(message.find("no CUDA device is present"), std::string::npos) << message;
    // Nothing was lost: the arrays are still readable.
    EXPECT_FLOAT_EQ(y.to_host<float>()[3], 1.5f);
    return;
  }
  axpy({1}, {64}, {y, x, 2.0f, 64});
  std::vector<float> got = y.to_host<float>(), xs = x.to_host<float>();
  for (int i = 0; i < 64; ++i) EXPECT_FLOAT_EQ(got[i], 1.5f + 2.0f * xs[i]) << i;
}

codegen::KernelSignature SignatureOf(const RawModule& module, const std::string& name) {
  absl::StatusOr<std::vector<codegen::KernelSignature>> kernels =
      codegen::ParseKernelSignatures(module.ptx());
  EXPECT_TRUE(kernels.ok()) << kernels.status();
  for (const codegen::KernelSignature& s : *kernels) {
    if (s.name == name || absl::StartsWith(s.demangled, name + "(") ||
        absl::StrContains(s.demangled, " " + name + "(")) {
      return s;
    }
  }
  ADD_FAILURE() << "no kernel " << name;
  return {};
}

TEST_F(RawKernelArgumentTest, PacksEachParameterInItsOwnType) {
  codegen::KernelSignature half = SignatureOf(*module_, "scale_half");
  ASSERT_EQ(half.parameters.size(), 3u);
  std::vector<KernelArg> args = {full({2}, 1, float16), 0.5, 7};
  std::vector<detail::DeviceArgument> arrays(3);
  arrays[0].address = 0x1234560;
  absl::StatusOr<detail::PackedArguments> packed = detail::PackKernelArguments(half, args, arrays);
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(packed->bytes(0).size(), 8u);
  uint64_t address = 0;
  std::memcpy(&address, packed->bytes(0).data(), 8);
  EXPECT_EQ(address, 0x1234560u);
  EXPECT_EQ(packed->bytes(1), (std::vector<uint8_t>{0x00, 0x38}));  // 0.5 as IEEE half
  EXPECT_EQ(packed->bytes(2), (std::vector<uint8_t>{7, 0, 0, 0}));

  codegen::KernelSignature copy = SignatureOf(*module_, "copy2d");
  ASSERT_EQ(copy.parameters.size(), 2u);
  EXPECT_EQ(copy.parameters[0].size_bytes, 40);
  Array a = random::uniform({3, 5}, 0, 1, float32);
  std::vector<detail::DeviceArgument> views(2);
  views[0] = {0xabc00, ir::Shape({3, 5})};
  views[1] = {0xdef00, ir::Shape({3, 5})};
  packed = detail::PackKernelArguments(copy, {view(a), view(a)}, views);
  ASSERT_TRUE(packed.ok()) << packed.status();
  int64_t fields[5];
  std::memcpy(fields, packed->bytes(1).data(), 40);
  EXPECT_EQ(fields[0], 0xdef00);
  EXPECT_EQ(fields[1], 3);
  EXPECT_EQ(fields[2], 5);
  EXPECT_EQ(fields[3], 5);  // row stride in elements
  EXPECT_EQ(fields[4], 1);

  codegen::KernelSignature fill = SignatureOf(*module_, "fill");
  packed = detail::PackKernelArguments(fill, {a, 3, uint64_t{1} << 40}, views);
  ASSERT_TRUE(packed.ok()) << packed.status();
  float value = 0;
  std::memcpy(&value, packed->bytes(1).data(), 4);
  EXPECT_EQ(value, 3.0f);  // an integer for a float parameter converts
  int64_t count = 0;
  std::memcpy(&count, packed->bytes(2).data(), 8);
  EXPECT_EQ(count, int64_t{1} << 40);
}

TEST(KernelSignatureTest, ReadsPtxParametersAndDemangledTypes) {
  const std::string ptx = R"(
.visible .entry k2(
	.param .u64 k2_param_0,
	.param .align 8 .b8 k2_param_1[24],
	.param .u8 k2_param_2
)
{ ret; }
.weak .entry _Z3addIfEvPT_PKS0_S0_i(
	.param .u64 _Z3addIfEvPT_PKS0_S0_i_param_0,
	.param .u64 _Z3addIfEvPT_PKS0_S0_i_param_1,
	.param .f32 _Z3addIfEvPT_PKS0_S0_i_param_2,
	.param .u32 _Z3addIfEvPT_PKS0_S0_i_param_3
)
{ ret; }
.visible .entry none()
{ ret; }
)";
  absl::StatusOr<std::vector<codegen::KernelSignature>> kernels =
      codegen::ParseKernelSignatures(ptx);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 3u);
  const codegen::KernelSignature& k2 = (*kernels)[0];
  ASSERT_EQ(k2.parameters.size(), 3u);
  EXPECT_TRUE(k2.parameters[0].MayBePointer());
  EXPECT_TRUE(k2.parameters[0].MayWrite());
  EXPECT_TRUE(k2.parameters[1].IsAggregate());
  EXPECT_EQ(k2.parameters[1].size_bytes, 24);
  EXPECT_EQ(k2.parameters[1].align_bytes, 8);
  const codegen::KernelSignature& add = (*kernels)[1];
  EXPECT_EQ(add.demangled, "void add<float>(float*, float const*, float, int)");
  EXPECT_EQ(add.parameters[0].PointeeType(), "float");
  EXPECT_TRUE(add.parameters[0].MayWrite());
  EXPECT_FALSE(add.parameters[1].MayWrite());
  EXPECT_FALSE(add.parameters[2].MayBePointer());
  EXPECT_EQ(add.parameters[3].cpp_type, "int");
  EXPECT_TRUE((*kernels)[2].parameters.empty());
}

TEST(KernelSignatureTest, PointeeNamesMatchDtypes) {
  EXPECT_TRUE(detail::PointeeAccepts("float", ir::DType::kFloat32));
  EXPECT_FALSE(detail::PointeeAccepts("float", ir::DType::kFloat64));
  EXPECT_TRUE(detail::PointeeAccepts("long long", ir::DType::kInt64));
  EXPECT_TRUE(detail::PointeeAccepts("__half", ir::DType::kFloat16));
  EXPECT_TRUE(detail::PointeeAccepts("float2", ir::DType::kComplex64));
  EXPECT_TRUE(detail::PointeeAccepts("void", ir::DType::kUInt8));
  EXPECT_TRUE(detail::PointeeAccepts("MyParticle", ir::DType::kFloat32));  // unknown: allowed
  EXPECT_FALSE(detail::PointeeAccepts("unsigned int", ir::DType::kInt32));
}

TEST(NvJitLinkTest, LinksNvptxCodeWithARelocatableUserFunction) {
  SKIP_WITHOUT_NVRTC();
  if (absl::StatusOr<const codegen::NvJitLink*> link = codegen::GetNvJitLink(); !link.ok()) {
    GTEST_SKIP() << link.status().message();
  }
  // The user's function, relocatable: defined in NVRTC's object, called from the PTX below.
  codegen::CudaSourceOptions options;
  options.relocatable = true;
  absl::StatusOr<codegen::CompiledCuda> user = codegen::CompileCudaSource(
      "extern \"C\" __device__ float user_op(float x) { return x * x + 1.0f; }\n", "user.cu",
      options, nullptr);
  ASSERT_TRUE(user.ok()) << user.status();
  const std::string kernel_ptx = R"(
.version 8.5
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) user_op(.param .b32 user_op_param_0);
.visible .entry apply(.param .u64 apply_param_0)
{
	.reg .b32 %f<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [apply_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.f32 %f1, [%rd2];
	{
	.param .b32 param0;
	st.param.f32 [param0], %f1;
	.param .b32 retval0;
	call.uni (retval0), user_op, (param0);
	ld.param.f32 %f2, [retval0];
	}
	st.global.f32 [%rd2], %f2;
	ret;
}
)";
  absl::StatusOr<std::string> cubin =
      codegen::LinkDeviceCode({{codegen::LinkInput::Kind::kPtx, kernel_ptx, "apply.ptx"},
                               {codegen::LinkInput::Kind::kCubin, user->cubin, "user.cubin"}},
                              "sm_90");
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_EQ(cubin->substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_NE(cubin->find("apply"), std::string::npos);
  // Without the user's object the call is unresolved: an error with nvJitLink's log.
  absl::StatusOr<std::string> unresolved =
      codegen::LinkDeviceCode({{codegen::LinkInput::Kind::kPtx, kernel_ptx, "apply.ptx"}}, "sm_90");
  ASSERT_FALSE(unresolved.ok());
  EXPECT_NE(unresolved.status().message().find("user_op"), std::string::npos)
      << unresolved.status();
}

TEST(CudaSourceCompilerTest, FirstCompileErrorReadsNvrtcLogs) {
  EXPECT_EQ(
      codegen::FirstCompileError("k.cu(7): warning: unused\nk.cu(9): error: bad thing\n", "k.cu"),
      "line 9: error: bad thing");
  EXPECT_EQ(codegen::FirstCompileError("something else\n", "k.cu"), "something else");
}

}  // namespace
}  // namespace gpuc
