//===- compile_cache.cc - Get or compile a kernel: memory, disk, compiler -===//
#include "lib/exec/compile_cache.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include "gpuc/evaluation.h"

namespace gpuc::exec {

ProcessCompileCounters& ProcessCounters() {
  static auto* counters = new ProcessCompileCounters;  // never destroyed: kernels run at exit
  return *counters;
}

codegen::DiskCache* DiskCacheFor(const Options& options) {
  if (!options.disk_cache) return nullptr;
  // One cache per directory for the life of the process (its atomics make it immovable, and
  // compiled kernels' owners keep pointing at it); leaked on purpose, like the executors.
  static std::mutex mutex;
  static auto* caches = new absl::flat_hash_map<std::string, std::unique_ptr<codegen::DiskCache>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<codegen::DiskCache>& cache = (*caches)[options.cache_directory];
  if (!cache) {
    cache = std::make_unique<codegen::DiskCache>(options.cache_directory, options.cache_max_bytes);
  }
  return cache.get();
}

std::string GpucBuildId() {
  Dl_info info;
  std::string id = "gpuc-0.1.0";
  if (dladdr(reinterpret_cast<void*>(&GpucBuildId), &info) && info.dli_fname) {
    struct stat st;
    if (stat(info.dli_fname, &st) == 0) {
      absl::StrAppend(&id, " ", static_cast<int64_t>(st.st_size), " ",
                      static_cast<int64_t>(st.st_mtim.tv_sec), ".",
                      static_cast<int64_t>(st.st_mtim.tv_nsec));
    }
  }
  return id;
}

}  // namespace gpuc::exec

namespace gpuc {

KernelCompileStats kernel_compile_stats() {
  const exec::ProcessCompileCounters& c = exec::ProcessCounters();
  return {c.compiles.load(), c.disk_hits.load(), c.memory_hits.load(),
          c.compile_microseconds.load()};
}

}  // namespace gpuc
