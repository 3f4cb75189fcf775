//===- loop_bench.cc - A plain C++ time loop over lazy ops, timed ---------===//
#include "bench/gpu/loop_bench.h"

#include <chrono>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "bench/gpu/bench_util.h"
#include "gpuc/gpuc.h"

namespace gpuc::bench {
namespace {

void JacobiHalfStep(Array& dst, const Array& src) {
  const Slice in(1, -1), up(0, -2), down(2, none);
  dst(in, in) = (src(up, in) + src(down, in) + src(in, up) + src(in, down)) * 0.25f;
  dst.eval();
}

struct LoopTiming {
  double wall_us_per_step = 0;  // to the end of the GPU's work
  double host_us_per_step = 0;  // until the last step was enqueued
};

LoopTiming TimeJacobi(int64_t n, int steps, bool plan_cache) {
  set_plan_cache_capacity(plan_cache ? 256 : 0);
  random::Generator rng(7);
  Array a = rng.uniform({n, n}, 0.0, 1.0, float32).eval();
  Array b = (a * 0.5f).eval();
  for (int t = 0; t < 10; ++t) {  // plan, compile, warm the pool
    JacobiHalfStep(b, a);
    JacobiHalfStep(a, b);
  }
  Stream::current().synchronize();
  const Clock::time_point start = Clock::now();
  for (int t = 0; t < steps; ++t) {
    JacobiHalfStep(b, a);
    JacobiHalfStep(a, b);
  }
  const double host_ms = MillisecondsSince(start);
  Stream::current().synchronize();
  const double wall_ms = MillisecondsSince(start);
  // The result must be a real value (the stencil of random data stays in (0, 1)).
  const double probe = a(n / 2, n / 2).item<double>();
  if (!(probe > 0.0 && probe < 1.0)) {
    std::fprintf(stderr, "loop bench: implausible value %g\n", probe);
    std::exit(1);
  }
  set_plan_cache_capacity(256);
  return {wall_ms * 1e3 / steps, host_ms * 1e3 / steps};
}

}  // namespace

void RunLoopWorkloads(bool quick) {
  struct Size {
    int64_t n;
    int steps;
  };
  for (const Size& size : {Size{64, quick ? 50 : 500}, Size{4096, quick ? 10 : 100}}) {
    for (bool cache : {true, false}) {
      const LoopTiming t = TimeJacobi(size.n, size.steps, cache);
      // A step is two half-steps; each must read one grid and write the other's interior.
      const double bytes = 2.0 * 2.0 * static_cast<double>(size.n * size.n) * 4.0;
      const std::string name =
          absl::StrCat("jacobi2d_loop_", size.n, cache ? "" : "_no_plan_cache");
      Report(
          name, "us_per_step", t.wall_us_per_step,
          absl::StrCat(", \"host_us_per_step\": ", t.host_us_per_step, ", \"kernels_per_step\": 2",
                       ", \"gbps_min_bytes\": ", bytes / (t.wall_us_per_step * 1e3)));
    }
  }
}

}  // namespace gpuc::bench
