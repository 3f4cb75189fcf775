//===- loop_bench.h - A plain C++ time loop over lazy ops, timed ----------===//
//
// Issue 10's loop figures (bench_gpu --loop): a 2-D Jacobi step written as a user writes it
// (b(interior) = stencil(a); b.eval(); then back), on a small grid where the host's cost per
// step is all there is, and on a large one where the GPU's is. Each with the plan cache on
// and off, side by side in one run: the wall time per step, and the host's time per step
// before the final synchronize (recording, lookup, launches).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_BENCH_GPU_LOOP_BENCH_H_
#define GPUC_BENCH_GPU_LOOP_BENCH_H_

namespace gpuc::bench {

void RunLoopWorkloads(bool quick);

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_GPU_LOOP_BENCH_H_
