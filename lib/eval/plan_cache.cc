//===- plan_cache.cc - Fused, compiled plans found by graph structure -----===//
#include "lib/eval/plan_cache.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/positions.h"
#include "lib/api/recorder.h"
#include "passes/graph_rewriter.h"

namespace gpuc::detail {

ir::Graph WithUnboundParameters(const ir::Graph& graph,
                                const absl::flat_hash_set<const ir::Node*>& in_place_writes,
                                bool number_positions) {
  int64_t next_position = 0;
  absl::flat_hash_map<const ir::Node*, ir::NodeRef> replaced;
  replaced.reserve(graph.params.size() + graph.nodes.size());
  ir::Graph out;
  out.name = graph.name;
  for (const ir::NodeRef& p : graph.params) {
    ir::NodeRef fresh = ir::Node::Create(ir::OpCode::kParameter, p->type(), {}, {}, p->name());
    replaced.emplace(p.get(), fresh);
    out.params.push_back(std::move(fresh));
  }
  auto mapped = [&](const ir::NodeRef& n) {
    auto it = replaced.find(n.get());
    return it == replaced.end() ? n : it->second;
  };
  out.nodes.reserve(graph.nodes.size());
  for (const ir::NodeRef& n : graph.nodes) {
    std::vector<ir::NodeRef> operands;
    operands.reserve(n->operands().size());
    for (const ir::NodeRef& operand : n->operands()) operands.push_back(mapped(operand));
    std::optional<ir::Attributes> attrs;
    if (number_positions) attrs = ir::NumberPositions(*n, next_position);
    if (in_place_writes.contains(n.get())) {
      if (!attrs) attrs = n->attrs();
      attrs->Set("in_place", true);
    }
    ir::NodeRef rebuilt = attrs ? ir::Node::Create(n->op(), n->type(), std::move(operands),
                                                   *std::move(attrs), n->name(), n->location())
                                : passes::WithOperands(n, std::move(operands));
    replaced.emplace(n.get(), rebuilt);
    out.nodes.push_back(std::move(rebuilt));
  }
  for (const ir::NodeRef& r : graph.results) out.results.push_back(mapped(r));
  return out;
}

PlanCache& PlanCache::Get() {
  static PlanCache* cache = new PlanCache;  // never destroyed: evaluation may run at exit
  return *cache;
}

std::shared_ptr<const CachedPlan> PlanCache::Find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  recency_.splice(recency_.begin(), recency_, it->second);
  return it->second->plan;
}

void PlanCache::Insert(const std::string& key, std::shared_ptr<const CachedPlan> plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (capacity_ == 0 || index_.contains(key)) return;  // another thread made the same plan
  recency_.push_front({key, std::move(plan)});
  index_.emplace(key, recency_.begin());
  TrimLocked();
}

void PlanCache::TrimLocked() {
  while (static_cast<int64_t>(recency_.size()) > capacity_) {
    index_.erase(recency_.back().key);
    recency_.pop_back();
  }
}

PlanCacheStats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {hits_, misses_, static_cast<int64_t>(recency_.size()), capacity_};
}

void PlanCache::set_capacity(int64_t capacity) {
  if (capacity < 0) {
    ThrowInvalid(
        absl::StrCat("set_plan_cache_capacity: the capacity must be 0 (off) or "
                     "positive, got ",
                     capacity));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  capacity_ = capacity;
  TrimLocked();
}

void PlanCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  recency_.clear();
  index_.clear();
  hits_ = 0;
  misses_ = 0;
}

}  // namespace gpuc::detail

namespace gpuc {

PlanCacheStats plan_cache_stats() { return detail::PlanCache::Get().stats(); }
void set_plan_cache_capacity(int64_t capacity) { detail::PlanCache::Get().set_capacity(capacity); }
void clear_plan_cache() { detail::PlanCache::Get().clear(); }

}  // namespace gpuc
