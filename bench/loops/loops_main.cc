//===- loops_main.cc - Time issue 31's loop programs: cold, warm, compiles ===//
//
//   bench_loops [--program NAME] [--repeat R] [--save DIR] [--trips-factor F]
//   bench_loops --memory N      resident memory over N iterations of a loop where all varies
//
// One JSON line per program: the first call's time (cold: planning and compiling included;
// run it with an empty GPUC_CACHE_DIR for a cold disk cache), the median of R warm calls,
// the kernels compiled by the first call, by a second call at twice (F times) the iteration
// count (or size where the trip count is the size: it must be 0 for a loop compiled once),
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

// Resident memory of the process in MiB (/proc/self/statm).
double ResidentMiB() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * 4096.0 / (1 << 20);
}

// --memory N: N iterations of a loop whose every value varies (a C++ scalar, a slice
// position, a subscript, and one of 600 window lengths, so plans keep being made and dropped
// by the plan cache's LRU); prints the resident memory as it goes. It must stay flat.
int MemoryLoop(int64_t iterations) {
  gpuc::Array a = gpuc::sin(gpuc::arange(0, 4096, 1, gpuc::float64));
  gpuc::Array acc = gpuc::zeros({600});
  a.eval();
  acc.eval();
  double first_mib = 0;
  for (int64_t i = 0; i < iterations; ++i) {
    const int64_t length = 1 + i % 600, at = (i * 7) % 3000;
    gpuc::Array window = a(gpuc::Slice(at, at + length)) * (1.0 + 1e-6 * static_cast<double>(i));
    acc(i % 600) = acc(i % 600) + gpuc::sum(window);
    if ((i + 1) % (iterations / 10) == 0 || i + 1 == iterations) {
      acc.eval();
      const double mib = ResidentMiB();
      if (first_mib == 0) first_mib = mib;
      std::printf(
          "{\"memory_loop\": %lld, \"resident_mib\": %.1f, \"plans_held\": %lld, "
          "\"kernels_compiled\": %lld}\n",
          static_cast<long long>(i + 1), mib,
          static_cast<long long>(gpuc::plan_cache_stats().entries),
          static_cast<long long>(gpuc::kernel_compile_stats().compiled));
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, save;
  int repeat = 5;
  int factor = 2;  // the second call's trip count, in multiples of the first's
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--program" && i + 1 < argc) only = argv[++i];
    if (arg == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    if (arg == "--save" && i + 1 < argc) save = argv[++i];
    if (arg == "--trips-factor" && i + 1 < argc) factor = std::max(2, std::atoi(argv[++i]));
    if (arg == "--memory" && i + 1 < argc) return MemoryLoop(std::max(10, std::atoi(argv[++i])));
  }
  for (const gpuc::bench::LoopProgram& p : gpuc::bench::LoopPrograms()) {
    if (!only.empty() && p.name != only) continue;
    const Counters c0 = Counters::Now();
    const double cold = TimeRun(p, p.size, p.iterations);
    const Counters c1 = Counters::Now();
    // Twice the trip count: twice the size where the size is the trip count.
    const bool size_is_trip = p.name == "covariance" || p.name == "convolution";
    TimeRun(p, size_is_trip ? p.size * factor : p.size,
            size_is_trip ? p.iterations : p.iterations * factor);
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
