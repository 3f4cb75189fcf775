//===- buffer_plan.h - Where each kernel's values live --------------------===//
//
// After fusion, every value a kernel writes for another kernel is an intermediate buffer
// with a lifetime: from the kernel that writes it to the last kernel that reads it.
// Intermediates whose lifetimes do not overlap share memory: they are packed into one arena
// by the greedy-by-size heuristic (largest first, each at the lowest offset free over its
// lifetime; TensorFlow Lite's and XLA's heap simulators do the same), so an evaluation
// allocates once and its peak memory is the live set, not the sum. An elementwise kernel
// writes an output in place over an input whose last reader it is, when both have the same
// shape and element size (each element is read before it is overwritten, at the same index).
// Arguments and results
// live outside the arena (the caller owns them). The plan has a text form
// (`gpuc --emit=plan`) and reports its peak bytes.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_PASSES_BUFFER_PLAN_H_
#define GPUC_PASSES_BUFFER_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/graph.h"
#include "passes/fusion.h"

namespace gpuc::passes {

/// Offsets are multiples of this: a cache line and the widest vector load (AVX-512, 64 B).
inline constexpr int64_t kBufferAlignment = 64;

struct BufferAssignment {
  enum class Kind : uint8_t { kArgument, kResult, kIntermediate };
  const ir::Node* value = nullptr;
  Kind kind = Kind::kIntermediate;
  int64_t bytes = 0;
  int64_t offset = 0;     // kIntermediate: position in the arena
  int first_kernel = -1;  // the kernel that writes it (-1: an argument)
  int last_kernel = -1;   // the last kernel that reads it
};

struct BufferPlan {
  std::vector<BufferAssignment> buffers;  // arguments, then in the order kernels write them
  absl::flat_hash_map<const ir::Node*, int> index_of;
  int64_t arena_bytes = 0;     // one allocation holds every intermediate
  int64_t unshared_bytes = 0;  // what the intermediates would take without reuse
  int64_t peak_bytes = 0;      // the most bytes live during any kernel, arguments included
  /// Outputs written over an input's storage: output -> input (both intermediates).
  absl::flat_hash_map<const ir::Node*, const ir::Node*> in_place;

  const BufferAssignment* Find(const ir::Node* value) const {
    auto it = index_of.find(value);
    return it == index_of.end() ? nullptr : &buffers[it->second];
  }
};

BufferPlan PlanBuffers(const ir::Graph& graph, const FusionPlan& fusion);

/// The plan as text: each kernel with what it reads and writes, then every buffer with its
/// size, place and lifetime, and the totals.
std::string PrintBufferPlan(const ir::Graph& graph, const FusionPlan& fusion,
                            const BufferPlan& plan);

}  // namespace gpuc::passes

#endif  // GPUC_PASSES_BUFFER_PLAN_H_
