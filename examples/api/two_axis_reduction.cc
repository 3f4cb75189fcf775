// Reductions over two axes at once: per-channel statistics of a (batch, channel, pixel) block,
// reducing axes 0 and 2 (the second given as -1), and NumPy's accumulator dtypes for integers.
#include <cstdio>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  const int64_t batch = 6, channels = 3, pixels = 40;
  gpuc::random::Generator rng(5);
  Array images = rng.uniform({batch, channels, pixels}, 0.0, 255.0, gpuc::float32);
  Array mean = gpuc::mean(images, {0, -1});                  // (3,)
  Array spread = gpuc::stddev(images, {0, -1}, /*ddof=*/1);  // (3,), sample standard deviation
  Array normalized = (images - gpuc::mean(images, {0, 2}, true)) /
                     gpuc::stddev(images, {0, 2}, 1, true);  // keepdims: (1, 3, 1) broadcasts
  Array counts = images.astype(gpuc::uint8);
  Array total = gpuc::sum(counts, {0, 2});  // uint8 sums accumulate in uint64, as in NumPy

  std::vector<float> v = images.to_host<float>();
  std::vector<double> want_mean(channels), want_std(channels), want_total(channels);
  const double count = static_cast<double>(batch * pixels);
  for (int64_t c = 0; c < channels; ++c) {
    double s = 0, ss = 0, t = 0;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t p = 0; p < pixels; ++p) {
        const float x = v[(b * channels + c) * pixels + p];
        s += x;
        t += static_cast<double>(static_cast<uint8_t>(x));
      }
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t p = 0; p < pixels; ++p) {
        const double d = v[(b * channels + c) * pixels + p] - s / count;
        ss += d * d;
      }
    want_mean[c] = s / count;
    want_std[c] = std::sqrt(ss / (count - 1));
    want_total[c] = t;
  }
  // float32 results: accumulation over 240 values in float32 keeps about 6 digits.
  int bad = example::CountMismatches("mean", mean.to_host<float>(), want_mean, 1e-5) +
            example::CountMismatches("std", spread.to_host<float>(), want_std, 1e-4) +
            example::CountMismatches("total", total.to_host<uint64_t>(), want_total, 0.0);
  std::vector<double> zeros(channels, 0.0), ones(channels, 1.0);
  bad += example::CountMismatches("normalized mean",
                                  gpuc::mean(normalized, {0, 2}).to_host<float>(), zeros, 1e-5);
  bad += example::CountMismatches("normalized std",
                                  gpuc::stddev(normalized, {0, 2}, 1).to_host<float>(), ones, 1e-5);
  if (total.dtype() != gpuc::uint64) {
    std::printf("sum of uint8 is %s, expected uint64\n", gpuc::dtype_name(total.dtype()).c_str());
    ++bad;
  }
  std::printf("two_axis_reduction: channel means %.3f %.3f %.3f: %s\n", want_mean[0], want_mean[1],
              want_mean[2], bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
