//===- kernel_spec.cc - What one fused kernel computes, for code generation ===//
#include "codegen/kernel_spec.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/positions.h"
#include "ir/printer.h"
#include "llvm/Support/xxhash.h"

namespace gpuc::codegen {
namespace {

using ir::Node;

bool IsReduction(const Node* n) { return n->info().kind == ir::OpKind::kReduction; }

/// Attributes that only restate the result shape; leaving them out of the key keeps one
/// kernel for every size.
bool ImpliedByShape(const Node& n, const std::string& attr) {
  return ((n.op() == ir::OpCode::kSlice || n.op() == ir::OpCode::kUpdateSlice) && attr == "stop") ||
         (n.op() == ir::OpCode::kPad && attr == "high");
}

class SpecBuilder {
 public:
  SpecBuilder(const ir::FusedKernel& kernel,
              const absl::flat_hash_map<const ir::Node*, const ir::Node*>& in_place,
              int min_index_bits)
      : kernel_(kernel), min_index_bits_(min_index_bits) {
    spec_.in_place = in_place;
  }

  absl::StatusOr<KernelSpec> Build();

 private:
  void AssignSymbols(const ir::Shape& shape) {
    for (int64_t d : shape.dims()) {
      if (d == 1 || spec_.symbol_of.contains(d)) continue;
      spec_.symbol_of[d] = static_cast<int>(spec_.extents.size());
      spec_.extents.push_back(d);
    }
  }
  static const char* OffsetAttribute(const Node& n) { return ir::OffsetAttribute(n); }
  void AssignOffsets(const Node& n) {
    const char* attr = OffsetAttribute(n);
    if (attr == nullptr) return;
    const std::vector<int64_t>& values = *n.attrs().Get<std::vector<int64_t>>(attr);
    for (size_t axis = 0; axis < values.size(); ++axis) {
      if (values[axis] == 0) continue;
      const int symbol = static_cast<int>(spec_.extents.size());
      spec_.offset_symbol[{&n, static_cast<int>(axis)}] = symbol;
      spec_.extents.push_back(values[axis]);
      spec_.offset_positions.push_back({symbol, ir::PositionOf(n, static_cast<int>(axis))});
    }
  }
  // "[0,o3]": the offsets of `n` as the key spells them.
  std::string SymbolicOffsets(const Node& n, const std::vector<int64_t>& values) const {
    std::vector<std::string> parts;
    for (size_t axis = 0; axis < values.size(); ++axis) {
      auto it = spec_.offset_symbol.find({&n, static_cast<int>(axis)});
      parts.push_back(it == spec_.offset_symbol.end() ? "0" : absl::StrCat("o", it->second));
    }
    return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
  }
  std::string SymbolicType(const Node& n) const {
    std::vector<std::string> dims;
    for (int64_t d : spec_.ShapeOf(&n).dims()) {
      dims.push_back(d == 1 ? "1" : absl::StrCat("s", spec_.symbol_of.at(d)));
    }
    return absl::StrCat(ir::DTypeName(n.dtype()), "[", absl::StrJoin(dims, ","), "]");
  }
  void CollapseAxes();
  void PlanPhases();
  bool CheckRowLocal() const;
  bool Expensive(const Node* n) const;
  void FindCarried();
  std::string KeyText() const;

