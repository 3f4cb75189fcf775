//===- loops_main.cc - Time issue 31's loop programs: cold, warm, compiles ===//
//
//   bench_loops [--program NAME] [--repeat R] [--save DIR] [--scale-only]
//
// One JSON line per program: the first call's time (cold: planning and compiling included;
// run it with an empty GPUC_CACHE_DIR for a cold disk cache), the median of R warm calls,
// the kernels compiled by the first call, by a second call at twice the iteration count (or
// twice the size where the trip count is the size: it must be 0 for a loop compiled once),
// and by the warm calls, and the plans made. --save DIR writes each result as DIR/NAME.npy
// for bench/loops/numpy_loops.py --check DIR.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/loops/loop_programs.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

struct Counters {
  int64_t compiled, plans;
  static Counters Now() {
    return {gpuc::kernel_compile_stats().compiled, gpuc::plan_cache_stats().misses};
  }
};

double TimeRun(const gpuc::bench::LoopProgram& p, int64_t size, int64_t iterations) {
  const Clock::time_point start = Clock::now();
  gpuc::Array result = p.run(size, iterations);
  gpuc::Stream::current().synchronize();
  return Seconds(start);
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, save;
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--program" && i + 1 < argc) only = argv[++i];
    if (arg == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    if (arg == "--save" && i + 1 < argc) save = argv[++i];
  }
  for (const gpuc::bench::LoopProgram& p : gpuc::bench::LoopPrograms()) {
    if (!only.empty() && p.name != only) continue;
    const Counters c0 = Counters::Now();
    const double cold = TimeRun(p, p.size, p.iterations);
    const Counters c1 = Counters::Now();
    // Twice the trip count: twice the size where the size is the trip count.
    const bool size_is_trip = p.name == "covariance" || p.name == "convolution";
    TimeRun(p, size_is_trip ? p.size * 2 : p.size, size_is_trip ? p.iterations : p.iterations * 2);
    const Counters c2 = Counters::Now();
    std::vector<double> warm;
    for (int r = 0; r < repeat; ++r) warm.push_back(TimeRun(p, p.size, p.iterations));
    const Counters c3 = Counters::Now();
    std::sort(warm.begin(), warm.end());
    if (!save.empty()) gpuc::save(save + "/" + p.name + ".npy", p.run(p.size, p.iterations));
    std::printf(
        "{\"program\": \"%s\", \"impl\": \"gpuc\", \"size\": %lld, \"iterations\": %lld, "
        "\"cold_s\": %.6f, \"warm_s\": %.6f, \"compiled_cold\": %lld, "
        "\"compiled_at_twice_the_trip_count\": %lld, \"compiled_warm\": %lld, "
        "\"plans_cold\": %lld, \"plans_warm\": %lld}\n",
        p.name.c_str(), static_cast<long long>(p.size), static_cast<long long>(p.iterations), cold,
        warm[warm.size() / 2], static_cast<long long>(c1.compiled - c0.compiled),
        static_cast<long long>(c2.compiled - c1.compiled),
        static_cast<long long>(c3.compiled - c2.compiled),
        static_cast<long long>(c1.plans - c0.plans), static_cast<long long>(c3.plans - c2.plans));
    std::fflush(stdout);
  }
  return 0;
}
