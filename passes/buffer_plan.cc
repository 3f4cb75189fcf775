//===- buffer_plan.cc - Where each kernel's values live -------------------===//
#include "passes/buffer_plan.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/value_names.h"

namespace gpuc::passes {
namespace {

int64_t AlignUp(int64_t n) {
  return (n + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

std::string Bytes(int64_t n) {
  if (n < 1024) return absl::StrCat(n, " B");
  if (n < 1024 * 1024) return absl::StrFormat("%.1f KiB", n / 1024.0);
  if (n < int64_t{1} << 30) return absl::StrFormat("%.1f MiB", n / 1048576.0);
  return absl::StrFormat("%.2f GiB", n / 1073741824.0);
}

}  // namespace

BufferPlan PlanBuffers(const ir::Graph& graph, const FusionPlan& fusion) {
  BufferPlan plan;
  absl::flat_hash_set<const ir::Node*> results;
  for (const ir::NodeRef& r : graph.results) results.insert(r.get());
  auto add = [&](const ir::Node* value, BufferAssignment::Kind kind, int writer) {
    if (plan.index_of.contains(value)) return;
    BufferAssignment b;
    b.value = value;
    b.kind = kind;
    b.bytes = value->shape().num_elements() * ir::DTypeSize(value->dtype());
    b.first_kernel = writer;
    b.last_kernel = writer;
    plan.index_of[value] = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back(b);
  };
  for (const ir::NodeRef& p : graph.params) add(p.get(), BufferAssignment::Kind::kArgument, -1);
  for (size_t k = 0; k < fusion.kernels.size(); ++k) {
    for (const ir::NodeRef& out : fusion.kernels[k].outputs) {
      add(out.get(),
          results.contains(out.get()) ? BufferAssignment::Kind::kResult
                                      : BufferAssignment::Kind::kIntermediate,
          static_cast<int>(k));
    }
  }
  for (size_t k = 0; k < fusion.kernels.size(); ++k) {
    for (const ir::NodeRef& in : fusion.kernels[k].inputs) {
      auto it = plan.index_of.find(in.get());
      if (it == plan.index_of.end()) continue;
      BufferAssignment& b = plan.buffers[it->second];
      b.last_kernel = std::max(b.last_kernel, static_cast<int>(k));
    }
  }
  // Greedy by size: the largest intermediates are placed first, each at the lowest offset
  // that no placed buffer with an overlapping lifetime occupies.
  std::vector<int> order;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    if (plan.buffers[i].kind == BufferAssignment::Kind::kIntermediate) {
      order.push_back(static_cast<int>(i));
      plan.unshared_bytes += AlignUp(plan.buffers[i].bytes);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return plan.buffers[a].bytes > plan.buffers[b].bytes; });
  std::vector<int> placed;
  for (int i : order) {
    BufferAssignment& b = plan.buffers[i];
    std::vector<std::pair<int64_t, int64_t>> taken;  // [offset, end) of overlapping lifetimes
    for (int j : placed) {
      const BufferAssignment& o = plan.buffers[j];
      if (o.first_kernel <= b.last_kernel && b.first_kernel <= o.last_kernel) {
        taken.emplace_back(o.offset, o.offset + AlignUp(o.bytes));
      }
    }
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto& [start, end] : taken) {
      if (offset + AlignUp(b.bytes) <= start) break;
      offset = std::max(offset, end);
    }
    b.offset = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + AlignUp(b.bytes));
    placed.push_back(i);
  }
  for (size_t k = 0; k < fusion.kernels.size(); ++k) {
    int64_t live = 0;
    for (const BufferAssignment& b : plan.buffers) {
      const bool alive = b.kind == BufferAssignment::Kind::kArgument
                             ? true
                             : b.first_kernel <= static_cast<int>(k) &&
                                   (b.kind == BufferAssignment::Kind::kResult ||
                                    static_cast<int>(k) <= b.last_kernel);
      if (alive) live += b.bytes;
    }
    plan.peak_bytes = std::max(plan.peak_bytes, live);
  }
  if (fusion.kernels.empty()) {
    for (const BufferAssignment& b : plan.buffers) plan.peak_bytes += b.bytes;
  }
  return plan;
}

std::string PrintBufferPlan(const ir::Graph& graph, const FusionPlan& fusion,
                            const BufferPlan& plan) {
  ir::ValueNames names(graph);
  auto name = [&](const ir::Node* n) { return absl::StrCat("%", names.NameOf(n)); };
  std::string out = absl::StrCat("// buffer plan of @", graph.name, ": ", fusion.kernels.size(),
                                 " kernel", fusion.kernels.size() == 1 ? "" : "s", ", arena ",
                                 Bytes(plan.arena_bytes), " (unshared ", Bytes(plan.unshared_bytes),
                                 "), peak ", Bytes(plan.peak_bytes), "\n");
  for (size_t k = 0; k < fusion.kernels.size(); ++k) {
    const FusedKernel& kernel = fusion.kernels[k];
    std::vector<std::string> reads, writes;
    for (const ir::NodeRef& n : kernel.inputs) reads.push_back(name(n.get()));
    for (const ir::NodeRef& n : kernel.outputs) writes.push_back(name(n.get()));
    absl::StrAppend(&out, "kernel ", k, " (", KernelKindName(kernel.kind), "): reads ",
                    reads.empty() ? "nothing" : absl::StrJoin(reads, ", "), "; writes ",
                    absl::StrJoin(writes, ", "), "\n");
  }
  for (const BufferAssignment& b : plan.buffers) {
    absl::StrAppend(&out, "  ", name(b.value), " : ", b.value->type().ToString(), "  ",
                    Bytes(b.bytes), "  ");
    switch (b.kind) {
      case BufferAssignment::Kind::kArgument:
        absl::StrAppend(&out, "argument");
        break;
      case BufferAssignment::Kind::kResult:
        absl::StrAppend(&out, "result, from kernel ", b.first_kernel);
        break;
      case BufferAssignment::Kind::kIntermediate:
        absl::StrAppend(&out, "arena +", b.offset, ", kernels ", b.first_kernel, "..",
                        b.last_kernel);
        break;
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace gpuc::passes
