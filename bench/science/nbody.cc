//===- nbody.cc - All-pairs gravitational n-body with softening -----------===//
//
// Issue 32's n-body workload as NumPy users write it: every pair's separation, the softened
// inverse cube of its distance, the accelerations as a reduction over partners, then a
// symplectic-Euler step of velocities and positions. Two forms:
//   plain   a C++ loop over steps (each step a loop-step cut, one plan);
//   fori    gpuc::fori_loop over (pos, vel).
//
//   nbody --check DIR     both forms at the fixture's size against NumPy's loop
//                         (test/fixtures/science/make_science_fixtures.py), float64
//   nbody [--n N] [--steps S]
//                         one JSON line per form (float32): ms a step, host us a step, kernels
//                         a step, interactions a second
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/science/science_util.h"
#include "gpuc/gpuc.h"

namespace {

using gpuc::Array;
using gpuc::colon;
using gpuc::newaxis;
using Clock = std::chrono::steady_clock;
using gpuc::bench::KernelsRun;

constexpr double kDt = 1e-3, kSoftening2 = 1e-2;

// One step over the state (pos [n, 3], vel [n, 3]) with masses m [n].
std::vector<Array> Step(const Array& m, const std::vector<Array>& s) {
  const Array &pos = s[0], &vel = s[1];
  Array d = pos(newaxis, colon, colon) - pos(colon, newaxis, colon);  // d[i, j] = p_j - p_i
  Array r2 = gpuc::sum(d * d, {-1}) + kSoftening2;
  Array weight = m(newaxis, colon) / (r2 * gpuc::sqrt(r2));  // m_j / r^3
  Array acc = gpuc::sum(d * weight(colon, colon, newaxis), {1});
  Array next_vel = vel + kDt * acc;
  return {pos + kDt * next_vel, next_vel};
}

std::vector<Array> SolvePlain(const Array& m, std::vector<Array> s, int64_t steps) {
  for (int64_t t = 0; t < steps; ++t) s = Step(m, s);
  gpuc::eval(s);
  return s;
}

std::vector<Array> SolveFori(const Array& m, const std::vector<Array>& s, int64_t steps) {
  return gpuc::fori_loop(
      0, steps, [&](const Array&, const std::vector<Array>& s) { return Step(m, s); }, s);
}

int Check(const std::string& dir) {
  const Array start = gpuc::load(dir + "/nbody_in.npy");  // [3, n, 3]: pos, vel, (mass, 0, 0)
  const Array want = gpuc::load(dir + "/nbody_out.npy");  // [2, n, 3]: pos, vel
  const int64_t steps = gpuc::load(dir + "/nbody_steps.npy").item<int64_t>();
  const Array m = start(2, colon, 0);
  bool ok = true;
  for (const char* form : {"plain", "fori"}) {
    const std::vector<Array> s0 = {start(0), start(1)};
    const std::vector<Array> got =
        std::string(form) == "plain" ? SolvePlain(m, s0, steps) : SolveFori(m, s0, steps);
    const double err = gpuc::max(gpuc::abs(gpuc::stack(got) - want)).item<double>() /
                       gpuc::max(gpuc::abs(want)).item<double>();
    const bool good = err <= 1e-12;
    std::printf(
        "nbody --check (%s): %lld steps, %lld bodies, max rel |gpuc - numpy| = %.3g: "
        "%s\n",
        form, static_cast<long long>(steps), static_cast<long long>(m.shape()[0]), err,
        good ? "ok" : "MISMATCH");
    ok = ok && good;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 32768, steps = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check" && i + 1 < argc) return Check(argv[++i]);
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--steps" && i + 1 < argc) steps = std::atoll(argv[++i]);
  }
  gpuc::random::Generator rng(17);
  const Array m = rng.uniform({n}, 0.5, 1.5, gpuc::float32).eval();
  const std::vector<Array> start = {rng.normal({n, 3}, 0.0, 1.0, gpuc::float32).eval(),
                                    rng.normal({n, 3}, 0.0, 0.1, gpuc::float32).eval()};
  for (const char* form : {"plain", "fori"}) {
    auto solve = [&](int64_t k) {
      return std::string(form) == "plain" ? SolvePlain(m, start, k) : SolveFori(m, start, k);
    };
    solve(2);  // plan, compile, warm the pool
    gpuc::Stream::current().synchronize();
    const int64_t kernels_before = KernelsRun();
    const Clock::time_point t0 = Clock::now();
    const std::vector<Array> s = solve(steps);
    const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    gpuc::Stream::current().synchronize();
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const double kernels = static_cast<double>(KernelsRun() - kernels_before) / steps;
    const double spread = gpuc::max(gpuc::abs(s[0])).astype(gpuc::float64).item<double>();
    if (!(spread > 0.1 && spread < 100.0)) {
      std::fprintf(stderr, "nbody: implausible positions (max |p| = %g)\n", spread);
      return 1;
    }
    const double ms = wall_ms / steps;
    std::printf(
        "{\"impl\": \"gpuc\", \"form\": \"%s\", \"workload\": \"nbody_%lld_f32\", "
        "\"ms_per_step\": %.4f, \"host_us_per_step\": %.2f, \"kernels_per_step\": %.2f, "
        "\"interactions_per_second\": %.4g, \"device\": \"%s\"}\n",
        form, static_cast<long long>(n), ms, host_ms * 1e3 / steps, kernels,
        static_cast<double>(n) * static_cast<double>(n) / (ms * 1e-3),
        gpuc::current_device().c_str());
  }
  return 0;
}
