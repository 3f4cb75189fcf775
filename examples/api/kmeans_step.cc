// k-means (Lloyd's iterations) on 600 random 4-D points with 6 centroids, as a NumPy user
// writes it: distances by broadcasting, argmin, then the centroid sums with np.add.at
// (gpuc: a.at(labels).add(x), repeated labels accumulate) and the counts with np.bincount
// (gpuc::bincount with the length given). Checked against the same iterations as a plain loop.
#include <cstdio>
#include <vector>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  const int64_t n = 600, d = 4, k = 6, iterations = 5;
  gpuc::random::Generator rng(21);
  const Array x = rng.normal({n, d}, 0.0, 1.0, gpuc::float64).eval();
  Array c = x(gpuc::Slice(0, k)) + 0.0;  // the first k points start as centroids
  for (int64_t it = 0; it < iterations; ++it) {
    Array dist = gpuc::sum(gpuc::square(x(gpuc::colon, gpuc::newaxis) - c(gpuc::newaxis)), -1);
    Array labels = gpuc::argmin(dist, 1);
    Array sums = gpuc::zeros_like(c).at(labels).add(x);  // np.add.at(sums, labels, x)
    Array counts = gpuc::bincount(labels, k);            // np.bincount(labels, minlength=k)
    c = (sums / gpuc::maximum(counts, 1)(gpuc::colon, gpuc::newaxis)).eval();
  }

  // The same iterations as a plain loop.
  const std::vector<double> xs = x.to_host<double>();
  std::vector<double> want(xs.begin(), xs.begin() + k * d);
  for (int64_t it = 0; it < iterations; ++it) {
    std::vector<double> sums(k * d, 0.0);
    std::vector<int64_t> counts(k, 0);
    for (int64_t p = 0; p < n; ++p) {
      int64_t best = 0;
      double best_d = 0;
      for (int64_t j = 0; j < k; ++j) {
        double s = 0;
        for (int64_t q = 0; q < d; ++q) {
          const double diff = xs[p * d + q] - want[j * d + q];
          s += diff * diff;
        }
        if (j == 0 || s < best_d) best = j, best_d = s;
      }
      ++counts[best];
      for (int64_t q = 0; q < d; ++q) sums[best * d + q] += xs[p * d + q];
    }
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t q = 0; q < d; ++q) {
        want[j * d + q] = sums[j * d + q] / static_cast<double>(std::max<int64_t>(counts[j], 1));
      }
    }
  }
  const int bad = example::CountMismatches("centroids", c.to_host<double>(), want, 1e-9);
  std::printf("kmeans_step: %lld iterations, %lld points, %lld centroids: %s\n",
              static_cast<long long>(iterations), static_cast<long long>(n),
              static_cast<long long>(k), bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
