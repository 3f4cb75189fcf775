//===- plain_loop.cc - The hand-written loop gpuc's host kernels race -----===//
//
// Built with -O3 -march=native -fno-math-errno (bench/CMakeLists.txt): what a careful C++
// programmer gets from the compiler for the same elementwise chain, on one core.
//
//===----------------------------------------------------------------------===//
#include "bench/plain_loop.h"

#include <cmath>

namespace gpuc::bench {

void PlainChain(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float y = a[i] * 2.0f + b[i];
    out[i] = std::sqrt(y * y + 1.0f);
  }
}

}  // namespace gpuc::bench
