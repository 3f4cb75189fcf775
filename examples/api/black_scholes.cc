// Black-Scholes prices of European calls and puts: three inputs, two outputs, evaluated
// together so that they share one plan (and, once fusion lands, one kernel).
#include <cmath>
#include <cstdio>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

namespace {

// The standard normal CDF, through erf as NumPy/SciPy users write it.
gpuc::Array NormCdf(const gpuc::Array& x) { return 0.5 * (1.0 + gpuc::erf(x * M_SQRT1_2)); }

}  // namespace

int main() {
  using gpuc::Array;
  const int64_t n = 1 << 12;
  const double rate = 0.02, volatility = 0.3;
  gpuc::random::seed(7);
  Array spot = gpuc::random::uniform({n}, 10.0, 50.0, gpuc::float32);
  Array strike = gpuc::random::uniform({n}, 10.0, 50.0, gpuc::float32);
  Array years = gpuc::random::uniform({n}, 0.25, 2.0, gpuc::float32);

  // Weak scalars (rate, 0.5, ...) keep the float32 dtype, as in NumPy 2.
  Array vol_sqrt_t = volatility * gpuc::sqrt(years);
  Array d1 =
      (gpuc::log(spot / strike) + (rate + 0.5 * volatility * volatility) * years) / vol_sqrt_t;
  Array d2 = d1 - vol_sqrt_t;
  Array discounted = strike * gpuc::exp(-rate * years);
  Array call = spot * NormCdf(d1) - discounted * NormCdf(d2);
  Array put = discounted * NormCdf(-d2) - spot * NormCdf(-d1);
  gpuc::eval({call, put});  // one plan for both outputs

  // Reference: the same formula in double on the same inputs.
  std::vector<float> s = spot.to_host<float>(), k = strike.to_host<float>(),
                     t = years.to_host<float>();
  std::vector<double> want_call, want_put;
  auto cdf = [](double x) { return 0.5 * std::erfc(-x * M_SQRT1_2); };
  for (int64_t i = 0; i < n; ++i) {
    const double sd = volatility * std::sqrt(double{t[i]});
    const double a =
        (std::log(double{s[i]} / k[i]) + (rate + 0.5 * volatility * volatility) * t[i]) / sd;
    const double b = a - sd;
    const double disc = k[i] * std::exp(-rate * t[i]);
    want_call.push_back(s[i] * cdf(a) - disc * cdf(b));
    want_put.push_back(disc * cdf(-b) - s[i] * cdf(-a));
  }
  // float32 arithmetic on prices up to 50: absolute error of a few 1e-5 on top of rounding.
  int bad = example::CountMismatches("call", call.to_host<float>(), want_call, 2e-4) +
            example::CountMismatches("put", put.to_host<float>(), want_put, 2e-4);
  std::printf("black_scholes: %lld options, call[0] = %.4f, put[0] = %.4f, mean call = %.4f: %s\n",
              static_cast<long long>(n), call(0).item<float>(), put(0).item<float>(),
              gpuc::mean(call).item<float>(), bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
