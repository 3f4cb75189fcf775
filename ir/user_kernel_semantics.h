//===- user_kernel_semantics.h - What a user_elementwise node means -------===//
//
// gpuc::ElementwiseKernel records user_elementwise nodes: a CUDA C++ statement (`operation`)
// over named inputs and outputs of stated dtypes, CuPy's ElementwiseKernel with its type
// placeholders already resolved. Each node is one output of the operation (`output`); its
// operands are the inputs in order, broadcast together, and the loop index `i` (the flat
// position in the result) is in scope, as in CuPy. The attributes:
//
//   name       the kernel's name, for messages and plans
//   inputs     "f32 x, i32 n": dtype and C++ name of each operand
//   outputs    "f32 z, f32 w": the values the operation assigns
//   operation  the statement(s), e.g. "z = x * n + 1; w = z * z"
//   preamble   code placed before the function (helpers, #includes); may be empty
//   output     which output this node is
//
// The code is compiled by NVRTC on the GPU path (codegen/user_function.h); the interpreter and
// the host back end cannot run CUDA C++ and say so.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_USER_KERNEL_SEMANTICS_H_
#define GPUC_IR_USER_KERNEL_SEMANTICS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/attributes.h"
#include "ir/dtype.h"

namespace gpuc::ir {

struct UserParam {
  DType dtype;
  std::string name;
};

struct UserElementwise {
  std::string name;
  std::vector<UserParam> inputs;
  std::vector<UserParam> outputs;
  std::string operation;
  std::string preamble;
  int output = 0;
};

/// Reads and checks a user_elementwise node's attributes (names are C identifiers, unique,
/// the output index in range; complex dtypes are refused: the call ABI has no complex type).
absl::StatusOr<UserElementwise> ReadUserElementwise(const Attributes& attrs);

/// "f32 x, i32 n" and back.
std::string FormatUserParams(const std::vector<UserParam>& params);
absl::StatusOr<std::vector<UserParam>> ParseUserParams(absl::string_view text);

/// The attributes that record `kernel` (the inverse of ReadUserElementwise).
Attributes UserElementwiseAttributes(const UserElementwise& kernel);

bool IsCIdentifier(absl::string_view name);

}  // namespace gpuc::ir

#endif  // GPUC_IR_USER_KERNEL_SEMANTICS_H_
