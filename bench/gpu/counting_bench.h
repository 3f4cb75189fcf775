//===- counting_bench.h - Scans, scatters, sorts and counting on the GPU ---===//
//
// bench_gpu --counting [--quick]: issue 35's workloads through the public API, each timed
// cold (the first call: compiles included) and warm (median of calls, synchronized), one JSON
// line each; bench/gpu/counting_peers.py times CuPy and JAX on the same problems.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_BENCH_GPU_COUNTING_BENCH_H_
#define GPUC_BENCH_GPU_COUNTING_BENCH_H_

namespace gpuc::bench {

void RunCountingWorkloads(bool quick);

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_GPU_COUNTING_BENCH_H_
