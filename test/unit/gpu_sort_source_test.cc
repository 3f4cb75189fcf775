//===- gpu_sort_source_test.cc - The GPU sort kernels compile --------------===//
//
// Without a GPU: the CUDA source of sort and argsort (gpu_sort.h) over every real dtype
// compiles with NVRTC for sm_90 and defines its kernels; complex elements are refused with a
// reason. The kernels' results are checked on a device by test/gpu/sort_gpu_test.cc. Skips
// without NVRTC.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/cuda_compilers.h"
#include "codegen/cuda_source_compiler.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_sort.h"

namespace gpuc {
namespace {

using ir::DType;

ir::NodeRef Sort(ir::OpCode op, DType dtype) {
  ir::NodeRef x = ir::Node::Create(ir::OpCode::kParameter, {dtype, ir::Shape{4, 5}});
  const DType out = op == ir::OpCode::kArgSort ? DType::kInt64 : dtype;
  return ir::Node::Create(op, {out, ir::Shape{4, 5}}, {x}, {{"axis", int64_t{1}}});
}

TEST(GpuSortSource, EveryRealDtypeCompiles) {
  if (absl::StatusOr<const codegen::Nvrtc*> nvrtc = codegen::GetNvrtc(); !nvrtc.ok()) {
    GTEST_SKIP() << nvrtc.status().message();
  }
  int compiled = 0;
  for (ir::OpCode op : {ir::OpCode::kSort, ir::OpCode::kArgSort}) {
    for (DType dtype : {DType::kBool, DType::kInt8, DType::kUInt16, DType::kInt32, DType::kUInt64,
                        DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
      ir::NodeRef sort = Sort(op, dtype);
      SCOPED_TRACE(detail::GpuSortKey(*sort));
      ASSERT_EQ(detail::GpuSortRefusal(*sort), "");
      codegen::CudaSourceOptions options;
      absl::StatusOr<codegen::CompiledCuda> result = codegen::CompileCudaSource(
          detail::GpuSortSource(*sort), "gpuc_sort.cu", options, nullptr);
      ASSERT_TRUE(result.ok()) << result.status();
      for (const char* kernel :
           {"gpuc_sort_tiny", "gpuc_sort_block", "gpuc_sort_load", "gpuc_sort_count",
            "gpuc_sort_offsets", "gpuc_sort_scatter", "gpuc_sort_store"}) {
        EXPECT_TRUE(absl::StrContains(result->ptx, absl::StrCat(".entry ", kernel))) << kernel;
      }
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 16);
}

TEST(GpuSortSource, ComplexElementsStayOnTheHost) {
  const std::string reason = detail::GpuSortRefusal(*Sort(ir::OpCode::kSort, DType::kComplex64));
  EXPECT_TRUE(absl::StrContains(reason, "complex")) << reason;
  EXPECT_EQ(detail::GpuSortRefusal(*Sort(ir::OpCode::kArgSort, DType::kFloat32)), "");
}

}  // namespace
}  // namespace gpuc
