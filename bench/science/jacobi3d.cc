//===- jacobi3d.cc - 3-D 7-point Jacobi relaxation, Dirichlet boundaries --===//
//
// Issue 32's 3-D stencil workload, as a NumPy user writes it: the interior of one array
// assigned from the mean of its six shifted neighbours every step, in two forms:
//   plain   a C++ for loop over lazy ops (each step a loop-step cut, one plan);
//   fori    gpuc::fori_loop (the step traced once, its write in place from the second step).
//
//   jacobi3d --check DIR   both forms at the fixture's size must match NumPy's loop
//                          (test/fixtures/science/make_science_fixtures.py), float64
//   jacobi3d [--n N] [--steps S] [--dtype f32|f64]
//                          one JSON line per form: ms a step (to the device's end), host us a
//                          step, kernels a step, GB/s for the bytes a step must move (read u,
//                          write the interior)
//
// bench/science/jacobi3d_peers.py times NumPy, CuPy and JAX on the same problem in the same
// run (scripts/device-check.sh science).
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
using gpuc::Slice;
using Clock = std::chrono::steady_clock;
using gpuc::bench::KernelsRun;

// u[1:-1, 1:-1, 1:-1] = (the six neighbours of the interior) / 6, as NumPy's loop writes it.
void Relax(Array& u) {
  const Slice in(1, -1), lo(0, -2), hi(2, gpuc::none);
  u(in, in, in) = (u(lo, in, in) + u(hi, in, in) + u(in, lo, in) + u(in, hi, in) + u(in, in, lo) +
                   u(in, in, hi)) /
                  6.0;
}

Array SolvePlain(Array u, int64_t steps) {
  for (int64_t t = 0; t < steps; ++t) Relax(u);
  return u.eval();
}

Array SolveFori(const Array& u0, int64_t steps) {
  return gpuc::fori_loop(
      0, steps,
      [](const Array&, const Array& u0) {
        Array u = u0;
        Relax(u);
        return u;
      },
      u0);
}

int Check(const std::string& dir) {
  const Array u = gpuc::load(dir + "/jacobi3d_in.npy");
  const Array want = gpuc::load(dir + "/jacobi3d_out.npy");
  const int64_t steps = gpuc::load(dir + "/jacobi3d_steps.npy").item<int64_t>();
  bool ok = true;
  for (const char* form : {"plain", "fori"}) {
    const Array got = std::string(form) == "plain" ? SolvePlain(u, steps) : SolveFori(u, steps);
    const double err = gpuc::max(gpuc::abs(got - want)).item<double>();
    const bool good = err <= 1e-13;
    std::printf("jacobi3d --check (%s): %lld steps on %lld^3, max |gpuc - numpy| = %.3g: %s\n",
                form, static_cast<long long>(steps), static_cast<long long>(u.shape()[0]), err,
                good ? "ok" : "MISMATCH");
    ok = ok && good;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 512, steps = 50;
  gpuc::DType dtype = gpuc::float32;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check" && i + 1 < argc) return Check(argv[++i]);
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--steps" && i + 1 < argc) steps = std::atoll(argv[++i]);
    if (arg == "--dtype" && i + 1 < argc) {
      dtype = std::string(argv[++i]) == "f64" ? gpuc::float64 : gpuc::float32;
    }
  }
  gpuc::random::Generator rng(9);
  Array u = rng.uniform({n, n, n}, 0.0, 1.0, dtype);
  u(0) = 1.0;  // a hot face
  u.eval();
  for (const char* form : {"plain", "fori"}) {
    auto solve = [&](int64_t s) {
      return std::string(form) == "plain" ? SolvePlain(u, s) : SolveFori(u, s);
    };
    solve(3);  // plan, compile, warm the pool
    gpuc::Stream::current().synchronize();
    const int64_t kernels_before = KernelsRun();
    const Clock::time_point start = Clock::now();
    const Array out = solve(steps);
    const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    gpuc::Stream::current().synchronize();
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    const double kernels = static_cast<double>(KernelsRun() - kernels_before) / steps;
    const double probe = out(n / 2, n / 2, n / 2).astype(gpuc::float64).item<double>();
    if (!(probe > 0.0 && probe < 1.0)) {
      std::fprintf(stderr, "jacobi3d: implausible value %g\n", probe);
      return 1;
    }
    const double item = dtype == gpuc::float32 ? 4.0 : 8.0;
    const double bytes = 2.0 * static_cast<double>(n) * n * n * item;  // read u, write interior
    const double ms = wall_ms / steps;
    std::printf(
        "{\"impl\": \"gpuc\", \"form\": \"%s\", \"workload\": \"jacobi3d_%lld_%s\", "
        "\"ms_per_step\": %.5f, \"host_us_per_step\": %.2f, \"kernels_per_step\": %.2f, "
        "\"gbps_min_bytes\": %.1f, \"device\": \"%s\"}\n",
        form, static_cast<long long>(n), dtype == gpuc::float32 ? "f32" : "f64", ms,
        host_ms * 1e3 / steps, kernels, bytes / (ms * 1e6), gpuc::current_device().c_str());
  }
  return 0;
}
