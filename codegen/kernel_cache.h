//===- kernel_cache.h - Compiled kernels on disk --------------------------===//
//
// Machine code survives the process: the second run of a program pays no compile stall.
// An entry is one file named by the stable hash of its full key (kernel text, target, LLVM
// and gpuc versions, options) under a two-hex-digit shard directory, and holds the full key
// and a checksum: an entry for another key (a hash collision, another machine sharing the
// directory) or a damaged file is detected, removed and recompiled. Writes go to a temporary
// file renamed into place, so concurrent processes never read half an entry. The directory
// is kept under a size cap by evicting the least recently used entries (reads refresh an
// entry's time).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_KERNEL_CACHE_H_
#define GPUC_CODEGEN_KERNEL_CACHE_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace gpuc::codegen {

class DiskCache {
 public:
  /// Where and how large come from the execution options (lib/exec/options.h:
  /// GPUC_CACHE_DIR, GPUC_CACHE_MAX_BYTES); the cache reads no environment itself.
  DiskCache(std::string directory, int64_t max_bytes)
      : directory_(std::move(directory)), max_bytes_(max_bytes) {}

  const std::string& directory() const { return directory_; }

  /// The stored object for `key`, or nothing (missing, foreign or corrupt: then removed).
  std::optional<std::string> Load(const std::string& key);
  /// Stores atomically, then evicts down to the cap when the directory passed it. Failures
  /// (a read-only directory) only cost the cache, never the evaluation.
  void Store(const std::string& key, const std::string& object);

  struct Usage {
    int64_t entries = 0;
    int64_t bytes = 0;
  };
  Usage Scan() const;
  /// Evicts least recently used entries until at most `max_bytes` remain; returns how many.
  int64_t Prune(int64_t max_bytes);
  /// Removes every entry; returns how many.
  int64_t Clear();

  /// Drops `key`'s entry (one that passed its checksum but whose object did not load).
  void Remove(const std::string& key);

  int64_t corrupt_entries() const { return corrupt_; }
  /// Paths at an entry's name that are not regular files (FIFOs, sockets, devices), skipped.
  int64_t skipped_entries() const { return skipped_; }

  /// The file that holds (or would hold) `key`'s entry.
  std::string PathFor(const std::string& key) const;

 private:
  std::string directory_;
  int64_t max_bytes_;
  std::atomic<int64_t> corrupt_{0};
  std::atomic<int64_t> skipped_{0};
  std::atomic<int64_t> stored_since_prune_{0};
};

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_KERNEL_CACHE_H_
