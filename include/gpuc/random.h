//===- gpuc/random.h - Counter-based random numbers -----------------------===//
//
// Random arrays come from Philox4x32-10, a counter-based generator: element i of a draw is a
// pure function of (seed, draw number, i). The numbers are therefore recorded as elementwise
// nodes that fuse with their consumers, and a seed gives the same arrays on every backend, for
// every kernel split and every thread count.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RANDOM_H_
#define GPUC_RANDOM_H_

#include <cstdint>
#include <mutex>

#include "gpuc/array.h"

namespace gpuc::random {

/// A seeded stream of draws. Each call is a new draw with its own Philox key, so two calls
/// never repeat numbers and the sequence of calls is reproducible from the seed.
class Generator {
 public:
  explicit Generator(uint64_t seed);
  /// Restarts the stream: the draws that follow repeat those after construction with `seed`.
  void reseed(uint64_t seed);

  /// Uniform on [low, high); dtype is a real float type.
  Array uniform(const Shape& shape, double low = 0.0, double high = 1.0, DType dtype = float64);
  /// Normal with the given mean and standard deviation (Box-Muller); a real float dtype.
  Array normal(const Shape& shape, double mean = 0.0, double stddev = 1.0, DType dtype = float64);
  /// Integers uniform on [low, high), of an integer dtype that holds both bounds.
  Array integers(int64_t low, int64_t high, const Shape& shape, DType dtype = int64);

 private:
  uint64_t NextKey();

  std::mutex mutex_;
  uint64_t seed_;
  uint64_t draws_ = 0;
};

/// Reseeds the process-wide generator that the free functions below use (seed 0 at start).
void seed(uint64_t seed);
Array uniform(const Shape& shape, double low = 0.0, double high = 1.0, DType dtype = float64);
Array normal(const Shape& shape, double mean = 0.0, double stddev = 1.0, DType dtype = float64);
Array integers(int64_t low, int64_t high, const Shape& shape, DType dtype = int64);

}  // namespace gpuc::random

#endif  // GPUC_RANDOM_H_
