//===- host_support.h - Functions generated host code calls ---------------===//
//
// A small support library linked into every host kernel: half-precision conversions (x86
// without F16C has no instruction for them, and compiler-rt's ABI for _Float16 differs
// between compilers, so gpuc defines its own with integer bit patterns) and one entry point
// that evaluates a single element of any elementwise op with the interpreter's semantics, for
// the few op/dtype pairs without a native lowering.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_HOST_SUPPORT_H_
#define GPUC_CODEGEN_HOST_SUPPORT_H_

#include <utility>
#include <vector>

namespace gpuc::codegen {

/// (symbol, address) of every support function, for the JIT's symbol table.
std::vector<std::pair<const char*, void*>> HostSupportSymbols();

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_HOST_SUPPORT_H_
