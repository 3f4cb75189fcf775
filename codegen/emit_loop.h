//===- emit_loop.h - Counted loops in generated code ----------------------===//
#ifndef GPUC_CODEGEN_EMIT_LOOP_H_
#define GPUC_CODEGEN_EMIT_LOOP_H_

#include <functional>

#include "llvm/IR/IRBuilder.h"

namespace gpuc::codegen {

/// for (iv = begin; iv < end (unsigned); iv = next(iv)), where `body` emits the work at the
/// builder's position and returns the next value of iv (iv + 1 when it returns null). The
/// builder is left in the loop's exit block.
void EmitLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end,
              const std::function<llvm::Value*(llvm::Value*)>& body, const char* name);

/// if (condition) { then_body(); }, leaving the builder after the join.
void EmitIf(llvm::IRBuilder<>& b, llvm::Value* condition, const std::function<void()>& then_body,
            const char* name);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_EMIT_LOOP_H_
