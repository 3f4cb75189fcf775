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
  // In place: an elementwise kernel reads each input only at the index it writes, so an
  // output may take the storage of an input that no later kernel reads.
  absl::flat_hash_set<const ir::Node*> taken_over;
  for (size_t k = 0; k < fusion.kernels.size(); ++k) {
    const FusedKernel& kernel = fusion.kernels[k];
    if (kernel.kind != KernelKind::kLoop || kernel.outputs.empty()) continue;
    bool elementwise = true;
    for (const ir::NodeRef& m : kernel.nodes) {
      elementwise = elementwise && (m->info().kind == ir::OpKind::kElementwise ||
                                    m->op() == ir::OpCode::kConstant);
    }
    const ir::Shape& shape = kernel.outputs[0]->shape();
    for (const ir::NodeRef& out : kernel.outputs)
      elementwise = elementwise && out->shape() == shape;
    if (!elementwise) continue;
    for (const ir::NodeRef& out : kernel.outputs) {
      const BufferAssignment* o = plan.Find(out.get());
      if (o->kind != BufferAssignment::Kind::kIntermediate) continue;
      for (const ir::NodeRef& in : kernel.inputs) {
        const BufferAssignment* i = plan.Find(in.get());
        if (i && i->kind == BufferAssignment::Kind::kIntermediate &&
            i->last_kernel == static_cast<int>(k) && in->shape() == shape &&
            ir::DTypeSize(in->dtype()) == ir::DTypeSize(out->dtype()) &&
            taken_over.insert(in.get()).second) {
          plan.in_place[out.get()] = in.get();
          break;
        }
      }
    }
  }
  // Buffers that share storage (chains of in-place outputs) are placed as one.
  absl::flat_hash_map<int, int> root;  // buffer -> the first buffer of its chain
  auto root_of = [&](int b) {
    while (root.contains(b)) b = root.at(b);
    return b;
  };
  for (const auto& [out, in] : plan.in_place) root[plan.index_of.at(out)] = plan.index_of.at(in);
  struct Slot {
    int64_t bytes = 0;
    int first = 0, last = 0;
    int64_t offset = 0;
  };
  absl::flat_hash_map<int, Slot> slots;  // by root
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferAssignment& b = plan.buffers[i];
    if (b.kind != BufferAssignment::Kind::kIntermediate) continue;
    plan.unshared_bytes += AlignUp(b.bytes);
    const int r = root_of(static_cast<int>(i));
    auto [it, inserted] = slots.try_emplace(r, Slot{b.bytes, b.first_kernel, b.last_kernel});
    if (!inserted) {
      it->second.bytes = std::max(it->second.bytes, b.bytes);
      it->second.first = std::min(it->second.first, b.first_kernel);
      it->second.last = std::max(it->second.last, b.last_kernel);
    }
  }
  // Greedy by size: the largest slots are placed first, each at the lowest offset that no
  // placed slot with an overlapping lifetime occupies.
  std::vector<int> order;
  for (const auto& [r, slot] : slots) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return slots.at(a).bytes != slots.at(b).bytes ? slots.at(a).bytes > slots.at(b).bytes : a < b;
  });
  std::vector<int> placed;
  for (int r : order) {
    Slot& s = slots.at(r);
    std::vector<std::pair<int64_t, int64_t>> taken;  // [offset, end) of overlapping lifetimes
    for (int j : placed) {
      const Slot& o = slots.at(j);
      if (o.first <= s.last && s.first <= o.last) {
        taken.emplace_back(o.offset, o.offset + AlignUp(o.bytes));
      }
    }
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto& [start, end] : taken) {
      if (offset + AlignUp(s.bytes) <= start) break;
      offset = std::max(offset, end);
    }
    s.offset = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + AlignUp(s.bytes));
    placed.push_back(r);
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    BufferAssignment& b = plan.buffers[i];
    if (b.kind == BufferAssignment::Kind::kIntermediate) {
      b.offset = slots.at(root_of(static_cast<int>(i))).offset;
    }
  }
  for (size_t k = 0; k < fusion.kernels.size(); ++k) {
    const int now = static_cast<int>(k);
    int64_t live = 0;
    for (const BufferAssignment& b : plan.buffers) {
      if (b.kind == BufferAssignment::Kind::kArgument ||
          (b.kind == BufferAssignment::Kind::kResult && b.first_kernel <= now)) {
        live += b.bytes;
      }
    }
    for (const auto& [r, slot] : slots) {
      if (slot.first <= now && now <= slot.last) live += slot.bytes;
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
      case BufferAssignment::Kind::kIntermediate: {
        absl::StrAppend(&out, "arena +", b.offset, ", kernels ", b.first_kernel, "..",
                        b.last_kernel);
        auto it = plan.in_place.find(b.value);
        if (it != plan.in_place.end()) absl::StrAppend(&out, ", in place over ", name(it->second));
        break;
      }
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace gpuc::passes
