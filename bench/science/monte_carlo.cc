//===- monte_carlo.cc - Monte-Carlo pricing of a European call option -----===//
//
// Issue 32's Monte-Carlo workload: geometric Brownian motion to maturity in one step, the
// call's payoff, its discounted mean and standard error, over batches of paths drawn with
// gpuc::random (Philox inside the kernel that uses the numbers: no stored random array). Two
// forms:
//   plain   a C++ loop over batches (each batch's sums a loop-step cut);
//   fori    gpuc::fori_loop over batches (each step's draws differ: the step key, gpuc/loops.h).
//
//   monte_carlo --check      2^20 paths in both forms: the price lies within 4 standard errors
//                            of Black-Scholes' closed form (a fixed seed: deterministic)
//   monte_carlo [--log2-paths P] [--batches B]
//                            one JSON line per form: ms in all, paths a second, price, error
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpuc/gpuc.h"

namespace {

using gpuc::Array;
using Clock = std::chrono::steady_clock;

constexpr double kSpot = 100.0, kStrike = 105.0, kRate = 0.05, kVolatility = 0.2, kYears = 1.0;

// The sums of one batch's payoffs and of their squares, float64 accumulations of float32 paths.
std::vector<Array> AddBatch(gpuc::random::Generator& rng, int64_t paths,
                            const std::vector<Array>& sums) {
  const Array z = rng.normal({paths}, 0.0, 1.0, gpuc::float32);
  const double drift = (kRate - 0.5 * kVolatility * kVolatility) * kYears;
  const Array price = kSpot * gpuc::exp(drift + kVolatility * std::sqrt(kYears) * z);
  const Array payoff = gpuc::maximum(price - kStrike, 0.0).astype(gpuc::float64);
  return {sums[0] + gpuc::sum(payoff), sums[1] + gpuc::sum(payoff * payoff)};
}

std::vector<Array> Zeros() {
  return {gpuc::zeros({}, gpuc::float64), gpuc::zeros({}, gpuc::float64)};
}

std::vector<Array> SumsPlain(uint64_t seed, int64_t batches, int64_t paths) {
  gpuc::random::Generator rng(seed);
  std::vector<Array> sums = Zeros();
  for (int64_t b = 0; b < batches; ++b) sums = AddBatch(rng, paths, sums);
  gpuc::eval(sums);
  return sums;
}

std::vector<Array> SumsFori(uint64_t seed, int64_t batches, int64_t paths) {
  gpuc::random::Generator rng(seed);
  return gpuc::fori_loop(
      0, batches,
      [&](const Array&, const std::vector<Array>& sums) { return AddBatch(rng, paths, sums); },
      Zeros());
}

struct Estimate {
  double price, error;
};

Estimate Price(const std::vector<Array>& sums, double n) {
  const double mean = sums[0].item<double>() / n;
  const double var = sums[1].item<double>() / n - mean * mean;
  const double discount = std::exp(-kRate * kYears);
  return {discount * mean, discount * std::sqrt(var / n)};
}

double BlackScholesCall() {
  const double sd = kVolatility * std::sqrt(kYears);
  const double d1 =
      (std::log(kSpot / kStrike) + (kRate + 0.5 * kVolatility * kVolatility) * kYears) / sd;
  const double d2 = d1 - sd;
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  return kSpot * phi(d1) - kStrike * std::exp(-kRate * kYears) * phi(d2);
}

}  // namespace

int main(int argc, char** argv) {
  int log2_paths = 28;
  int64_t batches = 16;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check") check = true;
    if (arg == "--log2-paths" && i + 1 < argc) log2_paths = std::atoi(argv[++i]);
    if (arg == "--batches" && i + 1 < argc) batches = std::atoll(argv[++i]);
  }
  if (check) {
    log2_paths = 20;
    batches = 4;
  }
  const int64_t paths = (int64_t{1} << log2_paths) / batches;
  const double n = static_cast<double>(paths * batches);
  const double exact = BlackScholesCall();
  bool ok = true;
  for (const char* form : {"plain", "fori"}) {
    auto sums = [&](uint64_t seed) {
      return std::string(form) == "plain" ? SumsPlain(seed, batches, paths)
                                          : SumsFori(seed, batches, paths);
    };
    if (!check) Price(sums(1), n);  // plan, compile, warm the pool
    const Clock::time_point start = Clock::now();
    const Estimate e = Price(sums(2), n);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    const double z = (e.price - exact) / e.error;
    if (check) {
      const bool good = std::abs(z) < 4.0 && e.error > 0.0 && e.error < 0.05;
      std::printf(
          "monte_carlo --check (%s): %.0f paths, price %.5f +- %.5f, Black-Scholes "
          "%.5f (%.2f standard errors): %s\n",
          form, n, e.price, e.error, exact, z, good ? "ok" : "MISMATCH");
      ok = ok && good;
      continue;
    }
    std::printf(
        "{\"impl\": \"gpuc\", \"form\": \"%s\", \"workload\": \"monte_carlo_2^%d_f32\", "
        "\"ms\": %.3f, \"paths_per_second\": %.4g, \"price\": %.6f, \"error\": %.6f, "
        "\"black_scholes\": %.6f, \"device\": \"%s\"}\n",
        form, log2_paths, ms, n / (ms * 1e-3), e.price, e.error, exact,
        gpuc::current_device().c_str());
  }
  return ok ? 0 : 1;
}
