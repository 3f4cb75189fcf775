//===- gpu_launch_test.cc - GPU grid shapes and cache entries, without a GPU ===//
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_spec.h"
#include "ir/parser.h"
#include "lib/backend/cuda/gpu_kernel_entry.h"
#include "lib/backend/cuda/gpu_launch.h"
#include "passes/fusion.h"

namespace gpuc::detail {
namespace {

using Kind = codegen::GpuPhaseLaunch::Kind;

codegen::GpuPhaseLaunch Phase(Kind kind, int vector = 1) {
  codegen::GpuPhaseLaunch p;
  p.kind = kind;
  p.vector = vector;
  p.state_bytes = 8;
  return p;
}

TEST(GpuLaunchTest, ReductionSplitsCoverEveryPositionWithoutEmptySplits) {
  for (Kind kind : {Kind::kReduceRows, Kind::kReduceColumns}) {
    for (int vector : {1, 4}) {
      for (int64_t rows : std::vector<int64_t>{1, 3, 7, 132, 1000, 65536}) {
        for (int64_t count : std::vector<int64_t>{0, 1, 5, 255, 4096, 1000001, int64_t{1} << 28}) {
          SCOPED_TRACE(absl::StrCat("kind ", static_cast<int>(kind), " vector ", vector, " rows ",
                                    rows, " count ", count));
          const ReduceLaunch l = ChooseReduceLaunch(Phase(kind, vector), rows, count, 132);
          EXPECT_GE(l.blocks, 1);
          EXPECT_GE(l.splits, 1);
          EXPECT_LE(l.splits, kMaxSplits);
          EXPECT_EQ(l.chunk % vector, 0);
          EXPECT_GE(l.splits * l.chunk, count);
          if (count > 0) {
            EXPECT_LT((l.splits - 1) * l.chunk, count) << "an empty split";
          }
        }
      }
    }
  }
}

TEST(GpuLaunchTest, ShortRowsTakeAThreadEachUnsplit) {
  // 4M rows of 3 (the n-body's r^2): a thread per row over a grid of threads, no combine.
  const ReduceLaunch short_rows =
      ChooseReduceLaunch(Phase(Kind::kReduceRows), int64_t{1} << 22, 3, 132);
  EXPECT_EQ(short_rows.splits, 1);
  EXPECT_EQ(short_rows.blocks, ThreadPerRowBlocks(int64_t{1} << 22, 132));
  EXPECT_GE(short_rows.chunk, 3);
  const ReduceLaunch at_limit =
      ChooseReduceLaunch(Phase(Kind::kReduceRows), 1000, codegen::kGpuThreadRowLimit, 132);
  EXPECT_EQ(at_limit.blocks, ThreadPerRowBlocks(1000, 132));
  EXPECT_EQ(at_limit.splits, 1);
  // One past the limit is a block per row again.
  const ReduceLaunch longer =
      ChooseReduceLaunch(Phase(Kind::kReduceRows), 1000, codegen::kGpuThreadRowLimit + 1, 132);
  EXPECT_EQ(longer.blocks, 1000);
}

TEST(GpuLaunchTest, FewRowsSplitAndManyRowsDoNot) {
  // A full reduction fills the device with splits; rows enough for every SM are not split.
  const ReduceLaunch full = ChooseReduceLaunch(Phase(Kind::kReduceRows), 1, int64_t{1} << 28, 132);
  EXPECT_EQ(full.blocks, 1);
  EXPECT_GE(full.splits, 132);
  const ReduceLaunch rows = ChooseReduceLaunch(Phase(Kind::kReduceRows), 65536, 4096, 132);
  EXPECT_EQ(rows.splits, 1);
  EXPECT_EQ(rows.chunk, 4096);
  // A column reduction of 16384 columns has 64 blocks of threads: it splits the rows.
  const ReduceLaunch columns = ChooseReduceLaunch(Phase(Kind::kReduceColumns), 16384, 16384, 132);
  EXPECT_EQ(columns.blocks, 64);
  EXPECT_GT(columns.splits, 1);
  // The same sizes always give the same shape (reductions are deterministic).
  const ReduceLaunch again = ChooseReduceLaunch(Phase(Kind::kReduceRows), 1, int64_t{1} << 28, 132);
  EXPECT_EQ(again.splits, full.splits);
  EXPECT_EQ(again.chunk, full.chunk);
}

TEST(GpuLaunchTest, GridsStayWithinTheirCaps) {
  EXPECT_EQ(StoreBlocks(1, 4, 132), 1);
  EXPECT_EQ(StoreBlocks(1 << 20, 4, 132), (1 << 20) / 4 / 256);
  EXPECT_EQ(StoreBlocks(int64_t{1} << 30, 4, 132), 132 * 16);
  EXPECT_EQ(ThreadPerRowBlocks(0, 132), 1);
  EXPECT_EQ(RowLocalBlocks(100, 132), 0) << "too few rows for a block per row";
  EXPECT_EQ(RowLocalBlocks(65536, 132), 132 * 16);
  // Combine kernels: a block per row (one for a full reduction) or a thread per row.
  EXPECT_EQ(CombineBlocks(Phase(Kind::kReduceRows), 1, 132), 1);
  EXPECT_EQ(CombineBlocks(Phase(Kind::kReduceRows), 3, 132), 3);
  EXPECT_EQ(CombineBlocks(Phase(Kind::kReduceRows), 1 << 20, 132), 132 * 16);
  EXPECT_EQ(CombineBlocks(Phase(Kind::kReduceColumns), 16384, 132), 16384 / 256);
}

codegen::KernelSpec SoftmaxSpec() {
  absl::StatusOr<ir::Graph> graph = ir::Parse(
      "func @f(%x: f32[64,128]) -> (f32[64,128]) {\n"
      "  %m = reduce_max %x {axes = [1], keepdims = true} : f32[64,1]\n"
      "  %d = sub %x, %m : f32[64,128]\n  %e = exp %d : f32[64,128]\n"
      "  %s = reduce_sum %e {axes = [1], keepdims = true} : f32[64,1]\n"
      "  %y = div %e, %s : f32[64,128]\n  return %y\n}\n");
  EXPECT_TRUE(graph.ok()) << graph.status();
  static passes::FusionPlan plan;  // the spec points into it
  static ir::Graph kept;
  kept = *graph;
  plan = passes::PlanFusion(kept);
  absl::StatusOr<codegen::KernelSpec> spec = codegen::BuildKernelSpec(plan.kernels.at(0));
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

TEST(GpuKernelEntryTest, LayoutAndCubinRoundTrip) {
  const codegen::KernelSpec spec = SoftmaxSpec();
  ASSERT_EQ(spec.phases.size(), 3u);
  codegen::GpuKernelLayout layout;
  layout.phases = {Phase(Kind::kReduceRows, 4), Phase(Kind::kReduceRows, 4),
                   Phase(Kind::kStore, 4)};
  layout.phases[0].state_bytes = 16;
  layout.row_local_kernel = spec.name + "_rows";
  const std::string cubin(
      "\x7f"
      "ELF\0\n binary\n",
      14);
  auto parsed = ParseGpuKernelEntry(SerializeGpuKernelEntry(layout, cubin), spec);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->second, cubin);
  const codegen::GpuKernelLayout& got = parsed->first;
  ASSERT_EQ(got.phases.size(), 3u);
  EXPECT_EQ(got.phases[0].kind, Kind::kReduceRows);
  EXPECT_EQ(got.phases[0].state_bytes, 16);
  EXPECT_EQ(got.phases[2].kind, Kind::kStore);
  EXPECT_EQ(got.phases[2].vector, 4);
  EXPECT_EQ(got.phases[1].kernel, spec.phases[1].function_name);
  EXPECT_EQ(got.phases[1].combine_kernel, spec.phases[1].function_name + "_combine");
  EXPECT_EQ(got.row_local_kernel, spec.name + "_rows");
  EXPECT_FALSE(got.reports_errors);
}

TEST(GpuKernelEntryTest, MalformedOrForeignEntriesAreRejected) {
  const codegen::KernelSpec spec = SoftmaxSpec();
  codegen::GpuKernelLayout two;
  two.phases = {Phase(Kind::kReduceRows), Phase(Kind::kStore)};
  EXPECT_FALSE(ParseGpuKernelEntry(SerializeGpuKernelEntry(two, "cubin"), spec).has_value())
      << "an entry with another phase count";
  EXPECT_FALSE(ParseGpuKernelEntry("", spec).has_value());
  EXPECT_FALSE(ParseGpuKernelEntry("gpuc-gpu-kernel 3 0 0\n1 1\n", spec).has_value());
  EXPECT_FALSE(
      ParseGpuKernelEntry("gpuc-gpu-kernel 3 0 0\n7 1 8\n1 1 8\n0 4 0\n", spec).has_value())
      << "an unknown phase kind";
}

}  // namespace
}  // namespace gpuc::detail
