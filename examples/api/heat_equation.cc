// The 2-D heat equation u_t = a (u_xx + u_yy), explicit 5-point stencil with Dirichlet
// boundaries (a hot top edge, the other edges cold), written as a NumPy user writes it: the
// interior of u is assigned from u's shifted slices, one step per loop iteration, in a plain
// C++ loop. Each step is one fused kernel (the write is index arithmetic), and the plan cache
// finds the step's plan by its structure, so only the first step plans and compiles. The
// result must match the same loop in plain C++.
#include <chrono>
#include <cstdio>
#include <vector>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  using gpuc::Slice;
  const int64_t n = 48, steps = 100;
  const double r = 0.2;  // a dt / dx^2, inside the explicit scheme's 0.25 stability bound
  gpuc::random::Generator rng(11);
  Array u = rng.uniform({n, n}, 0.0, 0.5, gpuc::float64);
  u(0) = 1.0;  // the hot edge
  u(n - 1) = 0.0;
  u(gpuc::colon, 0) = 0.0;
  u(gpuc::colon, n - 1) = 0.0;
  u.eval();
  const std::vector<double> start = u.to_host<double>();

  const Slice in(1, -1), up(0, -2), down(2, gpuc::none);
  const gpuc::PlanCacheStats before = gpuc::plan_cache_stats();
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t t = 0; t < steps; ++t) {
    u(in, in) =
        u(in, in) + r * (u(up, in) + u(down, in) + u(in, up) + u(in, down) - 4.0 * u(in, in));
    u.eval();
    if (t == 0) t0 = std::chrono::steady_clock::now();  // the first step plans and compiles
  }
  const double us_per_step =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      static_cast<double>(steps - 1);
  const gpuc::PlanCacheStats after = gpuc::plan_cache_stats();

  // The same steps as a plain loop.
  std::vector<double> want = start, next = start;
  for (int64_t t = 0; t < steps; ++t) {
    for (int64_t i = 1; i + 1 < n; ++i) {
      for (int64_t j = 1; j + 1 < n; ++j) {
        const double c = want[i * n + j];
        next[i * n + j] = c + r * (want[(i - 1) * n + j] + want[(i + 1) * n + j] +
                                   want[i * n + j - 1] + want[i * n + j + 1] - 4.0 * c);
      }
    }
    want.swap(next);
  }
  int bad = example::CountMismatches("u", u.to_host<double>(), want, 1e-12);
  const int64_t planned = after.misses - before.misses;
  if (planned > 1) {
    std::printf("heat_equation: %lld steps planned %lld times (the plan cache missed)\n",
                static_cast<long long>(steps), static_cast<long long>(planned));
    ++bad;
  }
  std::printf(
      "heat_equation: %lld steps on a %lldx%lld grid, planned %lld time(s), then %.1f us a step "
      "on %s: %s\n",
      static_cast<long long>(steps), static_cast<long long>(n), static_cast<long long>(n),
      static_cast<long long>(planned), us_per_step, gpuc::current_device().c_str(),
      bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
