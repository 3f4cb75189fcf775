//===- host_library_steps.cc - Plan steps without a compiled kernel -------===//
#include "lib/backend/host/host_library_steps.h"
#include "ir/copy_bytes.h"

#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "ir/interpreter.h"
#include "ir/matmul_semantics.h"
#include "ir/positions.h"
#include "lib/backend/host/host_blas.h"
#include "lib/backend/host/host_fft.h"
#include "lib/backend/host/host_linalg.h"
#include "lib/backend/host/host_scan.h"
#include "lib/backend/host/host_sort.h"
#include "lib/backend/host/host_sparse.h"
#include "lib/backend/host/host_superlu.h"
#include "lib/backend/host/strided_view.h"
#include "lib/exec/current_options.h"

namespace gpuc::detail {

namespace {

// Copies `value` into the region of `old`'s storage that update_slice `write` names, and
// returns that storage as the write's result: the bytes moved are the region's.
ir::HostTensor WriteRegionInPlace(const ir::Node& write, const ir::HostTensor& old,
                                  const ir::HostTensor& value) {
  const std::vector<int64_t>& start = *write.attrs().Get<std::vector<int64_t>>("start");
  const std::vector<int64_t>& step = *write.attrs().Get<std::vector<int64_t>>("step");
  const ir::Shape& region = value.shape();
  const int rank = region.rank();
  const int64_t item = ir::DTypeSize(old.dtype());
  std::vector<int64_t> stride(static_cast<size_t>(rank), item);  // bytes, in old's layout
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * old.shape()[d + 1];
  int64_t base = 0;
  for (int d = 0; d < rank; ++d) base += start[d] * stride[d];
  const int64_t count = region.num_elements();
  if (count > 0) {
    // Row by row along the last axis; a contiguous row is one copy.
    const int64_t row = rank == 0 ? 1 : region[rank - 1];
    const bool contiguous_rows = rank == 0 || step[rank - 1] == 1;
    std::vector<int64_t> index(static_cast<size_t>(std::max(rank - 1, 0)), 0);
    const std::byte* from = value.data();
    for (int64_t done = 0; done < count; done += row) {
      int64_t at = base;
      for (int d = 0; d + 1 < rank; ++d) at += index[d] * step[d] * stride[d];
      if (contiguous_rows) {
        ir::CopyBytes(old.data() + at, from, static_cast<size_t>(row * item));
      } else {
        const int64_t jump = step[rank - 1] * stride[rank - 1];
        for (int64_t k = 0; k < row; ++k)
          std::memcpy(old.data() + at + k * jump, from + k * item, item);
      }
      from += row * item;
      for (int d = rank - 2; d >= 0; --d) {
        if (++index[d] < region[d]) break;
        index[d] = 0;
      }
    }
  }
  return old.SharingStorage(write.type());
}

// Library ops and scans run by the interpreter, by op name (InterpretedOpsText).
struct InterpretedOps {
  std::mutex mutex;
  std::map<std::string, int64_t> counts;
};

InterpretedOps& Interpreted() {
  static auto* ops = new InterpretedOps;  // leaked: plans may run from static destructors
  return *ops;
}

// Counts `node` when it is a library op or scan about to run on the interpreter, and says so
// once per op under GPUC_EXPLAIN=1.
void NoteInterpreted(const ir::Node& node) {
  const ir::OpKind kind = node.info().kind;
  if (kind != ir::OpKind::kLibrary && kind != ir::OpKind::kScan) return;
  const std::string name(ir::OpName(node.op()));
  bool first = false;
  {
    InterpretedOps& ops = Interpreted();
    std::lock_guard<std::mutex> lock(ops.mutex);
    first = ops.counts[name]++ == 0;
  }
  if (first && exec::CurrentOptions().explain) {
    std::cerr << "gpuc: explain: " << name << " " << node.type().ToString()
              << (node.location().empty() ? "" : " (recorded at " + node.location() + ")")
              << " runs on the reference interpreter: it has no compiled host implementation "
                 "yet\n";
  }
}

}  // namespace

std::string InterpretedOpsText() {
  InterpretedOps& ops = Interpreted();
  std::lock_guard<std::mutex> lock(ops.mutex);
  std::vector<std::string> parts;
  for (const auto& [name, count] : ops.counts) parts.push_back(absl::StrCat(name, " x", count));
  return absl::StrJoin(parts, ", ");
}

bool InterpretedOffsetsArePositions(const passes::FusedKernel& kernel) {
  for (const ir::NodeRef& m : kernel.nodes) {
    const char* attr = ir::OffsetAttribute(*m);
    if (attr == nullptr) continue;
    const std::vector<int64_t>& offsets = *m->attrs().Get<std::vector<int64_t>>(attr);
    for (size_t axis = 0; axis < offsets.size(); ++axis) {
      if (offsets[axis] != 0 && ir::PositionOf(*m, static_cast<int>(axis)) < 0) return false;
    }
  }
  return true;
}

absl::Status InterpretFusedKernel(const passes::FusedKernel& kernel,
                                  PlanValues<ir::HostTensor>& values,
                                  absl::Span<const int64_t> positions) {
  // A lone region write in place (a loop's `u(Slice(1, -1)) = ...`): a copy, without the
  // view machinery below, which costs more than the copy of a small region.
  if (kernel.nodes.size() == 1 && kernel.nodes[0]->op() == ir::OpCode::kUpdateSlice &&
      ir::IsInPlaceWrite(*kernel.nodes[0]) && kernel.outputs.size() == 1 &&
      kernel.outputs[0] == kernel.nodes[0]) {
    const ir::NodeRef& planned = kernel.nodes[0];
    const ir::NodeRef m = ir::PlacedAt(planned, positions);
    ir::HostTensor written =
        WriteRegionInPlace(*m, values.at(&planned->operand(0)), values.at(&planned->operand(1)));
    values[planned.get()] = std::move(written);
    return absl::OkStatus();
  }
  // Node-based: a member's operands are pointers into it while views are copied into it.
  absl::node_hash_map<const ir::Node*, ir::HostTensor> local;
  // A library step's views (fusion.h's library_reads_views) are not computed where they
  // stand: the matmul reading them takes them as strided operands, and anything else that
  // reads one copies it then.
  absl::flat_hash_map<const ir::Node*, ir::NodeRef> deferred;  // planned -> placed
  std::function<absl::StatusOr<StridedView>(const ir::Node*)> view_of;
  std::function<absl::StatusOr<const ir::HostTensor*>(const ir::Node*)> value_of;
  view_of = [&](const ir::Node* n) -> absl::StatusOr<StridedView> {
    auto it = deferred.find(n);
    if (it == deferred.end()) {
      absl::StatusOr<const ir::HostTensor*> v = value_of(n);
      if (!v.ok()) return v.status();
      return StridedView::Whole(**v);
    }
    absl::StatusOr<StridedView> of = view_of(it->second->operands()[0].get());
    if (!of.ok()) return of.status();
    std::optional<StridedView> view = ApplyView(*it->second, *of);
    if (view) return *std::move(view);
    // Not expressible in strides: copy what it views, then view the copy.
    absl::StatusOr<const ir::HostTensor*> v = value_of(n);
    if (!v.ok()) return v.status();
    return StridedView::Whole(**v);
  };
  value_of = [&](const ir::Node* n) -> absl::StatusOr<const ir::HostTensor*> {
    if (auto it = local.find(n); it != local.end()) return &it->second;
    auto it = deferred.find(n);
    if (it == deferred.end()) return &values.at(n);
    const ir::NodeRef placed = it->second;
    absl::StatusOr<StridedView> of = view_of(placed->operands()[0].get());
    if (!of.ok()) return of.status();
    std::optional<StridedView> view = ApplyView(*placed, *of);
    absl::StatusOr<ir::HostTensor> value;
    if (view) {
      value = Materialize(*view);
      if (value.ok()) value = value->SharingStorage(placed->type());  // the node's shape
    } else {
      const ir::HostTensor whole = Materialize(*of);
      value = ir::InterpretNode(*placed, {&whole});
    }
    if (!value.ok()) return value.status();
    deferred.erase(n);
    return &(local[n] = *std::move(value));
  };
  const bool views_deferred = kernel.kind == passes::KernelKind::kLibrary;
  for (const ir::NodeRef& planned : kernel.nodes) {
    // The member as this run's positions place it (its operands stay the planned nodes).
    const ir::NodeRef m = ir::PlacedAt(planned, positions);
    if (views_deferred && ir::IsStridedViewOp(*m)) {
      deferred.emplace(planned.get(), m);
      continue;
    }
    if (HostBlasHandles(*m) && m->op() == ir::OpCode::kMatmul) {
      absl::StatusOr<StridedView> a = view_of(m->operands()[0].get());
      if (!a.ok()) return a.status();
      absl::StatusOr<StridedView> b = view_of(m->operands()[1].get());
      if (!b.ok()) return b.status();
      absl::StatusOr<std::optional<ir::HostTensor>> product = HostMatmulOfViews(*m, *a, *b);
      if (!product.ok()) return product.status();
      if (*product) {
        local[planned.get()] = **std::move(product);
        continue;
      }
    }
    std::vector<const ir::HostTensor*> operands;
    for (const ir::NodeRef& op : m->operands()) {
      absl::StatusOr<const ir::HostTensor*> v = value_of(op.get());
      if (!v.ok()) return v.status();
      operands.push_back(*v);
    }
    // GEMMs through the CPU BLAS, FFTs in O(n log n), CSR products as a typed loop; everything
    // else (and matmuls and products of other dtypes) through the interpreter's definitions.
    absl::StatusOr<ir::HostTensor> value =
        ir::IsInPlaceWrite(*m) && m->op() == ir::OpCode::kUpdateSlice
            ? WriteRegionInPlace(*m, *operands[0], *operands[1])
        : HostBlasHandles(*m)         ? HostMatmul(*m, *operands[0], *operands[1])
        : m->op() == ir::OpCode::kFft ? HostFft(*m, *operands[0])
        : m->op() == ir::OpCode::kMatmulBias
            ? HostMatmulBias(*m, *operands[0], *operands[1], *operands[2])
        : HostSparseHandles(*m) ? HostSpmv(*m, operands)
        : m->op() == ir::OpCode::kLinalg
            ? HostLinalg(*m, *operands[0], operands.size() > 1 ? operands[1] : nullptr)
        : m->op() == ir::OpCode::kSpsolve ? HostSpsolve(*m, operands)
        : IsSortNode(*m)      ? absl::StatusOr<ir::HostTensor>(HostSort(*m, *operands[0]))
        : HostScanHandles(*m) ? absl::StatusOr<ir::HostTensor>(HostScan(*m, *operands[0]))
                              : (NoteInterpreted(*m), ir::InterpretNode(*m, operands));
    if (!value.ok()) return value.status();
    local[planned.get()] = *std::move(value);
  }
  for (const ir::NodeRef& out : kernel.outputs) {
    if (deferred.contains(out.get())) {
      absl::StatusOr<const ir::HostTensor*> v = value_of(out.get());
      if (!v.ok()) return v.status();
    }
  }
  for (const ir::NodeRef& out : kernel.outputs) values[out.get()] = local.at(out.get());
  return absl::OkStatus();
}

}  // namespace gpuc::detail
