//===- host_suite_main.cc - Time issue 36's host suite: cold and warm ------===//
//
//   bench_host_suite [--program NAME] [--max-elements N] [--min-time S] [--save DIR]
//
// One JSON line per program and size (10^3 .. 10^7 elements): the first call's time (cold:
// planning and compiling included, inputs made before) and the median of warm calls, as many
// as fit in --min-time seconds (at least 5). --save DIR writes each result at sizes up to
// 10^5 as DIR/NAME-SIZE.npy for bench/host/numpy_suite.py --check DIR.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/host/host_programs.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, save;
  int64_t max_elements = 10000000;
  double min_time = 0.3;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--program" && i + 1 < argc) only = argv[++i];
    if (arg == "--max-elements" && i + 1 < argc) max_elements = std::atoll(argv[++i]);
    if (arg == "--min-time" && i + 1 < argc) min_time = std::atof(argv[++i]);
    if (arg == "--save" && i + 1 < argc) save = argv[++i];
  }
  for (const gpuc::bench::HostProgram& p : gpuc::bench::HostPrograms()) {
    if (!only.empty() && p.name != only) continue;
    for (int64_t n : gpuc::bench::HostSuiteSizes()) {
      if (n > std::min(max_elements, p.max_elements)) continue;
      const std::vector<gpuc::Array> inputs = p.inputs(n);
      Clock::time_point start = Clock::now();
      gpuc::Array result = p.run(inputs);
      const double cold = Seconds(start);
      std::vector<double> warm;
      const Clock::time_point warm_start = Clock::now();
      while (warm.size() < 5 || (Seconds(warm_start) < min_time && warm.size() < 100000)) {
        start = Clock::now();
        result = p.run(inputs);
        warm.push_back(Seconds(start));
      }
      std::sort(warm.begin(), warm.end());
      if (!save.empty() && n <= 100000) {
        gpuc::save(save + "/" + p.name + "-" + std::to_string(n) + ".npy", result);
      }
      std::printf(
          "{\"program\": \"%s\", \"impl\": \"gpuc\", \"elements\": %lld, \"cold_s\": %.6g, "
          "\"warm_s\": %.6g, \"calls\": %zu}\n",
          p.name.c_str(), static_cast<long long>(n), cold, warm[warm.size() / 2], warm.size());
      std::fflush(stdout);
    }
  }
  return 0;
}
