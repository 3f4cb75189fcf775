//===- shallow_water.cc - 2-D shallow-water equations, Lax-Friedrichs -----===//
//
// Issue 32's shallow-water workload, as a NumPy user writes it: the state (h, hu, hv) on an
// N x N grid, each step the Lax-Friedrichs update of the interior from the fluxes, then
// reflective boundaries (the ghost rows and columns copy their neighbours, the normal momentum
// negated). Two forms:
//   plain   a C++ for loop over lazy ops (each step a loop-step cut, one plan);
//   fori    gpuc::fori_loop over the state (h, hu, hv).
//
//   shallow_water --check DIR   both forms at the fixture's size against NumPy's loop
//                               (test/fixtures/science/make_science_fixtures.py), float64
//   shallow_water [--n N] [--steps S]
//                               one JSON line per form (float64): ms a step, host us a step,
//                               kernels a step, GB/s for the bytes a step must move (read and
//                               write the three fields once)
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/science/science_util.h"
#include "gpuc/gpuc.h"

namespace {

using gpuc::Array;
using gpuc::colon;
using gpuc::Slice;
using Clock = std::chrono::steady_clock;
using gpuc::bench::KernelsRun;

constexpr double kGravity = 9.81;

struct Grid {
  double c;  // dt / (2 dx)
};

Grid GridFor(int64_t n) {
  const double dx = 1.0 / static_cast<double>(n);
  const double dt = 0.2 * dx / std::sqrt(kGravity * 1.1);  // CFL with the bump's height
  return {dt / (2.0 * dx)};
}

// One Lax-Friedrichs update of u's interior from its fluxes f (along axis 0) and g (axis 1).
Array LaxFriedrichs(const Array& u, const Array& f, const Array& g, double c) {
  const Slice in(1, -1), lo(0, -2), hi(2, gpuc::none);
  Array out = u;
  out(in, in) = 0.25 * (u(hi, in) + u(lo, in) + u(in, hi) + u(in, lo)) -
                c * (f(hi, in) - f(lo, in)) - c * (g(in, hi) - g(in, lo));
  return out;
}

// Ghost rows and columns copy their neighbours; `flip_rows` / `flip_cols` negate them there
// (the momentum normal to that wall).
void Reflect(Array& u, double rows_sign, double cols_sign) {
  u(0) = rows_sign * u(1);
  u(-1) = rows_sign * u(-2);
  u(colon, 0) = cols_sign * u(colon, 1);
  u(colon, -1) = cols_sign * u(colon, -2);
}

std::vector<Array> Step(const std::vector<Array>& s, double c) {
  const Array &h = s[0], &hu = s[1], &hv = s[2];
  Array uv = hu * hv / h;
  Array pressure = 0.5 * kGravity * h * h;
  Array next_h = LaxFriedrichs(h, hu, hv, c);
  Array next_hu = LaxFriedrichs(hu, hu * hu / h + pressure, uv, c);
  Array next_hv = LaxFriedrichs(hv, uv, hv * hv / h + pressure, c);
  Reflect(next_h, 1.0, 1.0);
  Reflect(next_hu, -1.0, 1.0);
  Reflect(next_hv, 1.0, -1.0);
  return {next_h, next_hu, next_hv};
}

std::vector<Array> SolvePlain(std::vector<Array> s, int64_t steps, double c) {
  for (int64_t t = 0; t < steps; ++t) s = Step(s, c);
  gpuc::eval(s);
  return s;
}

std::vector<Array> SolveFori(const std::vector<Array>& s, int64_t steps, double c) {
  return gpuc::fori_loop(
      0, steps, [&](const Array&, const std::vector<Array>& s) { return Step(s, c); }, s);
}

std::vector<Array> Initial(int64_t n) {
  Array x = (gpuc::arange(0, n, 1, gpuc::float64) + 0.5) / static_cast<double>(n);
  Array dx2 = gpuc::square(x - 0.5);
  Array h = 1.0 + 0.1 * gpuc::exp(-(dx2(colon, gpuc::newaxis) + dx2(gpuc::newaxis, colon)) / 0.01);
  return {h.eval(), gpuc::zeros({n, n}), gpuc::zeros({n, n})};
}

int Check(const std::string& dir) {
  const Array want = gpuc::load(dir + "/shallow_water_out.npy");  // [3, n, n]
  const int64_t steps = gpuc::load(dir + "/shallow_water_steps.npy").item<int64_t>();
  const int64_t n = want.shape()[1];
  bool ok = true;
  for (const char* form : {"plain", "fori"}) {
    const double c = GridFor(n).c;
    const std::vector<Array> s = std::string(form) == "plain" ? SolvePlain(Initial(n), steps, c)
                                                              : SolveFori(Initial(n), steps, c);
    const double err = gpuc::max(gpuc::abs(gpuc::stack(s) - want)).item<double>();
    const bool good = err <= 1e-12;
    std::printf(
        "shallow_water --check (%s): %lld steps on %lldx%lld, max |gpuc - numpy| = "
        "%.3g: %s\n",
        form, static_cast<long long>(steps), static_cast<long long>(n), static_cast<long long>(n),
        err, good ? "ok" : "MISMATCH");
    ok = ok && good;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 4096, steps = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check" && i + 1 < argc) return Check(argv[++i]);
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--steps" && i + 1 < argc) steps = std::atoll(argv[++i]);
  }
  const double c = GridFor(n).c;
  const std::vector<Array> start = Initial(n);
  for (const char* form : {"plain", "fori"}) {
    auto solve = [&](int64_t k) {
      return std::string(form) == "plain" ? SolvePlain(start, k, c) : SolveFori(start, k, c);
    };
    solve(3);  // plan, compile, warm the pool
    gpuc::Stream::current().synchronize();
    const int64_t kernels_before = KernelsRun();
    const Clock::time_point t0 = Clock::now();
    const std::vector<Array> s = solve(steps);
    const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    gpuc::Stream::current().synchronize();
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const double kernels = static_cast<double>(KernelsRun() - kernels_before) / steps;
    const double mass = gpuc::sum(s[0]).item<double>() / static_cast<double>(n * n);
    if (!(mass > 0.9 && mass < 1.2)) {
      std::fprintf(stderr, "shallow_water: implausible mean height %g\n", mass);
      return 1;
    }
    const double bytes = 2.0 * 3.0 * static_cast<double>(n) * n * 8.0;
    const double ms = wall_ms / steps;
    std::printf(
        "{\"impl\": \"gpuc\", \"form\": \"%s\", \"workload\": \"shallow_water_%lld_f64\", "
        "\"ms_per_step\": %.5f, \"host_us_per_step\": %.2f, \"kernels_per_step\": %.2f, "
        "\"gbps_min_bytes\": %.1f, \"device\": \"%s\"}\n",
        form, static_cast<long long>(n), ms, host_ms * 1e3 / steps, kernels, bytes / (ms * 1e6),
        gpuc::current_device().c_str());
  }
  return 0;
}
