//===- gpu_scatter_source_test.cc - The GPU scatter and scan kernels compile ===//
//
// Without a GPU: the CUDA source of every scatter (gpu_scatter.h) and scan (gpu_scan.h) the
// GPU accepts compiles with NVRTC for sm_90 and defines its kernels; the combiners and dtypes
// they cannot order or cover are refused with a reason. The kernels' results are checked on a
// device by test/gpu/scatter_gpu_test.cc. Skips without NVRTC.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/cuda_compilers.h"
#include "codegen/cuda_source_compiler.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_scan.h"
#include "lib/backend/cuda/gpu_scatter.h"

namespace gpuc {
namespace {

using ir::DType;

ir::NodeRef Scatter(DType data, DType index, const std::string& combiner,
                    DType values = DType::kBool, bool values_given = false) {
  const ir::TensorType type{data, ir::Shape{5, 4}};
  ir::NodeRef d = ir::Node::Create(ir::OpCode::kParameter, type);
  ir::NodeRef i = ir::Node::Create(ir::OpCode::kParameter, {index, ir::Shape{3}});
  ir::NodeRef v =
      ir::Node::Create(ir::OpCode::kParameter, {values_given ? values : data, ir::Shape{3, 4}});
  return ir::Node::Create(ir::OpCode::kScatter, type, {d, i, v},
                          {{"axis", int64_t{0}}, {"combiner", combiner}});
}

TEST(GpuScatterSource, EveryAcceptedScatterCompiles) {
  if (absl::StatusOr<const codegen::Nvrtc*> nvrtc = codegen::GetNvrtc(); !nvrtc.ok()) {
    GTEST_SKIP() << nvrtc.status().message();
  }
  int compiled = 0;
  for (DType data :
       {DType::kBool, DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32,
        DType::kUInt32, DType::kInt64, DType::kUInt64, DType::kFloat16, DType::kBFloat16,
        DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    for (const char* combiner : {"set", "add", "sub", "mul", "div", "minimum", "maximum"}) {
      for (DType index : {DType::kInt64, DType::kUInt8}) {
        // Unsigned indices change only the check: set and add are enough for them.
        if (index == DType::kUInt8 && std::string(combiner) != "set" &&
            std::string(combiner) != "add") {
          continue;
        }
        ir::NodeRef s = Scatter(data, index, combiner);
        if (!detail::GpuScatterRefusal(*s, false).empty()) continue;
        SCOPED_TRACE(detail::GpuScatterKey(*s));
        codegen::CudaSourceOptions options;
        options.options = {"--fmad=false"};
        absl::StatusOr<codegen::CompiledCuda> out = codegen::CompileCudaSource(
            detail::GpuScatterSource(*s), "gpuc_scatter.cu", options, nullptr);
        ASSERT_TRUE(out.ok()) << out.status() << "\n" << detail::GpuScatterSource(*s);
        EXPECT_TRUE(absl::StrContains(out->ptx, ".entry gpuc_scatter_check"));
        EXPECT_TRUE(absl::StrContains(out->ptx, ".entry gpuc_scatter_apply"));
        EXPECT_FALSE(out->cubin.empty());
        ++compiled;
      }
    }
  }
  // set for all 15 dtypes, 5 integer combiners for 8 integer dtypes, 6 float combiners for 2,
  // add and sub for 2 complex dtypes; set and add again with uint8 indices.
  EXPECT_EQ(compiled, (15 + 8 * 5 + 2 * 6 + 2 * 2) + (15 + 8 + 2 + 2));
}

TEST(GpuScatterSource, NativeAtomicsWhereTheHardwareHasThem) {
  if (absl::StatusOr<const codegen::Nvrtc*> nvrtc = codegen::GetNvrtc(); !nvrtc.ok()) {
    GTEST_SKIP() << nvrtc.status().message();
  }
  auto ptx_of = [](DType data, const char* combiner) {
    codegen::CudaSourceOptions options;
    absl::StatusOr<codegen::CompiledCuda> out = codegen::CompileCudaSource(
        detail::GpuScatterSource(*Scatter(data, DType::kInt64, combiner)), "gpuc_scatter.cu",
        options, nullptr);
    return out.ok() ? out->ptx : std::string();
  };
  EXPECT_TRUE(absl::StrContains(ptx_of(DType::kFloat32, "add"), "atom.global.add.f32"));
  EXPECT_TRUE(absl::StrContains(ptx_of(DType::kInt64, "add"), "atom.global.add.u64"));
  EXPECT_TRUE(absl::StrContains(ptx_of(DType::kInt32, "minimum"), "atom.global.min.s32"));
  EXPECT_TRUE(absl::StrContains(ptx_of(DType::kFloat64, "maximum"), "atom.global.cas.b64"));
  EXPECT_TRUE(absl::StrContains(ptx_of(DType::kInt8, "mul"), "cas.b32"));  // its word
}

TEST(GpuScatterSource, RefusesWhatItCannotRunOrOrder) {
  EXPECT_TRUE(absl::StrContains(
      detail::GpuScatterRefusal(*Scatter(DType::kInt32, DType::kInt64, "div"), false),
      "no GPU scatter kernel"));
  EXPECT_TRUE(absl::StrContains(
      detail::GpuScatterRefusal(
          *Scatter(DType::kFloat32, DType::kInt64, "add", DType::kFloat64, true), false),
      "another dtype"));
  EXPECT_TRUE(absl::StrContains(
      detail::GpuScatterRefusal(*Scatter(DType::kFloat32, DType::kInt64, "add"), true),
      "GPUC_DETERMINISTIC"));
  // Exact in any order: deterministic anyway.
  EXPECT_EQ(detail::GpuScatterRefusal(*Scatter(DType::kInt64, DType::kInt64, "add"), true), "");
  EXPECT_EQ(detail::GpuScatterRefusal(*Scatter(DType::kFloat32, DType::kInt32, "maximum"), true),
            "");
  EXPECT_EQ(detail::GpuScatterRefusal(*Scatter(DType::kFloat64, DType::kInt32, "set"), true), "");
}

TEST(GpuScanSource, EveryAcceptedScanCompiles) {
  if (absl::StatusOr<const codegen::Nvrtc*> nvrtc = codegen::GetNvrtc(); !nvrtc.ok()) {
    GTEST_SKIP() << nvrtc.status().message();
  }
  int compiled = 0;
  for (ir::OpCode op : {ir::OpCode::kCumSum, ir::OpCode::kCumProd}) {
    for (auto [in, out] :
         {std::pair{DType::kBool, DType::kInt64}, std::pair{DType::kInt8, DType::kInt64},
          std::pair{DType::kInt32, DType::kInt32}, std::pair{DType::kUInt32, DType::kUInt64},
          std::pair{DType::kInt64, DType::kInt64}, std::pair{DType::kFloat32, DType::kFloat32},
          std::pair{DType::kFloat32, DType::kFloat64}, std::pair{DType::kFloat64, DType::kFloat64},
          std::pair{DType::kInt64, DType::kFloat64}}) {
      ir::NodeRef x = ir::Node::Create(ir::OpCode::kParameter, {in, ir::Shape{4, 5}});
      ir::NodeRef scan = ir::Node::Create(op, {out, ir::Shape{4, 5}}, {x}, {{"axis", int64_t{1}}});
      SCOPED_TRACE(detail::GpuScanKey(*scan));
      ASSERT_EQ(detail::GpuScanRefusal(*scan), "");
      codegen::CudaSourceOptions options;
      absl::StatusOr<codegen::CompiledCuda> result = codegen::CompileCudaSource(
          detail::GpuScanSource(*scan), "gpuc_scan.cu", options, nullptr);
      ASSERT_TRUE(result.ok()) << result.status();
      for (const char* kernel :
           {"gpuc_scan_columns", "gpuc_scan_totals", "gpuc_scan_prefixes", "gpuc_scan_tiles"}) {
        EXPECT_TRUE(absl::StrContains(result->ptx, absl::StrCat(".entry ", kernel))) << kernel;
      }
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 18);
  // Complex results and half-precision ones stay on the host.
  ir::NodeRef z = ir::Node::Create(ir::OpCode::kParameter, {DType::kComplex64, ir::Shape{3}});
  EXPECT_NE(
      detail::GpuScanRefusal(*ir::Node::Create(
          ir::OpCode::kCumSum, {DType::kComplex64, ir::Shape{3}}, {z}, {{"axis", int64_t{0}}})),
      "");
}

}  // namespace
}  // namespace gpuc
