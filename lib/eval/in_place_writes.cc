//===- in_place_writes.cc - Writes that touch only their region -----------===//
#include "lib/eval/in_place_writes.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"

namespace gpuc::detail {
namespace {

// The positions along each axis that a slice or update_slice region covers, as a closed
// interval per axis ([1, 0] when empty).
struct Footprint {
  std::vector<std::pair<int64_t, int64_t>> axes;
};

Footprint RegionOf(const ir::Node& n, const ir::Shape& region) {
  const std::vector<int64_t>& start = *n.attrs().Get<std::vector<int64_t>>("start");
  const std::vector<int64_t>& step = *n.attrs().Get<std::vector<int64_t>>("step");
  Footprint f;
  for (int d = 0; d < region.rank(); ++d) {
    const int64_t count = region[d];
    if (count == 0) {
      f.axes.emplace_back(1, 0);
      continue;
    }
    const int64_t first = start[d], last = start[d] + (count - 1) * step[d];
    f.axes.emplace_back(std::min(first, last), std::max(first, last));
  }
  return f;
}

// Some axis where the two regions share no position.
bool Disjoint(const Footprint& a, const Footprint& b) {
  for (size_t d = 0; d < a.axes.size() && d < b.axes.size(); ++d) {
    const auto [a0, a1] = a.axes[d];
    const auto [b0, b1] = b.axes[d];
    if (a0 > a1 || b0 > b1 || a1 < b0 || b1 < a0) return true;
  }
  return false;
}

}  // namespace

absl::flat_hash_set<const ir::Node*> FindInPlaceWrites(const ir::Graph& graph,
                                                       const std::vector<exec::BufferRef>& inputs) {
  absl::flat_hash_set<const ir::Node*> writes;
  bool any = false;
  for (const ir::NodeRef& n : graph.nodes) any = any || n->op() == ir::OpCode::kUpdateSlice;
  if (!any) return writes;  // the common graph
  // Who reads each value, and how often the graph itself refers to it: any other holder (a
  // handle, a view, another pending graph) could still read the old value.
  absl::flat_hash_map<const ir::Node*, std::vector<const ir::Node*>> readers;
  absl::flat_hash_map<const ir::Node*, long> references;
  for (const ir::NodeRef& n : graph.nodes) {
    for (const ir::NodeRef& op : n->operands()) {
      readers[op.get()].push_back(n.get());
      ++references[op.get()];
    }
  }
  absl::flat_hash_set<const ir::Node*> results;
  for (const ir::NodeRef& r : graph.results) results.insert(r.get());
  // Storage this evaluation may overwrite: donated inputs (held only by their parameter node
  // and `inputs`), then the results of in-place writes over them, as a chain of writes goes.
  // Each owned value's chain: the donated input and the writes over it so far, one storage.
  absl::flat_hash_map<const ir::Node*, std::shared_ptr<std::vector<const ir::Node*>>> owned;
  for (size_t i = 0; i < graph.params.size() && i < inputs.size(); ++i) {
    const ir::Node* p = graph.params[i].get();
    const exec::BufferRef& buffer = inputs[i];
    if (results.contains(p) || !buffer || buffer.use_count() != 2 ||
        !buffer->HostOnlyAndUnshared() || graph.params[i].use_count() != 1 + references[p]) {
      continue;
    }
    owned[p] = std::make_shared<std::vector<const ir::Node*>>(1, p);
  }
  for (const ir::NodeRef& n : graph.nodes) {
    if (n->op() != ir::OpCode::kUpdateSlice || !owned.contains(&n->operand(0))) continue;
    const ir::Node* old = &n->operand(0);
    if (&n->operand(1) == old) continue;
    const std::shared_ptr<std::vector<const ir::Node*>> chain = owned.at(old);
    // Every reader of every value in the storage's chain (but the writes that make the
    // chain) must read elsewhere, or be done before the write: one running after it would
    // see its region. A reader whose every use (transitively) feeds the write is done before
    // it, whichever kernels the uses are fused into, since each such kernel has an output the
    // write waits for: u[1:-1] = f(u[:-2], u[1:-1], u[2:]) computes f, then writes in place.
    const Footprint region = RegionOf(*n, n->operand(1).shape());
    absl::flat_hash_set<const ir::Node*> chain_set(chain->begin(), chain->end());
    chain_set.insert(n.get());
    absl::flat_hash_set<const ir::Node*> feeds_write;  // the write's operands, transitively
    std::vector<const ir::Node*> stack = {&n->operand(1)};
    while (!stack.empty()) {
      const ir::Node* v = stack.back();
      stack.pop_back();
      if (!feeds_write.insert(v).second) continue;
      for (const ir::NodeRef& op : v->operands()) stack.push_back(op.get());
    }
    auto done_before = [&](const ir::Node* reader) {
      std::vector<const ir::Node*> users = {reader};
      absl::flat_hash_set<const ir::Node*> seen;
      while (!users.empty()) {
        const ir::Node* u = users.back();
        users.pop_back();
        if (u == n.get() || !seen.insert(u).second) continue;  // the write reads it: fine
        if (!feeds_write.contains(u)) return false;
        for (const ir::Node* next : readers[u]) users.push_back(next);
      }
      return true;
    };
    bool elsewhere = true;
    for (const ir::Node* member : *chain) {
      for (const ir::Node* reader : readers[member]) {
        if (chain_set.contains(reader)) continue;
        elsewhere = elsewhere && ((reader->op() == ir::OpCode::kSlice &&
                                   Disjoint(RegionOf(*reader, reader->shape()), region)) ||
                                  done_before(reader));
      }
    }
    if (!elsewhere) continue;
    writes.insert(n.get());
    // The write's result is that storage now; a later write may go on over it when nothing
    // outside the graph holds it and it is not handed out as a result.
    if (!results.contains(n.get()) && n.use_count() == 1 + references[n.get()]) {
      chain->push_back(n.get());
      owned[n.get()] = chain;
    }
  }
  return writes;
}

std::string InPlaceKey(const ir::Graph& graph, const absl::flat_hash_set<const ir::Node*>& writes) {
  if (writes.empty()) return "";
  std::string key = "\nin place:";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (writes.contains(graph.nodes[i].get())) key += " " + std::to_string(i);
  }
  return key;
}

}  // namespace gpuc::detail
