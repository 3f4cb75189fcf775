//===- thread_pool.h - Host worker threads for parallel loops -------------===//
//
// The host back end splits each kernel's rows over these threads. One shared pool per
// thread count (the execution options choose it; 0 is one per core); the calling thread
// works too, so a pool of one thread runs everything inline.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_THREAD_POOL_H_
#define GPUC_RUNTIME_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuc::runtime {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The process's pool of `threads` threads (0: one per core), made on first use.
  static ThreadPool& Shared(int threads);

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Calls `body(begin, end, chunk)` over [0, n) cut into chunks of at least `grain` items
  /// (chunk numbers are 0..chunks-1), and returns when all have run. Nested calls from a
  /// worker run inline.
  void ParallelFor(int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t, int64_t)>& body);
  /// How many chunks ParallelFor(n, grain) uses.
  int64_t ChunkCount(int64_t n, int64_t grain) const;

 private:
  struct Job;
  void WorkerLoop();
  static void RunChunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  std::mutex run_mutex_;  // one ParallelFor at a time; others wait their turn
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_THREAD_POOL_H_
