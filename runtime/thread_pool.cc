//===- thread_pool.cc - Host worker threads for parallel loops ------------===//
#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>

namespace gpuc::runtime {
namespace {

thread_local bool inside_pool = false;

}  // namespace

struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t, int64_t)>* body;
  int64_t n, chunk_size, chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  int active_workers = 0;  // guarded by mutex; the job lives until it is 0
  std::mutex mutex;
  std::condition_variable finished;
};

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

ThreadPool& ThreadPool::Shared(int threads) {
  // hardware_concurrency reads /sys on every call (several microseconds); a kernel launch
  // asks for its pool every time.
  static const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 0) threads = cores;
  // Leaked on purpose: kernels may run from static destructors of user code.
  static std::mutex mutex;
  static auto* pools = new std::map<int, std::unique_ptr<ThreadPool>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<ThreadPool>& pool = (*pools)[threads];
  if (!pool) pool = std::make_unique<ThreadPool>(threads);
  return *pool;
}

int64_t ThreadPool::ChunkCount(int64_t n, int64_t grain) const {
  if (n <= 0) return 0;
  // A few chunks per thread balance uneven rows without paying much per chunk.
  const int64_t by_grain = (n + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1);
  return std::max<int64_t>(1, std::min<int64_t>(by_grain, 4 * size()));
}

void ThreadPool::RunChunks(Job& job) {
  for (int64_t c = job.next++; c < job.chunks; c = job.next++) {
    const int64_t begin = c * job.chunk_size;
    const int64_t end = std::min(job.n, begin + job.chunk_size);
    (*job.body)(begin, end, c);
    if (++job.done == job.chunks) {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.finished.notify_all();
    }
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain,
                             const std::function<void(int64_t, int64_t, int64_t)>& body) {
  const int64_t chunks = ChunkCount(n, grain);
  if (chunks == 0) return;
  if (chunks == 1 || workers_.empty() || inside_pool) {
    const int64_t chunk_size = (n + chunks - 1) / chunks;
    for (int64_t c = 0; c < chunks; ++c) body(c * chunk_size, std::min(n, (c + 1) * chunk_size), c);
    return;
  }
  std::lock_guard<std::mutex> turn(run_mutex_);
  Job job;
  job.body = &body;
  job.n = n;
  job.chunks = chunks;
  job.chunk_size = (n + chunks - 1) / chunks;
  job.chunks = (n + job.chunk_size - 1) / job.chunk_size;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  inside_pool = true;
  RunChunks(job);
  inside_pool = false;
  {
    // No worker joins after this; then wait for the ones that did to leave the job.
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = nullptr;
  }
  std::unique_lock<std::mutex> lock(job.mutex);
  job.finished.wait(lock, [&] { return job.done.load() == job.chunks && job.active_workers == 0; });
}

void ThreadPool::WorkerLoop() {
  inside_pool = true;
  uint64_t seen = 0;
  while (true) {
    Job* job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || (job_ && generation_ != seen); });
      if (stopping_) return;
      seen = generation_;
      job = job_;
      std::lock_guard<std::mutex> job_lock(job->mutex);
      ++job->active_workers;
    }
    RunChunks(*job);
    std::lock_guard<std::mutex> job_lock(job->mutex);
    --job->active_workers;
    job->finished.notify_all();
  }
}

}  // namespace gpuc::runtime
