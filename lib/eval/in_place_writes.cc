//===- in_place_writes.cc - Writes that touch only their region -----------===//
#include "lib/eval/in_place_writes.h"

#include <algorithm>
#include <memory>
#include <optional>

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

Footprint Everywhere(const ir::Shape& shape) {
  Footprint f;
  for (int d = 0; d < shape.rank(); ++d) f.axes.emplace_back(0, shape[d] - 1);
  return f;
}

// The writes this analysis may put in place: update_slice (a region) and scatter (indexed
// elements).
bool IsWrite(const ir::Node& n) {
  return n.op() == ir::OpCode::kUpdateSlice || n.op() == ir::OpCode::kScatter;
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

// A single index as base + offset: through adds and subtracts of integer constants and
// reshapes of one element (a loop's `k - 1` beside its `k`); integer-typed expressions only.
struct OffsetIndex {
  const ir::Node* base = nullptr;
  int64_t offset = 0;
};

std::optional<int64_t> IntegerScalarConstant(const ir::Node& n) {
  if (n.op() != ir::OpCode::kConstant || n.shape().num_elements() != 1) return std::nullopt;
  const int64_t* v = n.attrs().Get<int64_t>("value");
  if (v == nullptr || *v < -(int64_t{1} << 40) || *v > (int64_t{1} << 40)) return std::nullopt;
  return *v;
}

std::optional<OffsetIndex> OffsetIndexOf(const ir::Node* n) {
  OffsetIndex at;
  for (int depth = 0; depth < 8; ++depth) {
    if (n->shape().num_elements() != 1 ||
        (n->dtype() != ir::DType::kInt64 && n->dtype() != ir::DType::kInt32)) {
      return std::nullopt;
    }
    if (n->op() == ir::OpCode::kReshape) {
      n = &n->operand(0);
      continue;
    }
    if (n->op() == ir::OpCode::kAdd || n->op() == ir::OpCode::kSub) {
      if (std::optional<int64_t> c = IntegerScalarConstant(n->operand(1))) {
        at.offset += n->op() == ir::OpCode::kAdd ? *c : -*c;
        n = &n->operand(0);
        continue;
      }
      if (std::optional<int64_t> c = IntegerScalarConstant(n->operand(0));
          c && n->op() == ir::OpCode::kAdd) {
        at.offset += *c;
        n = &n->operand(1);
        continue;
      }
    }
    break;
  }
  at.base = n;
  return at;
}

// Whether `reader`, a take of one position of the array `write` scatters one position into,
// reads another position than the write's for every value of their common index: k + a and
// k + b along an axis of extent E are one position only when a - b is a multiple of E (a
// negative index counts from the end; one out of range is an error anyway).
bool TakesAnotherPosition(const ir::Node& reader, const ir::Node& write) {
  if (reader.op() != ir::OpCode::kTake || write.op() != ir::OpCode::kScatter) return false;
  const int64_t* read_axis = reader.attrs().Get<int64_t>("axis");
  const int64_t* write_axis = write.attrs().Get<int64_t>("axis");
  if (read_axis == nullptr || write_axis == nullptr || *read_axis != *write_axis) return false;
  const std::optional<OffsetIndex> r = OffsetIndexOf(&reader.operand(1));
  const std::optional<OffsetIndex> w = OffsetIndexOf(&write.operand(1));
  if (!r || !w || r->base != w->base) return false;
  const int64_t extent = write.shape()[static_cast<int>(*write_axis)];
  return extent > 0 && (r->offset - w->offset) % extent != 0;
}

}  // namespace

