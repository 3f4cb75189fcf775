//===- loop_api.h - The while_loop that runs on the device ----------------===//
//
// gpuc/loops.h's loops are defined in loop_api.cc. This header exposes the form of while_loop
// the GPU runs, so that the host's tests can run it too: one traced step applies the body only
// while the condition holds and carries that fact, so steps past the end change nothing and
// many steps run as one device loop between reads of the flag.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EVAL_LOOP_API_H_
#define GPUC_LIB_EVAL_LOOP_API_H_

#include <vector>

#include "gpuc/loops.h"

namespace gpuc::detail {

/// while_loop(cond, body, state) as the GPU runs it, on any evaluation target (a target without
/// device loops runs its steps one at a time, reading the flag each step).
std::vector<Array> GuardedWhileLoop(const WhileCondition& cond, const WhileBody& body,
                                    const std::vector<Array>& state);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EVAL_LOOP_API_H_
