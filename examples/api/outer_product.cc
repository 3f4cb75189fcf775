// A broadcast outer product: a (n, 1) column times a (m,) row gives (n, m), with no loop and no
// materialized copies of either operand. Slicing with a step and a transpose are views.
#include <cstdio>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  using gpuc::Slice;
  const int64_t n = 5, m = 7;
  Array x = gpuc::linspace(-1.0, 1.0, n);         // float64 (5,)
  Array y = gpuc::arange(m).astype(gpuc::int32);  // int32 (7,)
  Array outer = gpuc::expand_dims(x, 1) * y;      // (5, 1) * (7,) -> (5, 7), float64
  Array every_other_column = outer(gpuc::colon, Slice(0, gpuc::none, 2)).T();  // (4, 5)

  std::vector<double> want, want_view;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) want.push_back((-1.0 + 0.5 * i) * j);
  for (int64_t j = 0; j < m; j += 2)
    for (int64_t i = 0; i < n; ++i) want_view.push_back((-1.0 + 0.5 * i) * j);
  int bad =
      example::CountMismatches("outer", outer.to_host<double>(), want, 1e-15) +
      example::CountMismatches("view", every_other_column.to_host<double>(), want_view, 1e-15);
  if (outer.shape() != gpuc::Shape{n, m} || outer.dtype() != gpuc::float64 ||
      every_other_column.shape() != gpuc::Shape{4, n}) {
    std::printf("outer_product: wrong shape or dtype\n");
    ++bad;
  }
  std::printf("outer_product: %s %s, view %s: %s\n", gpuc::dtype_name(outer.dtype()).c_str(),
              example::ShapeText(outer.shape()).c_str(),
              example::ShapeText(every_other_column.shape()).c_str(), bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
