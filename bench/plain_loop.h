//===- plain_loop.h - The hand-written loop gpuc's host kernels race ------===//
#ifndef GPUC_BENCH_PLAIN_LOOP_H_
#define GPUC_BENCH_PLAIN_LOOP_H_

#include <cstdint>

namespace gpuc::bench {

/// out = sqrt((a * 2 + b)^2 + 1), elementwise over n floats.
void PlainChain(const float* a, const float* b, float* out, int64_t n);

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_PLAIN_LOOP_H_
