//===- loop_programs.h - NumPy-shaped loop programs, written as users write them ===//
//
// Issue 31's benchmarks: programs whose index, scalars and slice bounds change every
// iteration. Each is the literal C++ transcription of the NumPy loop beside it in
// bench/loops/numpy_loops.py (same inputs, drawn from closed formulas so both sides see the
// same data without sharing a generator), with no eval() a NumPy user would not write.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_BENCH_LOOPS_LOOP_PROGRAMS_H_
#define GPUC_BENCH_LOOPS_LOOP_PROGRAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gpuc/gpuc.h"

namespace gpuc::bench {

struct LoopProgram {
  std::string name;
  std::string what;
  int64_t size;        // the problem's extent (rows, grid side, bodies, ...)
  int64_t iterations;  // the loop's trip count at the default size
  /// Runs the whole program (inputs, loop, result) and returns its result, evaluated.
  Array (*run)(int64_t size, int64_t iterations);
};

/// The programs, in the order the issue lists them.
const std::vector<LoopProgram>& LoopPrograms();

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_LOOPS_LOOP_PROGRAMS_H_
