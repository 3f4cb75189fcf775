//===- heat2d.cc - The 2-D heat equation, explicit, Dirichlet boundaries ---===//
//
// Issue 10's first scientific workload, written as a NumPy user writes it (one array, its
// interior assigned from its shifted slices every step, in a plain C++ loop):
//
//   heat2d --check DIR        the fixture of make_science_fixtures.py (NumPy's loop) must match
//   heat2d [--n N] [--steps S] one JSON line: ms a step (to the GPU's end), host us a step,
//                             kernels a step, GB/s for the bytes a step must move (read u,
//                             write the interior)
//
// bench/science/heat2d_peers.py times CuPy and JAX on the same problem in the same run
// (scripts/device-check.sh science).
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpuc/gpuc.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/host/host_executor.h"
#include "lib/eval/evaluator.h"

namespace {

using gpuc::Array;
using gpuc::Slice;
using Clock = std::chrono::steady_clock;

constexpr double kR = 0.2;  // a dt / dx^2

void Step(Array& u) {
  const Slice in(1, -1), up(0, -2), down(2, gpuc::none);
  u(in, in) =
      u(in, in) + kR * (u(up, in) + u(down, in) + u(in, up) + u(in, down) - 4.0 * u(in, in));
  u.eval();
}

int64_t KernelsRun() {
  if (gpuc::detail::EvaluationTarget(gpuc::exec::CurrentOptions()).name() == "gpu") {
    const gpuc::detail::GpuBackendStats s = (*gpuc::detail::GpuExecutor::Get())->stats();
    return s.kernel_launches;
  }
  return gpuc::detail::HostExecutor::Get().stats().kernel_runs;
}

int Check(const std::string& dir) {
  Array u = gpuc::load(dir + "/heat2d_in.npy");
  const Array want = gpuc::load(dir + "/heat2d_out.npy");
  const Array steps = gpuc::load(dir + "/heat2d_steps.npy");
  const int64_t count = steps.item<int64_t>();
  for (int64_t t = 0; t < count; ++t) Step(u);
  const double err = gpuc::max(gpuc::abs(u - want)).item<double>();
  const bool ok = err <= 1e-12;
  std::printf("heat2d --check: %lld steps on a %lldx%lld grid, max |gpuc - numpy| = %.3g: %s\n",
              static_cast<long long>(count), static_cast<long long>(u.shape()[0]),
              static_cast<long long>(u.shape()[1]), err, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 8192, steps = 200;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check" && i + 1 < argc) return Check(argv[++i]);
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--steps" && i + 1 < argc) steps = std::atoll(argv[++i]);
  }
  gpuc::random::Generator rng(5);
  Array u = rng.uniform({n, n}, 0.0, 0.5, gpuc::float64);
  u(0) = 1.0;
  u.eval();
  for (int t = 0; t < 3; ++t) Step(u);  // plan, compile, warm the pool
  gpuc::Stream::current().synchronize();
  const int64_t kernels_before = KernelsRun();
  const Clock::time_point start = Clock::now();
  for (int64_t t = 0; t < steps; ++t) Step(u);
  const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  gpuc::Stream::current().synchronize();
  const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const double kernels = static_cast<double>(KernelsRun() - kernels_before) / steps;
  const double probe = u(n / 2, n / 2).item<double>();
  if (!(probe > 0.0 && probe < 1.0)) {
    std::fprintf(stderr, "heat2d: implausible value %g\n", probe);
    return 1;
  }
  const double bytes = 2.0 * static_cast<double>(n) * n * 8.0;  // read u, write the interior
  const double ms = wall_ms / steps;
  std::printf(
      "{\"impl\": \"gpuc\", \"workload\": \"heat2d_%lld_f64\", \"ms_per_step\": %.5f, "
      "\"host_us_per_step\": %.2f, \"kernels_per_step\": %.2f, \"gbps_min_bytes\": %.1f, "
      "\"device\": \"%s\"}\n",
      static_cast<long long>(n), ms, host_ms * 1e3 / steps, kernels, bytes / (ms * 1e6),
      gpuc::current_device().c_str());
  return 0;
}