namespace {

// The analysis over `graph` with parameter i's storage donated where `donated(i, references)`
// says so (references: how often the graph itself refers to it). `private_graph`: nothing
// outside the graph can hold its nodes' values (a trace's), so a write's result continues a
// chain whoever holds the node.
template <typename Donated, typename Writable>
absl::flat_hash_set<const ir::Node*> FindWrites(const ir::Graph& graph, bool private_graph,
                                                const Donated& donated, const Writable& writable) {
  absl::flat_hash_set<const ir::Node*> writes;
  bool any = false;
  for (const ir::NodeRef& n : graph.nodes) any = any || IsWrite(*n);
  if (!any) return writes;  // the common graph
  // Values numbered densely, parameters first: a loop step evaluates this analysis every
  // step, so it works on vectors indexed by number rather than maps keyed by node.
  const int num_params = static_cast<int>(graph.params.size());
  const int count = num_params + static_cast<int>(graph.nodes.size());
  absl::flat_hash_map<const ir::Node*, int> number;
  number.reserve(static_cast<size_t>(count));
  std::vector<const ir::Node*> node_of(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const ir::Node* n = i < num_params ? graph.params[i].get() : graph.nodes[i - num_params].get();
    number.emplace(n, i);
    node_of[i] = n;
  }
  // Who reads each value (CSR lists), and how often the graph itself refers to it: any other
  // holder (a handle, a view, another pending graph) could still read the old value.
  std::vector<int> references(static_cast<size_t>(count), 0);
  std::vector<int> first_reader(static_cast<size_t>(count) + 1, 0);
  for (const ir::NodeRef& n : graph.nodes) {
    for (const ir::NodeRef& op : n->operands()) ++references[number.at(op.get())];
  }
  for (int i = 0; i < count; ++i) first_reader[i + 1] = first_reader[i] + references[i];
  std::vector<int> readers(static_cast<size_t>(first_reader[count]));
  {
    std::vector<int> fill(first_reader.begin(), first_reader.end() - 1);
    for (int i = num_params; i < count; ++i) {
      for (const ir::NodeRef& op : node_of[i]->operands()) readers[fill[number.at(op.get())]++] = i;
    }
  }
  std::vector<char> is_result(static_cast<size_t>(count), 0);
  for (const ir::NodeRef& r : graph.results) is_result[number.at(r.get())] = 1;
  // Storage this evaluation may overwrite: donated inputs (held only by their parameter node
  // and `inputs`), then the results of in-place writes over them, as a chain of writes goes.
  // chain_of[v] names the chain value v's storage belongs to (-1: none); chains[c] lists the
  // donated input and the writes over it so far, one storage.
  std::vector<int> chain_of(static_cast<size_t>(count), -1);
  std::vector<std::vector<int>> chains;
  for (int i = 0; i < num_params; ++i) {
    if (is_result[i] || !donated(i, references[i])) continue;
    chain_of[i] = static_cast<int>(chains.size());
    chains.push_back({i});
  }
  if (chains.empty()) return writes;
  // Marks stamped per write and per walk, so each walk costs what it visits, not the graph.
  std::vector<int> feeds_write(static_cast<size_t>(count), -1);  // == w: feeds write w
  std::vector<int> seen(static_cast<size_t>(count), -1);         // == walk: seen by it
  int walk = 0;
  std::vector<int> stack;
  for (int w = num_params; w < count; ++w) {
    const ir::Node* n = node_of[w];
    if (!IsWrite(*n)) continue;
    const int old = number.at(&n->operand(0));
    if (chain_of[old] < 0 || !writable(*n)) continue;
    // What the write reads besides the old value: update_slice's region value, scatter's
    // indices and values. The old value itself among them: not in place.
    std::vector<int> inputs;
    for (int i = 1; i < n->num_operands(); ++i) inputs.push_back(number.at(&n->operand(i)));
    if (std::find(inputs.begin(), inputs.end(), old) != inputs.end()) continue;
    const std::vector<int>& chain = chains[chain_of[old]];
    // Every reader of every value in the storage's chain (but the writes that make the
    // chain) must read elsewhere, or be done before the write: one running after it would
    // see its region. A reader whose every use (transitively) feeds the write is done before
    // it, whichever kernels the uses are fused into, since each such kernel has an output the
    // write waits for: u[1:-1] = f(u[:-2], u[1:-1], u[2:]) computes f, then writes in place.
    // A scatter's region depends on its indices: all of the old value for this analysis,
    // but for a take of another position along the axis of a one-position scatter.
    const Footprint region = n->op() == ir::OpCode::kUpdateSlice
                                 ? RegionOf(*n, n->operand(1).shape())
                                 : Everywhere(n->shape());
    stack = inputs;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      if (feeds_write[v] == w) continue;
      feeds_write[v] = w;
      for (const ir::NodeRef& op : node_of[v]->operands()) stack.push_back(number.at(op.get()));
    }
    auto in_chain = [&](int v) { return v == w || chain_of[v] == chain_of[old]; };
    auto done_before = [&](int reader) {
      ++walk;
      stack.assign(1, reader);
      while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        if (u == w || seen[u] == walk) continue;  // the write reads it: fine
        seen[u] = walk;
        if (feeds_write[u] != w) return false;
        for (int k = first_reader[u]; k < first_reader[u + 1]; ++k) stack.push_back(readers[k]);
      }
      return true;
    };
    bool elsewhere = true;
    for (size_t c = 0; elsewhere && c < chain.size(); ++c) {
      const int member = chain[c];
      for (int k = first_reader[member]; elsewhere && k < first_reader[member + 1]; ++k) {
        const int reader = readers[k];
        if (in_chain(reader)) continue;
        const ir::Node& r = *node_of[reader];
        elsewhere = (r.op() == ir::OpCode::kSlice && Disjoint(RegionOf(r, r.shape()), region)) ||
                    TakesAnotherPosition(r, *n) || done_before(reader);
      }
    }
    if (!elsewhere) continue;
    writes.insert(n);
    // The write's result is that storage now; a later write may go on over it when nothing
    // outside the graph holds it and it is not handed out as a result.
    if (!is_result[w] &&
        (private_graph || graph.nodes[w - num_params].use_count() == 1 + references[w])) {
      chains[chain_of[old]].push_back(w);
      chain_of[w] = chain_of[old];
    }
  }
  return writes;
}

}  // namespace

absl::flat_hash_set<const ir::Node*> FindInPlaceWrites(const ir::Graph& graph,
                                                       const std::vector<exec::BufferRef>& inputs,
                                                       const InPlaceRules& rules) {
  // Donated: held only by its parameter node and `inputs`, its bytes (host or device, as the
  // target keeps them) owned alone, and the parameter node referenced only from inside the
  // graph.
  return FindWrites(
      graph, /*private_graph=*/false,
      [&](int i, int references) {
        if (i >= static_cast<int>(inputs.size())) return false;
        const exec::BufferRef& buffer = inputs[i];
        return buffer && buffer.use_count() == 2 &&
               (rules.device_storage ? buffer->OnDeviceAndUnshared()
                                     : buffer->HostOnlyAndUnshared()) &&
               graph.params[i].use_count() == 1 + references;
      },
      [&](const ir::Node& write) { return !rules.writes || rules.writes(write); });
}

absl::flat_hash_set<const ir::Node*> FindInPlaceWritesOverParams(const ir::Graph& graph,
                                                                 const std::vector<bool>& donated) {
  return FindWrites(
      graph, /*private_graph=*/true,
      [&](int i, int) { return i < static_cast<int>(donated.size()) && donated[i]; },
      [](const ir::Node&) { return true; });
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
