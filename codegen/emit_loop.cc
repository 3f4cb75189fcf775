//===- emit_loop.cc - Counted loops in generated code ---------------------===//
#include "codegen/emit_loop.h"

#include "absl/strings/str_cat.h"

namespace gpuc::codegen {

void EmitLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end,
              const std::function<llvm::Value*(llvm::Value*)>& body, const char* name) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& c = b.getContext();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(c, absl::StrCat(name, ".header"), f);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(c, absl::StrCat(name, ".body"), f);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, absl::StrCat(name, ".exit"), f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(begin->getType(), 2, name);
  iv->addIncoming(begin, preheader);
  b.CreateCondBr(b.CreateICmpULT(iv, end), body_block, exit);
  b.SetInsertPoint(body_block);
  llvm::Value* next = body(iv);
  if (!next) next = b.CreateAdd(iv, llvm::ConstantInt::get(iv->getType(), 1), "", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

void EmitIf(llvm::IRBuilder<>& b, llvm::Value* condition, const std::function<void()>& then_body,
            const char* name) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& c = b.getContext();
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(c, absl::StrCat(name, ".then"), f);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(c, absl::StrCat(name, ".join"), f);
  b.CreateCondBr(condition, then_block, join);
  b.SetInsertPoint(then_block);
  then_body();
  b.CreateBr(join);
  b.SetInsertPoint(join);
}

}  // namespace gpuc::codegen
