// A dense layer, relu(x @ w + b), and the trace of a Gram matrix: matmul is a library call
// (a GEMM through OpenBLAS on the host), and the bias add and relu around it fuse into one
// kernel after it. tensordot contracts named axes with one GEMM between views.
#include <algorithm>
#include <cstdio>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  const int64_t batch = 8, in = 16, out = 4;
  gpuc::random::Generator rng(7);
  Array x = rng.normal({batch, in}, 0.0, 1.0, gpuc::float32);
  Array w = rng.normal({in, out}, 0.0, 0.25, gpuc::float32);
  Array b = rng.uniform({out}, -0.5, 0.5, gpuc::float32);
  Array y = gpuc::maximum(gpuc::matmul(x, w) + b, 0.0f);   // (8, 4) float32
  Array gram_trace = gpuc::trace(gpuc::matmul(x, x.T()));  // sum of squares of x
  Array norm = gpuc::linalg::norm(x);                      // sqrt of the same

  const std::vector<float> xs = x.to_host<float>(), ws = w.to_host<float>(),
                           bs = b.to_host<float>();
  std::vector<double> want;
  double squares = 0;
  for (int64_t i = 0; i < batch; ++i) {
    for (int64_t j = 0; j < out; ++j) {
      double acc = bs[j];
      for (int64_t k = 0; k < in; ++k) acc += double(xs[i * in + k]) * ws[k * out + j];
      want.push_back(std::max(acc, 0.0));
    }
    for (int64_t k = 0; k < in; ++k) squares += double(xs[i * in + k]) * xs[i * in + k];
  }
  int bad = example::CountMismatches("dense", y.to_host<float>(), want, 1e-5) +
            example::CountMismatches("trace", gram_trace.to_host<float>(), {squares}, 1e-5) +
            example::CountMismatches("norm", norm.to_host<float>(), {std::sqrt(squares)}, 1e-5);
  if (y.shape() != gpuc::Shape{batch, out} || y.dtype() != gpuc::float32) {
    std::printf("dense_layer: wrong shape or dtype\n");
    ++bad;
  }
  std::printf("dense_layer: %s %s, trace %.4f, norm %.4f: %s\n",
              gpuc::dtype_name(y.dtype()).c_str(), example::ShapeText(y.shape()).c_str(),
              gram_trace.item<double>(), norm.item<double>(), bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
