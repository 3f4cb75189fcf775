//===- plan_cache.h - Fused, compiled plans found by graph structure ------===//
//
// A loop over lazy ops records the same graph every step, over new arrays. Evaluation keys
// each graph by its structure (ir/structural_key.h), the target and the options that change
// plans, and keeps the executable it compiled for it (lib/exec/target.h: lowering, fusion,
// buffer plan, compiled kernels). A step whose structure was seen before therefore costs a key, a
// lookup and the launches, not the passes, fusion and kernel-cache lookups. The cache is an
// LRU of bounded size shared by every thread; gpuc/evaluation.h exposes its statistics.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EVAL_PLAN_CACHE_H_
#define GPUC_LIB_EVAL_PLAN_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "gpuc/evaluation.h"
#include "ir/graph.h"
#include "lib/eval/evaluator.h"

namespace gpuc::detail {

/// What evaluation keeps per structure: the executable compiled from the graph over unbound
/// parameters (so the cache holds no user's storage alive).
struct CachedPlan {
  /// Null for a structure keyed without positions whose plan depends on them (a step
  /// without numbered offsets): the evaluator then keys it with its positions.
  std::shared_ptr<const exec::Executable> executable;
};

/// `graph` with a fresh unbound parameter in place of each of its parameters, in the same
/// positions; the body is rebuilt over them, keeping every op, attribute and location. The
/// update_slice nodes in `in_place_writes` get in_place = true (lib/eval/in_place_writes.h);
/// with `number_positions`, the nonzero offsets get their position numbers (ir/positions.h).
ir::Graph WithUnboundParameters(const ir::Graph& graph,
                                const absl::flat_hash_set<const ir::Node*>& in_place_writes = {},
                                bool number_positions = false);

class PlanCache {
 public:
  static PlanCache& Get();

  /// The plan stored under `key` (now the most recently used), or null; counts a hit or miss.
  std::shared_ptr<const CachedPlan> Find(const std::string& key);
  /// Stores `plan` under `key`, dropping the least recently used past the capacity. Does
  /// nothing when the cache is off (capacity 0).
  void Insert(const std::string& key, std::shared_ptr<const CachedPlan> plan);

  PlanCacheStats stats() const;
  void set_capacity(int64_t capacity);
  void clear();

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const CachedPlan> plan;
  };
  void TrimLocked();

  mutable std::mutex mutex_;
  std::list<Entry> recency_;  // most recently used first
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_;
  int64_t capacity_ = 256;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EVAL_PLAN_CACHE_H_
