//===- gpuc/io.h - NumPy files and DLPack ---------------------------------===//
//
// .npy files (every gpuc dtype; C or Fortran order on load) and DLPack, the zero-copy exchange
// format of NumPy, PyTorch, JAX and CuPy. Exporting evaluates the array and shares its buffer;
// importing a compact row-major host tensor shares the producer's buffer, anything else (other
// strides) is copied once.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IO_H_
#define GPUC_IO_H_

#include <string>

#include "gpuc/array.h"

struct DLManagedTensor;  // <dlpack/dlpack.h>

namespace gpuc {

Array load(const std::string& path);
void save(const std::string& path, const Array& a);

/// A DLPack tensor sharing `a`'s (evaluated) buffer. The caller owns it and must call its
/// deleter (or hand it to a consumer that does); the buffer lives until then.
DLManagedTensor* to_dlpack(const Array& a);
/// Takes ownership of `tensor` (its deleter runs when the last array using it is gone).
Array from_dlpack(DLManagedTensor* tensor);

}  // namespace gpuc

#endif  // GPUC_IO_H_
