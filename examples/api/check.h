//===- examples/api/check.h - Compare an example's result with a plain loop ===//
//
// Each example computes something with gpuc and the same thing with a plain C++ loop in double,
// and exits nonzero when they differ: ctest runs the examples, so docs/api.md cannot drift from
// what the API does.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_EXAMPLES_API_CHECK_H_
#define GPUC_EXAMPLES_API_CHECK_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace example {

/// Counts the elements of `got` farther than rtol * max(1, |want|) from `want`, printing the
/// first few; a size mismatch counts as one failure.
template <typename T>
int CountMismatches(const char* what, const std::vector<T>& got, const std::vector<double>& want,
                    double rtol) {
  if (got.size() != want.size()) {
    std::printf("%s: %zu elements, expected %zu\n", what, got.size(), want.size());
    return 1;
  }
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (std::abs(g - want[i]) > rtol * std::max(1.0, std::abs(want[i]))) {
      if (bad++ < 5) std::printf("%s[%zu] = %.9g, expected %.9g\n", what, i, g, want[i]);
    }
  }
  return bad;
}

/// "(5, 7)", as NumPy prints a shape.
inline std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace example

#endif  // GPUC_EXAMPLES_API_CHECK_H_
