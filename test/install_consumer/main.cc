// A user's program against the installed gpuc: a fused expression, a reduction and a product,
// checked against plain C++ arithmetic. Exit status 0 when every value agrees.
#include <cmath>
#include <cstdio>
#include <vector>

#include <gpuc/gpuc.h>

int main() {
  const std::vector<double> x = {0.5, -1.25, 2.0, 3.5};
  gpuc::Array a = gpuc::array(x);
  gpuc::Array y = gpuc::exp(a) * 2.0 + a;
  const std::vector<double> got = y.to_host<double>();
  double dot = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(x[i]) * 2.0 + x[i];
    if (std::fabs(got[i] - want) > 1e-12 * std::fabs(want)) {
      std::printf("consumer: element %zu is %.17g, want %.17g\n", i, got[i], want);
      return 1;
    }
    dot += x[i] * x[i];
  }
  const double sum = gpuc::sum(a * a).item<double>();
  if (std::fabs(sum - dot) > 1e-12) {
    std::printf("consumer: sum %.17g, want %.17g\n", sum, dot);
    return 1;
  }
  std::printf("consumer: gpuc from its installed package: ok\n");
  return 0;
}
