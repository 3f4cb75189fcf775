//===- passes.h - The graph passes ----------------------------------------===//
//
// One factory per pass; each lives in its own file. The pass manager (pass_manager.h) builds
// pipelines from their names.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_PASSES_H_
#define GPUC_PASSES_PASSES_H_

#include <memory>

#include "passes/pass.h"

namespace gpuc::passes {

std::unique_ptr<Pass> CreateCanonicalize();                    // canonicalize.cc
std::unique_ptr<Pass> CreateCommonSubexpressionElimination();  // cse.cc
std::unique_ptr<Pass> CreateDeadCodeElimination();             // dce.cc
std::unique_ptr<Pass> CreateFuseMatmulEpilogue();              // fuse_matmul_epilogue.cc

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_PASSES_H_
