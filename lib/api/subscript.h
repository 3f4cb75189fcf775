//===- subscript.h - A basic subscript resolved against a shape -----------===//
//
// What Array::index reads and the writes (a(i...) = v, a.at(i...).set(v)) write: integers,
// slices, newaxis and an ellipsis turned into slice's normalized start/stop/step per axis.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_API_SUBSCRIPT_H_
#define GPUC_LIB_API_SUBSCRIPT_H_

#include <cstdint>
#include <vector>

#include "gpuc/array.h"

namespace gpuc::detail {

struct ResolvedSubscript {
  // One entry per axis of the subscripted array, in the IR slice's normalized form.
  std::vector<int64_t> start, stop, step;
  // The slice's shape: the array's rank, an integer-indexed axis kept with extent 1.
  Shape region;
  // The shape a(indices...) has: integer-indexed axes dropped, new axes inserted.
  Shape result;
  // Whether the slice is the whole array in order (no slice node is needed).
  bool identity = true;
};

/// Throws gpuc::Error naming `op` for too many indices, two ellipses, a zero step or an
/// integer out of bounds.
ResolvedSubscript ResolveSubscript(const char* op, const Shape& shape,
                                   const std::vector<Index>& indices);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_API_SUBSCRIPT_H_
