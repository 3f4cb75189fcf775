//===- kernel_cache_test.cc - The disk kernel cache and kernel reuse -------===//
//
// The disk cache returns what was stored, detects damaged and foreign entries (and drops
// them so they are recompiled), evicts least recently used entries down to its cap, and
// clears. In a process, a kernel is compiled once and reused, for every size of the same
// structure; a kernel of a different structure never serves another graph.
//
//===----------------------------------------------------------------------===//
#include "codegen/kernel_cache.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "codegen/kernel_spec.h"
#include "lib/backend/host/host_executor.h"
#include "passes/fusion.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc::codegen {
namespace {

namespace fs = std::filesystem;

class DiskCacheTest : public testing::Test {
 protected:
  void SetUp() override {
    directory_ = (fs::temp_directory_path() /
                  ("gpuc-cache-test-" + std::to_string(::getpid()) + "-" +
                   testing::UnitTest::GetInstance()->current_test_info()->name()))
                     .string();
    fs::remove_all(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  std::string directory_;
};

TEST_F(DiskCacheTest, ReturnsWhatWasStored) {
  DiskCache cache(directory_, 1 << 20);
  EXPECT_FALSE(cache.Load("kernel a").has_value());
  cache.Store("kernel a", std::string("object\0bytes", 12));
  std::optional<std::string> object = cache.Load("kernel a");
  ASSERT_TRUE(object.has_value());
  EXPECT_EQ(*object, std::string("object\0bytes", 12));
  EXPECT_FALSE(cache.Load("kernel b").has_value());
  EXPECT_EQ(cache.Scan().entries, 1);
  // Sharded: the entry sits in a two-hex-digit directory.
  EXPECT_EQ(fs::path(cache.PathFor("kernel a")).parent_path().filename().string().size(), 2u);
}

TEST_F(DiskCacheTest, DamagedEntriesAreDroppedAndRecompiled) {
  DiskCache cache(directory_, 1 << 20);
  cache.Store("kernel a", "machine code");
  const std::string path = cache.PathFor("kernel a");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-12, std::ios::end);
    f.write("X", 1);  // one flipped byte in the object
  }
  EXPECT_FALSE(cache.Load("kernel a").has_value());
  EXPECT_EQ(cache.corrupt_entries(), 1);
  EXPECT_FALSE(fs::exists(path));
  cache.Store("kernel a", "machine code");
  {
    std::ofstream truncated(path, std::ios::binary | std::ios::trunc);
    truncated << "gpuc";
  }
  EXPECT_FALSE(cache.Load("kernel a").has_value());
  EXPECT_EQ(cache.corrupt_entries(), 2);
  cache.Store("kernel a", "machine code");
  EXPECT_EQ(cache.Load("kernel a").value_or(""), "machine code");
}

TEST_F(DiskCacheTest, AFifoAtAnEntrysNameIsSkippedNotRead) {
  // Reading a FIFO with no writer blocks forever; the cache must not open it.
  DiskCache cache(directory_, 1 << 20);
  const std::string path = cache.PathFor("kernel f");
  fs::create_directories(fs::path(path).parent_path());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(cache.Load("kernel f").has_value());
  EXPECT_EQ(cache.skipped_entries(), 1);
  EXPECT_TRUE(fs::is_fifo(path)) << "not ours to remove";
  // A directory there is skipped the same way.
  const std::string dir_path = cache.PathFor("kernel d");
  fs::create_directories(dir_path);
  EXPECT_FALSE(cache.Load("kernel d").has_value());
  EXPECT_EQ(cache.skipped_entries(), 2);
}

TEST_F(DiskCacheTest, RemoveDropsAnEntry) {
  DiskCache cache(directory_, 1 << 20);
  cache.Store("kernel r", "object");
  ASSERT_TRUE(cache.Load("kernel r").has_value());
  cache.Remove("kernel r");
  EXPECT_FALSE(cache.Load("kernel r").has_value());
  EXPECT_EQ(cache.Scan().entries, 0);
}

TEST_F(DiskCacheTest, AnotherKeysEntryIsNeverReturned) {
  DiskCache cache(directory_, 1 << 20);
  cache.Store("kernel a", "code of a");
  // The same file under kernel b's name: a hash collision, or a directory shared with
  // another machine whose keys differ.
  fs::create_directories(fs::path(cache.PathFor("kernel b")).parent_path());
  fs::copy_file(cache.PathFor("kernel a"), cache.PathFor("kernel b"));
  EXPECT_FALSE(cache.Load("kernel b").has_value());
  EXPECT_EQ(cache.Load("kernel a").value_or(""), "code of a");
}

TEST_F(DiskCacheTest, PruningEvictsTheLeastRecentlyUsed) {
  DiskCache cache(directory_, 1 << 20);
  const std::string object(1000, 'x');
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 10; ++i) {
    const std::string key = "kernel " + std::to_string(i);
    cache.Store(key, object);
    // Older entries were used longer ago (explicit times: file systems round them).
    fs::last_write_time(cache.PathFor(key), now - std::chrono::hours(10 - i));
  }
  ASSERT_TRUE(cache.Load("kernel 0").has_value());  // the oldest, now the most recent
  const int64_t entry_bytes = cache.Scan().bytes / 10;
  EXPECT_EQ(cache.Prune(3 * entry_bytes), 7);
  const DiskCache::Usage usage = cache.Scan();
  EXPECT_EQ(usage.entries, 3);
  EXPECT_LE(usage.bytes, 3 * entry_bytes);
  EXPECT_TRUE(cache.Load("kernel 0").has_value());
  EXPECT_TRUE(cache.Load("kernel 9").has_value());
  EXPECT_FALSE(cache.Load("kernel 5").has_value());
  EXPECT_EQ(cache.Clear(), 3);
  EXPECT_EQ(cache.Scan().entries, 0);
}

