// Row softmax, numerically stable: a max and a sum over the last axis with keepdims, so the
// (rows, 1) results broadcast back against the (rows, cols) input. Wrapped in gpuc::compile so
// the second call replays the traced plan.
#include <cmath>
#include <cstdio>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  const int64_t rows = 64, cols = 100;
  auto softmax = gpuc::compile([](Array x) {
    Array shifted = gpuc::exp(x - gpuc::max(x, -1, /*keepdims=*/true));
    return shifted / gpuc::sum(shifted, -1, /*keepdims=*/true);
  });
  gpuc::random::Generator rng(11);
  int bad = 0;
  for (int call = 0; call < 2; ++call) {  // same signature: traced once, replayed once
    Array x = rng.normal({rows, cols}, 0.0, 4.0, gpuc::float64);
    Array y = softmax(x);
    std::vector<double> in = x.to_host<double>(), want(in.size());
    for (int64_t r = 0; r < rows; ++r) {
      double top = -INFINITY, total = 0;
      for (int64_t c = 0; c < cols; ++c) top = std::max(top, in[r * cols + c]);
      for (int64_t c = 0; c < cols; ++c)
        total += want[r * cols + c] = std::exp(in[r * cols + c] - top);
      for (int64_t c = 0; c < cols; ++c) want[r * cols + c] /= total;
    }
    bad += example::CountMismatches("softmax", y.to_host<double>(), want, 1e-13);
    // Every row sums to one.
    std::vector<double> ones(rows, 1.0);
    bad += example::CountMismatches("row sums", gpuc::sum(y, 1).to_host<double>(), ones, 1e-13);
  }
  const gpuc::FunctionStats stats = softmax.stats();
  if (stats.calls != 2 || stats.traces != 1) {
    std::printf("softmax: %lld calls, %lld traces; expected 2 calls, 1 trace\n",
                static_cast<long long>(stats.calls), static_cast<long long>(stats.traces));
    ++bad;
  }
  std::printf("softmax: %lld x %lld, %lld calls, %lld trace: %s\n", static_cast<long long>(rows),
              static_cast<long long>(cols), static_cast<long long>(stats.calls),
              static_cast<long long>(stats.traces), bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
