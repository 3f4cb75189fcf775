//===- kmeans.cc - Lloyd's k-means: distances, argmin, scatter-add --------===//
//
// Issue 32's k-means workload as NumPy users write it: squared distances of every point to
// every centroid, the nearest centroid's label, the new centroids from np.add.at sums and
// np.bincount counts. Two forms:
//   plain   a C++ loop over iterations (each iteration a loop-step cut, one plan);
//   fori    gpuc::fori_loop with the centroids as the state.
//
//   kmeans --check DIR     both forms at the fixture's size against NumPy's loop
//                          (test/fixtures/science/make_science_fixtures.py), float64
//   kmeans [--log2-points P] [--dims D] [--k K] [--iterations I]
//                          one JSON line per form (float32 points): ms an iteration, host us
//                          an iteration, kernels an iteration
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/science/science_util.h"
#include "gpuc/gpuc.h"

namespace {

using gpuc::Array;
using gpuc::colon;
using gpuc::newaxis;
using Clock = std::chrono::steady_clock;
using gpuc::bench::KernelsRun;

// One Lloyd iteration: the centroids after assigning every point of x to its nearest one.
Array Iteration(const Array& x, const Array& c) {
  const int64_t k = c.shape()[0];
  Array dist = gpuc::sum(gpuc::square(x(colon, newaxis) - c(newaxis)), -1);
  Array labels = gpuc::argmin(dist, 1);
  Array sums = gpuc::zeros_like(c).at(labels).add(x);  // np.add.at(sums, labels, x)
  Array counts = gpuc::bincount(labels, k);            // np.bincount(labels, minlength=k)
  return sums / gpuc::maximum(counts, 1)(colon, newaxis).astype(c.dtype());
}

Array SolvePlain(const Array& x, Array c, int64_t iterations) {
  for (int64_t i = 0; i < iterations; ++i) c = Iteration(x, c);
  return c.eval();
}

Array SolveFori(const Array& x, const Array& c, int64_t iterations) {
  return gpuc::fori_loop(
      0, iterations, [&](const Array&, const Array& c) { return Iteration(x, c); }, c);
}

int Check(const std::string& dir) {
  const Array x = gpuc::load(dir + "/kmeans_x.npy");
  const Array want = gpuc::load(dir + "/kmeans_centroids.npy");
  const int64_t iterations = gpuc::load(dir + "/kmeans_iterations.npy").item<int64_t>();
  const int64_t k = want.shape()[0];
  bool ok = true;
  for (const char* form : {"plain", "fori"}) {
    const Array c0 = x(gpuc::Slice(0, k));  // the first k points start as centroids
    const Array got =
        std::string(form) == "plain" ? SolvePlain(x, c0, iterations) : SolveFori(x, c0, iterations);
    const double err = gpuc::max(gpuc::abs(got - want)).item<double>();
    const bool good = err <= 1e-12;
    std::printf(
        "kmeans --check (%s): %lld iterations, %lld points, %lld centroids, max "
        "|gpuc - numpy| = %.3g: %s\n",
        form, static_cast<long long>(iterations), static_cast<long long>(x.shape()[0]),
        static_cast<long long>(k), err, good ? "ok" : "MISMATCH");
    ok = ok && good;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int log2_points = 22;
  int64_t dims = 16, k = 64, iterations = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check" && i + 1 < argc) return Check(argv[++i]);
    if (arg == "--log2-points" && i + 1 < argc) log2_points = std::atoi(argv[++i]);
    if (arg == "--dims" && i + 1 < argc) dims = std::atoll(argv[++i]);
    if (arg == "--k" && i + 1 < argc) k = std::atoll(argv[++i]);
    if (arg == "--iterations" && i + 1 < argc) iterations = std::atoll(argv[++i]);
  }
  const int64_t n = int64_t{1} << log2_points;
  gpuc::random::Generator rng(13);
  const Array x = rng.normal({n, dims}, 0.0, 1.0, gpuc::float32).eval();
  const Array c0 = x(gpuc::Slice(0, k)).eval();
  for (const char* form : {"plain", "fori"}) {
    auto solve = [&](int64_t its) {
      return std::string(form) == "plain" ? SolvePlain(x, c0, its) : SolveFori(x, c0, its);
    };
    solve(2);  // plan, compile, warm the pool
    gpuc::Stream::current().synchronize();
    const int64_t kernels_before = KernelsRun();
    const Clock::time_point start = Clock::now();
    const Array c = solve(iterations);
    const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    gpuc::Stream::current().synchronize();
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    const double kernels = static_cast<double>(KernelsRun() - kernels_before) / iterations;
    const double spread = gpuc::max(gpuc::abs(c)).astype(gpuc::float64).item<double>();
    if (!(spread > 0.0 && spread < 10.0)) {
      std::fprintf(stderr, "kmeans: implausible centroids (max |c| = %g)\n", spread);
      return 1;
    }
    std::printf(
        "{\"impl\": \"gpuc\", \"form\": \"%s\", \"workload\": \"kmeans_2^%d_x%lld_k%lld_f32\", "
        "\"ms_per_iteration\": %.4f, \"host_us_per_iteration\": %.2f, "
        "\"kernels_per_iteration\": %.2f, \"device\": \"%s\"}\n",
        form, log2_points, static_cast<long long>(dims), static_cast<long long>(k),
        wall_ms / iterations, host_ms * 1e3 / iterations, kernels, gpuc::current_device().c_str());
  }
  return 0;
}
