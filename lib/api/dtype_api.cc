//===- dtype_api.cc - The public dtypes mirror the IR's -------------------===//
#include "gpuc/dtype.h"
#include "ir/dtype.h"
#include "lib/api/recorder.h"

namespace gpuc {

// The public enum is a copy of ir::DType so that conversions are casts (lib/api/recorder.h).
#define GPUC_CHECK_DTYPE(enumerator, text, numpy, bytes)                                        \
  static_assert(static_cast<int>(DType::enumerator) == static_cast<int>(ir::DType::enumerator), \
                "gpuc::DType::" #enumerator " must match ir::DType");
GPUC_DTYPES(GPUC_CHECK_DTYPE)
#undef GPUC_CHECK_DTYPE

std::string dtype_name(DType dtype) { return std::string(ir::DTypeNumpyName(detail::ToIr(dtype))); }
int64_t itemsize(DType dtype) { return ir::DTypeSize(detail::ToIr(dtype)); }

}  // namespace gpuc