std::string AddGraph(const std::string& op, int rows, int columns, int b_rows) {
  const std::string a = "f32[" + std::to_string(rows) + "," + std::to_string(columns) + "]";
  const std::string b = "f32[" + std::to_string(b_rows) + "," + std::to_string(columns) + "]";
  return "func @f(%a: " + a + ", %b: " + b + ") -> (" + a + ") {\n  %c = " + op + " %a, %b : " + a +
         "\n  %d = exp %c : " + a + "\n  return %d\n}\n";
}

std::string KeyOf(const std::string& text) {
  const ir::Graph graph = test::ParseVerified(text);
  const passes::FusionPlan plan = passes::PlanFusion(graph);
  EXPECT_EQ(plan.kernels.size(), 1u);
  absl::StatusOr<KernelSpec> spec = BuildKernelSpec(plan.kernels[0]);
  EXPECT_TRUE(spec.ok());
  return spec->key_text;
}

TEST(KernelKeyTest, StructureDecidesTheKeyAndSizesDoNot) {
  EXPECT_EQ(KeyOf(AddGraph("add", 4, 8, 4)), KeyOf(AddGraph("add", 300, 7, 300)));
  EXPECT_NE(KeyOf(AddGraph("add", 4, 8, 4)), KeyOf(AddGraph("sub", 4, 8, 4)));
  // A broadcast operand reads differently: another kernel.
  EXPECT_NE(KeyOf(AddGraph("add", 4, 8, 4)), KeyOf(AddGraph("add", 4, 8, 1)));
  // Equal extents share a symbol, so a square shape is a structure of its own...
  EXPECT_NE(KeyOf(AddGraph("add", 4, 8, 1)), KeyOf(AddGraph("add", 8, 8, 1)));
  // ... unless its axes collapse: same-shape elementwise kernels are one flat loop.
  EXPECT_EQ(KeyOf(AddGraph("add", 4, 8, 4)), KeyOf(AddGraph("add", 8, 8, 8)));
}

TEST(KernelReuseTest, OneCompileServesEverySizeAndTheSecondRunHitsMemory) {
  detail::HostExecutor& executor = detail::HostExecutor::Get();
  auto run = [&](const std::string& text) {
    const ir::Graph graph = test::ParseVerified(text);
    absl::StatusOr<std::vector<ir::HostTensor>> out =
        executor.Run(graph, tool::RandomArguments(graph, 1));
    EXPECT_TRUE(out.ok()) << out.status();
  };
  // A structure no other test uses: maximum over extents that appear nowhere else.
  const std::string first = AddGraph("maximum", 13, 29, 1);
  const detail::HostBackendStats s0 = executor.stats();
  run(first);
  const detail::HostBackendStats s1 = executor.stats();
  EXPECT_EQ((s1.compiles - s0.compiles) + (s1.disk_hits - s0.disk_hits), 1);
  run(first);
  run(AddGraph("maximum", 1000, 3, 1));  // another size, same structure
  const detail::HostBackendStats s2 = executor.stats();
  EXPECT_EQ(s2.compiles, s1.compiles);
  EXPECT_EQ(s2.disk_hits, s1.disk_hits);
  EXPECT_EQ(s2.memory_hits - s1.memory_hits, 2);
}

}  // namespace
}  // namespace gpuc::codegen
