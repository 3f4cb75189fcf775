//===- host_programs.h - NumPy-shaped whole-array programs for the host ---===//
//
// Issue 36's host suite: everyday NumPy programs (elementwise chains, stencils, reductions
// over each axis, BLAS-1/2/3 shapes, counting and scatters, complex arithmetic, a
// time-stepping loop), each at sizes from 10^3 to 10^7 elements, written as their users
// write them. bench/host/numpy_suite.py holds the same programs in NumPy.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_BENCH_HOST_HOST_PROGRAMS_H_
#define GPUC_BENCH_HOST_HOST_PROGRAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gpuc/gpuc.h"

namespace gpuc::bench {

struct HostProgram {
  std::string name;
  std::string what;
  /// The largest element count it runs at (a GEMM of 10^7 elements would take seconds).
  int64_t max_elements;
  /// Its inputs at about `elements` elements, evaluated (made apart so that the first call's
  /// time is planning, compiling and running, not making inputs).
  std::vector<Array> (*inputs)(int64_t elements);
  /// Records the program over `inputs` and returns its result, evaluated.
  Array (*run)(const std::vector<Array>& inputs);
};

const std::vector<HostProgram>& HostPrograms();

/// The suite's sizes: 10^3 .. 10^7 elements.
const std::vector<int64_t>& HostSuiteSizes();

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_HOST_HOST_PROGRAMS_H_