  const ir::FusedKernel& kernel_;
  const int min_index_bits_;
  KernelSpec spec_;
  absl::flat_hash_map<const Node*, int> level_;  // reductions a value waits for, nested
};

void SpecBuilder::CollapseAxes() {
  if (spec_.kind != ir::KernelKind::kLoop || spec_.outputs.empty()) return;
  const ir::Shape& loop = spec_.outputs[0]->shape();
  if (loop.num_elements() == 0) return;
  for (const Node* out : spec_.outputs) {
    if (!(out->shape() == loop)) return;  // several loop shapes: index each in its own
  }
  for (const Node* m : spec_.members) {
    if (m->info().kind != ir::OpKind::kElementwise && m->op() != ir::OpCode::kConstant) return;
  }
  std::vector<const Node*> nodes = spec_.inputs;
  nodes.insert(nodes.end(), spec_.members.begin(), spec_.members.end());
  const int rank = loop.rank();
  // Whether `n` spans axis d of the loop (or broadcasts along it), right-aligned as NumPy.
  auto spans = [&](const Node* n, int d) {
    const int shift = rank - n->shape().rank();
    return d >= shift && n->shape()[d - shift] != 1;
  };
  std::vector<std::vector<int>> groups;  // runs of loop axes that become one
  for (int d = 0; d < rank; ++d) {
    if (loop[d] == 1) continue;  // every shape has 1 there
    bool joins = !groups.empty();
    for (const Node* n : nodes) {
      if (!joins) break;
      joins = spans(n, d) == spans(n, groups.back().back());
    }
    if (joins) {
      groups.back().push_back(d);
    } else {
      groups.push_back({d});
    }
  }
  if (static_cast<int>(groups.size()) == rank) return;  // nothing to collapse
  for (const Node* n : nodes) {
    std::vector<int64_t> dims;
    for (const std::vector<int>& g : groups) {
      int64_t extent = 1;
      if (spans(n, g[0])) {
        for (int d : g) extent *= loop[d];
      }
      dims.push_back(extent);
    }
    spec_.collapsed[n] = ir::Shape(std::move(dims));
  }
}

void SpecBuilder::PlanPhases() {
  int max_level = 0;
  for (const Node* m : spec_.members) {
    int level = 0;
    for (const ir::NodeRef& op : m->operands()) {
      auto it = level_.find(op.get());
      if (it != level_.end()) level = std::max(level, it->second);
    }
    if (IsReduction(m)) ++level;
    level_[m] = level;
    max_level = std::max(max_level, level);
  }
  for (int level = 1; level <= max_level; ++level) {
    Phase phase;
    phase.kind = Phase::Kind::kReduce;
    phase.shape = spec_.reduced_shape;
    for (const Node* m : spec_.members) {
      if (IsReduction(m) && level_.at(m) == level) phase.reductions.push_back(m);
    }
    spec_.phases.push_back(std::move(phase));
  }
  // Stores grouped by shape, in the order the outputs first appear.
  for (const Node* out : spec_.outputs) {
    if (IsReduction(out)) continue;  // written by its reduce phase
    auto same_shape = [&](const Phase& p) {
      return p.kind == Phase::Kind::kStore && p.shape == spec_.ShapeOf(out);
    };
    auto it = std::find_if(spec_.phases.begin(), spec_.phases.end(), same_shape);
    if (it == spec_.phases.end()) {
      Phase phase;
      phase.shape = spec_.ShapeOf(out);
      spec_.phases.push_back(std::move(phase));
      it = spec_.phases.end() - 1;
    }
    it->stores.push_back(out);
  }
}

// See KernelSpec::row_local. Values that depend on a reduction may only travel within their
// row: through elementwise ops and broadcasts between the kept shape (with or without the
// reduced axes as 1s) and the full shape.
bool SpecBuilder::CheckRowLocal() const {
  if (spec_.kind != ir::KernelKind::kRowReduction) return false;
  const ir::Shape& full = spec_.reduced_shape;
  std::vector<int64_t> keep_dims_vector = full.ToVector(), kept_vector;
  for (int64_t a : spec_.reduced_axes) keep_dims_vector[a] = 1;
  for (int i : spec_.KeptAxes()) kept_vector.push_back(full[i]);
  const ir::Shape keep_dims_form(keep_dims_vector), kept(kept_vector);
  auto is_kept_shape = [&](const ir::Shape& s) { return s == kept || s == keep_dims_form; };
  for (const Phase& p : spec_.phases) {
    if (p.kind == Phase::Kind::kStore && !(p.shape == full) && !is_kept_shape(p.shape)) {
      return false;
    }
  }
  for (const Node* m : spec_.members) {
    if (IsReduction(m) || level_.at(m) == 0) continue;
    const bool elementwise =
        m->info().kind == ir::OpKind::kElementwise || m->op() == ir::OpCode::kBroadcastTo;
    if (!elementwise) return false;
    const bool at_full = m->shape() == full;
    if (!at_full && !is_kept_shape(m->shape())) return false;
    for (const ir::NodeRef& op : m->operands()) {
      auto it = level_.find(op.get());
      if (it == level_.end() || it->second == 0) continue;
      const ir::Shape& s = op->shape();
      if (at_full ? !(s == full || s == keep_dims_form) : !(s == m->shape())) return false;
    }
  }
  return true;
}

// Whether `n`'s value, computed from the members under it, calls a math function.
bool SpecBuilder::Expensive(const Node* n) const {
  if (!spec_.member_set.contains(n) || IsReduction(n)) return false;
  if (n->info().cost == ir::CostClass::kExpensive) return true;
  for (const ir::NodeRef& op : n->operands()) {
    if (Expensive(op.get())) return true;
  }
  return false;
}

// See KernelSpec::carried.
void SpecBuilder::FindCarried() {
  if (!spec_.row_local || spec_.phases.empty()) return;
  const Phase& last = spec_.phases.back();
  if (last.kind != Phase::Kind::kStore || !(last.shape == spec_.reduced_shape)) return;
  // The members each reduce phase computes per element: its reductions' operands and what
  // they are computed from (reductions themselves are loaded).
  absl::flat_hash_map<const Node*, int> computed_in;
  std::function<void(const Node*, int)> walk = [&](const Node* n, int phase) {
    if (!spec_.member_set.contains(n) || IsReduction(n)) return;
    if (!computed_in.try_emplace(n, phase).second) return;
    for (const ir::NodeRef& op : n->operands()) walk(op.get(), phase);
  };
  for (int p = 0; p + 1 < static_cast<int>(spec_.phases.size()); ++p) {
    if (spec_.phases[p].kind != Phase::Kind::kReduce) continue;
    for (const Node* r : spec_.phases[p].reductions) walk(&r->operand(0), p);
  }
  absl::flat_hash_set<const Node*> taken;
  for (const Node* out : last.stores) {
    // An output over an input's storage would lose the input the store phase still reads.
    if (spec_.in_place.contains(out)) continue;
    // The shared value nearest the output (breadth first): the most work saved.
    std::vector<const Node*> frontier = {out};
    for (size_t i = 0; i < frontier.size(); ++i) {
      const Node* n = frontier[i];
      auto it = computed_in.find(n);
      if (it != computed_in.end() && n->shape() == spec_.reduced_shape &&
          n->dtype() == out->dtype() && !taken.contains(n) && Expensive(n)) {
        spec_.carried.push_back({n, out, it->second});
        taken.insert(n);
        break;
      }
      if (!spec_.member_set.contains(n) || IsReduction(n)) continue;
      for (const ir::NodeRef& op : n->operands()) frontier.push_back(op.get());
    }
  }
}

std::string SpecBuilder::KeyText() const {
  absl::flat_hash_map<const Node*, std::string> ref;
  std::string text =
      absl::StrCat("kernel ", ir::KernelKindName(spec_.kind), " index", spec_.index_bits);
  if (!spec_.reduced_axes.empty() || spec_.kind != ir::KernelKind::kLoop) {
    absl::StrAppend(&text, " axes=[", absl::StrJoin(spec_.reduced_axes, ","), "]");
  }
  absl::StrAppend(&text, "\n");
  for (size_t i = 0; i < spec_.inputs.size(); ++i) {
    ref[spec_.inputs[i]] = absl::StrCat("in", i);
    absl::StrAppend(&text, "in", i, " : ", SymbolicType(*spec_.inputs[i]), "\n");
  }
  for (size_t i = 0; i < spec_.members.size(); ++i) {
    const Node& n = *spec_.members[i];
    ref[&n] = absl::StrCat("v", i);
    absl::StrAppend(&text, "v", i, " = ", ir::OpName(n.op()));
    for (const ir::NodeRef& op : n.operands()) absl::StrAppend(&text, " ", ref.at(op.get()));
    const char* offsets = OffsetAttribute(n);
    for (const auto& [name, value] : n.attrs().entries()) {
      if (ImpliedByShape(n, name) || name == "positions") continue;
      if (offsets != nullptr && name == offsets) {
        absl::StrAppend(&text, " ", name, "=",
                        SymbolicOffsets(n, std::get<std::vector<int64_t>>(value)));
        continue;
      }
      absl::StrAppend(&text, " ", name, "=", ir::PrintAttrValue(value));
    }
    absl::StrAppend(&text, " : ", SymbolicType(n), "\n");
  }
  auto refs = [&](const std::vector<const Node*>& nodes) {
    std::vector<std::string> out;
    for (const Node* n : nodes) out.push_back(ref.at(n));
    return absl::StrJoin(out, " ");
  };
  absl::StrAppend(&text, "outputs ", refs(spec_.outputs), "\nscratch ", refs(spec_.scratch), "\n");
  for (const Node* out : spec_.outputs) {
    auto it = spec_.in_place.find(out);
    if (it != spec_.in_place.end()) {
      absl::StrAppend(&text, "in place ", ref.at(out), " over ", ref.at(it->second), "\n");
    }
  }
  for (const KernelSpec::Carried& c : spec_.carried) {
    absl::StrAppend(&text, "carried ", ref.at(c.value), " in ", ref.at(c.output), " from phase ",
                    c.phase, "\n");
  }
  return text;
}

absl::StatusOr<KernelSpec> SpecBuilder::Build() {
  spec_.kind = kernel_.kind;
  for (const ir::NodeRef& n : kernel_.nodes) {
    spec_.members.push_back(n.get());
    spec_.member_set.insert(n.get());
  }
  for (const ir::NodeRef& n : kernel_.inputs) spec_.inputs.push_back(n.get());
  for (const ir::NodeRef& n : kernel_.outputs) spec_.outputs.push_back(n.get());
  spec_.reduced_shape = kernel_.reduced_shape;
  spec_.reduced_axes = kernel_.reduced_axes;
  std::sort(spec_.reduced_axes.begin(), spec_.reduced_axes.end());
  absl::flat_hash_set<const Node*> outputs(spec_.outputs.begin(), spec_.outputs.end());
  for (const Node* m : spec_.members) {
    if (IsReduction(m) && !outputs.contains(m)) spec_.scratch.push_back(m);
  }
  int index = 0;
  for (const auto* list : {&spec_.inputs, &spec_.outputs, &spec_.scratch}) {
    for (const Node* n : *list) spec_.buffer_index[n] = index++;
  }
  CollapseAxes();
  for (const Node* n : spec_.inputs) AssignSymbols(spec_.ShapeOf(n));
  for (const Node* n : spec_.members) AssignSymbols(spec_.ShapeOf(n));
  AssignSymbols(spec_.reduced_shape);
  for (const Node* n : spec_.members) AssignOffsets(*n);
  // Positions and the products that form them stay below the largest element count.
  int64_t largest = spec_.reduced_shape.num_elements();
  for (const Node* n : spec_.inputs) largest = std::max(largest, n->shape().num_elements());
  for (const Node* n : spec_.members) largest = std::max(largest, n->shape().num_elements());
  spec_.index_bits = largest < (int64_t{1} << 31) ? 32 : 64;
  spec_.index_bits = std::max(spec_.index_bits, min_index_bits_);
  PlanPhases();
  spec_.row_local = CheckRowLocal();
  FindCarried();
  spec_.key_text = KeyText();
  spec_.name = absl::StrFormat("gpuc_%016x", StableHash(spec_.key_text));
  for (size_t i = 0; i < spec_.phases.size(); ++i) {
    spec_.phases[i].function_name = absl::StrCat(spec_.name, "_phase", i);
  }
  return std::move(spec_);
}

}  // namespace

int KernelSpec::BufferIndex(const ir::Node* node) const { return buffer_index.at(node); }

std::vector<int64_t> KernelSpec::ExtentsFor(absl::Span<const int64_t> positions) const {
  std::vector<int64_t> values = extents;
  if (positions.empty()) return values;
  for (const auto& [symbol, position] : offset_positions) {
    if (position >= 0 && position < static_cast<int64_t>(positions.size())) {
      values[symbol] = positions[position];
    }
  }
  return values;
}

bool KernelSpec::OffsetsArePositions() const {
  for (const auto& [symbol, position] : offset_positions) {
    if (position < 0) return false;
  }
  return true;
}

int64_t KernelSpec::RowScale(const Phase& phase) const {
  if (phase.kind == Phase::Kind::kStore && phase.shape == reduced_shape) {
    int64_t scale = 1;
    for (int64_t a : reduced_axes) scale *= reduced_shape[static_cast<int>(a)];
    return scale;
  }
  return 1;
}

std::vector<int> KernelSpec::KeptAxes() const {
  std::vector<int> kept;
  for (int i = 0; i < reduced_shape.rank(); ++i) {
    if (std::find(reduced_axes.begin(), reduced_axes.end(), i) == reduced_axes.end()) {
      kept.push_back(i);
    }
  }
  return kept;
}

int64_t KernelSpec::RowCount(const Phase& phase) const {
  if (phase.kind == Phase::Kind::kStore) return phase.shape.num_elements();
  int64_t rows = 1;
  for (int i : KeptAxes()) rows *= reduced_shape[i];
  return rows;
}

bool IsCompilable(const ir::FusedKernel& kernel) {
  return kernel.kind != ir::KernelKind::kLibrary && kernel.kind != ir::KernelKind::kScan;
}

absl::StatusOr<KernelSpec> BuildKernelSpec(
    const ir::FusedKernel& kernel,
    const absl::flat_hash_map<const ir::Node*, const ir::Node*>& in_place, int min_index_bits) {
  if (!IsCompilable(kernel)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", ir::KernelKindName(kernel.kind), " kernel is not generated code"));
  }
  return SpecBuilder(kernel, in_place, min_index_bits).Build();
}

uint64_t StableHash(std::string_view text) {
  return llvm::xxh3_64bits(llvm::StringRef(text.data(), text.size()));
}

absl::Status KernelErrorStatus(const KernelSpec& spec, const int64_t* error) {
  if (error[0] == 0) return absl::OkStatus();
  // The interpreter's message for the same mistake (interp::EvalTakeNode).
  const ir::Node& take = *spec.members[error[0] - 1];
  const int axis = static_cast<int>(*take.attrs().Get<int64_t>("axis"));
  std::string message =
      absl::StrCat("take: index ", error[1], " is out of bounds for axis ", axis, " with size ",
                   take.operand(0).shape()[axis], " of ", take.operand(0).type().ToString());
  if (!take.location().empty()) absl::StrAppend(&message, " (recorded at ", take.location(), ")");
  return absl::OutOfRangeError(message);
}

}  // namespace gpuc::codegen
