//===- compile_cache.h - Get or compile a kernel: memory, disk, compiler --===//
//
// Every target finds a compiled kernel the same way, so the logic lives here once:
//   1. in memory, by the kernel's memory key (kernel text and the options that change code);
//   2. kernels known to have no lowering answer Unimplemented again without trying;
//   3. on disk (codegen/kernel_cache.h), by the full key (memory key, target, build): a
//      second process pays no compile;
//   4. else compiled, and stored on disk.
// The target supplies two steps: `compile` produces the artifact (the bytes the disk keeps:
// an object file, a cubin with its launch layout), and `load` makes it runnable (links it
// into the JIT, loads the module). A disk entry that does not load is dropped and compiled
// again, so a bad entry costs one compile, never a failed evaluation.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EXEC_COMPILE_CACHE_H_
#define GPUC_LIB_EXEC_COMPILE_CACHE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "codegen/kernel_cache.h"
#include "lib/exec/options.h"

namespace gpuc::exec {

struct CompileStats {
  int64_t memory_hits = 0;           // found compiled in this process
  int64_t disk_hits = 0;             // loaded from the disk cache
  int64_t compiles = 0;              // compiled
  int64_t compile_microseconds = 0;  // spent compiling (not loading)
};

/// Counts over every compile cache of the process (every target, every option set): what
/// gpuc::kernel_compile_stats() reports, so a program can see that a loop stops compiling.
struct ProcessCompileCounters {
  std::atomic<int64_t> memory_hits{0};
  std::atomic<int64_t> disk_hits{0};
  std::atomic<int64_t> compiles{0};
  std::atomic<int64_t> compile_microseconds{0};
};
ProcessCompileCounters& ProcessCounters();

/// The disk kernel cache the options name, shared by every target in the process; null when
/// the options turn it off.
codegen::DiskCache* DiskCacheFor(const Options& options);

/// Identifies this build of gpuc for cache keys: a rebuilt library may generate different code
/// for the same kernel text, so the key includes the library file's size and modification time.
std::string GpucBuildId();

template <typename Compiled>
class CompileCache {
 public:
  /// Makes the artifact; Unimplemented when there is no lowering for the kernel.
  using CompileFn = std::function<absl::StatusOr<std::string>()>;
  /// Makes an artifact runnable.
  using LoadFn = std::function<absl::StatusOr<std::unique_ptr<Compiled>>(const std::string&)>;

  /// `target_id` says what the kernels are compiled for ("x86-64 znver3", "sm_90 ptx85").
  explicit CompileCache(std::string target_id)
      : target_id_(std::move(target_id)), build_id_(GpucBuildId()) {}

  absl::StatusOr<std::shared_ptr<const Compiled>> GetOrCompile(const std::string& memory_key,
                                                               codegen::DiskCache* disk,
                                                               const CompileFn& compile,
                                                               const LoadFn& load) {
    // One compile at a time: two threads asking for one kernel compile it once.
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = compiled_.find(memory_key); it != compiled_.end()) {
      if (std::shared_ptr<const Compiled> alive = it->second.kernel.lock()) {
        ++stats_.memory_hits;
        ++ProcessCounters().memory_hits;
        KeepRecent(it->second, alive);
        return alive;
      }
      compiled_.erase(it);  // unloaded: every plan that used it is gone
    }
    if (auto it = not_compilable_.find(memory_key); it != not_compilable_.end()) {
      return absl::UnimplementedError(it->second);
    }
    const std::string disk_key =
        disk ? absl::StrCat(memory_key, "target ", target_id_, "\nbuild ", build_id_, "\n") : "";
    std::unique_ptr<Compiled> ready;
    if (disk) {
      if (std::optional<std::string> artifact = disk->Load(disk_key)) {
        absl::StatusOr<std::unique_ptr<Compiled>> loaded = load(*artifact);
        if (loaded.ok()) {
          ++stats_.disk_hits;
          ++ProcessCounters().disk_hits;
          ready = *std::move(loaded);
        } else {
          disk->Remove(disk_key);  // evicted, then compiled again below
        }
      }
    }
    if (!ready) {
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<std::string> artifact = compile();
      if (!artifact.ok()) {
        if (absl::IsUnimplemented(artifact.status())) {
          not_compilable_[memory_key] = std::string(artifact.status().message());
        }
        return artifact.status();
      }
      const int64_t microseconds = std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::steady_clock::now() - start)
                                       .count();
      ++stats_.compiles;
      stats_.compile_microseconds += microseconds;
      ++ProcessCounters().compiles;
      ProcessCounters().compile_microseconds += microseconds;
      if (disk) disk->Store(disk_key, *artifact);
      absl::StatusOr<std::unique_ptr<Compiled>> loaded = load(*artifact);
      if (!loaded.ok()) return loaded.status();
      ready = *std::move(loaded);
    }
    std::shared_ptr<const Compiled> result = std::move(ready);
    Entry& entry = compiled_[memory_key];
    entry.kernel = result;
    KeepRecent(entry, result);
    if (compiled_.size() >= prune_at_) {
      absl::erase_if(compiled_, [](const auto& e) { return e.second.kernel.expired(); });
      prune_at_ = std::max<size_t>(2 * compiled_.size(), 64);
    }
    return result;
  }

  /// Kernels held loaded although no plan uses them (the most recently used): a plan made
  /// again soon finds them. Older ones are unloaded once their last plan is gone, so the
  /// memory of a long loop is bounded by the plan cache's capacity and this.
  static constexpr size_t kRecentKernels = 512;

  CompileStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  const std::string& target_id() const { return target_id_; }

 private:
  const std::string target_id_;
  const std::string build_id_;
  struct Entry {
    std::weak_ptr<const Compiled> kernel;  // loaded while a plan or `recent_` holds it
    typename std::list<std::pair<Entry*, std::shared_ptr<const Compiled>>>::iterator recent;
    bool in_recent = false;
  };
  // Moves `kernel` to the front of the recently used ones, unloading the least recent past
  // kRecentKernels unless a plan still holds it.
  void KeepRecent(Entry& entry, const std::shared_ptr<const Compiled>& kernel) {
    if (entry.in_recent) recent_.erase(entry.recent);
    recent_.push_front({&entry, kernel});
    entry.recent = recent_.begin();
    entry.in_recent = true;
    while (recent_.size() > kRecentKernels) {
      recent_.back().first->in_recent = false;
      recent_.pop_back();
    }
  }

  mutable std::mutex mutex_;
  // node_hash_map: `recent_` points at entries, which must not move when the map grows.
  absl::node_hash_map<std::string, Entry> compiled_;
  std::list<std::pair<Entry*, std::shared_ptr<const Compiled>>> recent_;  // most recent first
  size_t prune_at_ = 64;
  absl::flat_hash_map<std::string, std::string> not_compilable_;  // -> why
  CompileStats stats_;
};

}  // namespace gpuc::exec

#endif  // GPUC_LIB_EXEC_COMPILE_CACHE_H_
