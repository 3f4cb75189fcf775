//===- fused_kernel.cc - One kernel of a fusion plan ----------------------===//
#include "ir/fused_kernel.h"

namespace gpuc::ir {

const char* KernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::kLoop:
      return "loop";
    case KernelKind::kRowReduction:
      return "row_reduction";
    case KernelKind::kColumnReduction:
      return "column_reduction";
    case KernelKind::kFullReduction:
      return "full_reduction";
    case KernelKind::kLibrary:
      return "library";
    case KernelKind::kScan:
      return "scan";
  }
  return "?";
}

}  // namespace gpuc::ir
