//===- fusion.cc - Cutting a graph into fused kernels ---------------------===//
//
// Consumer-driven greedy grouping, as XLA's instruction fusion: nodes are visited from the
// results backwards, so when a node is visited every user already sits in a kernel, and the
// node joins the kernel of its users when it may (legality) and should (profitability).
//
//===----------------------------------------------------------------------===//
#include "passes/fusion.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "ir/matmul_semantics.h"
#include "ir/printer.h"
#include "ir/value_names.h"

namespace gpuc::passes {

namespace {

using ir::Node;
using ir::NodeRef;

int64_t Elements(const Node& n) { return n.shape().num_elements(); }

// Whether `axes` (sorted) are the last axes of a rank-`rank` shape.
bool AreTrailing(const std::vector<int64_t>& axes, int rank) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[axes.size() - 1 - i] != rank - 1 - static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> ReducedAxes(const Node& reduction) {
  const std::vector<int64_t>* axes = reduction.attrs().Get<std::vector<int64_t>>("axes");
  return axes ? *axes : std::vector<int64_t>{};
}

struct Group {
  bool alive = true;
  std::optional<KernelKind> fixed;  // library ops and scans: a kernel of one node
  std::vector<const Node*> members;
  absl::flat_hash_set<const Node*> member_set;
  // How often each element of a member is computed per kernel run (1 unless a broadcast
  // makes the kernel recompute it).
  absl::flat_hash_map<const Node*, double> recompute;
  // The reduction signature shared by the kernel's reductions.
  int reductions = 0;
  ir::Shape reduced_shape;
  std::vector<int64_t> reduced_axes;
};

class FusionPlanner {
 public:
  FusionPlanner(const ir::Graph& graph, const FusionBudgets& budgets)
      : graph_(graph), budgets_(budgets), uses_(graph), names_(graph) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) index_[graph.nodes[i].get()] = i;
    for (const NodeRef& r : graph.results) results_.insert(r.get());
  }

  FusionPlan Run();

 private:
  std::string Name(const Node* n) const { return absl::StrCat("%", names_.NameOf(n)); }
  // A placeholder for a kernel's final number, filled in once kernels are ordered.
  static std::string Kernel(int group) { return absl::StrCat("\x01", group, "\x02"); }
  void Decide(std::string text) { decisions_.push_back(std::move(text)); }

  int NewGroup(std::optional<KernelKind> fixed = std::nullopt) {
    groups_.emplace_back();
    groups_.back().fixed = fixed;
    return static_cast<int>(groups_.size()) - 1;
  }
  void Add(int g, const Node* n, double recompute);
  double RecomputeFactor(const Group& g, const Node* n) const;
  bool CanJoin(const Node* n, int g, std::string* why) const;
  bool TryMerge(const std::vector<int>& groups, std::string* why);
  bool ReadBackViolation(const std::vector<const Node*>& members, const Node* extra,
                         const std::vector<int64_t>& axes, const ir::Shape& shape,
                         std::string* why) const;
  int CountArrays(const absl::flat_hash_set<const Node*>& members,
                  const std::vector<int>& forming) const;
  bool NeedsStore(const Node* m, const absl::flat_hash_set<const Node*>& members,
                  const std::vector<int>& forming) const;
  std::vector<int> GroupsOfUsers(const Node* n) const;
  std::optional<int> LibraryReadingView(const Node* n) const;

  const ir::Graph& graph_;
  const FusionBudgets& budgets_;
  ir::UseLists uses_;
  ir::ValueNames names_;
  absl::flat_hash_map<const Node*, size_t> index_;
  absl::flat_hash_set<const Node*> results_;
  std::vector<Group> groups_;
  absl::flat_hash_map<const Node*, std::vector<int>> groups_of_;
  std::vector<int> merged_into_;  // group -> the group it was merged into, or itself
  std::vector<std::string> decisions_;
};

void FusionPlanner::Add(int g, const Node* n, double recompute) {
  Group& group = groups_[g];
  if (!group.member_set.insert(n).second) return;
  group.members.push_back(n);
  group.recompute[n] = recompute;
  groups_of_[n].push_back(g);
  if (n->info().kind == ir::OpKind::kReduction) {
    if (group.reductions++ == 0) {
      group.reduced_shape = n->operand(0).shape();
      group.reduced_axes = ReducedAxes(*n);
    }
  }
}

std::vector<int> FusionPlanner::GroupsOfUsers(const Node* n) const {
  std::vector<int> out;
  for (const Node* user : uses_.UsersOf(n)) {
    auto it = groups_of_.find(user);
    if (it == groups_of_.end()) continue;
    for (int g : it->second) {
      if (groups_[g].alive && std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The matmul library step that reads view `n` (and is its only reader), where the step takes
// its operands' views in place (FusionBudgets::library_reads_views).
std::optional<int> FusionPlanner::LibraryReadingView(const Node* n) const {
  if (!budgets_.library_reads_views || results_.contains(n) || !ir::IsStridedViewOp(*n)) {
    return std::nullopt;
  }
  const std::vector<int> gs = GroupsOfUsers(n);
  if (gs.size() != 1) return std::nullopt;
  const Group& g = groups_[gs[0]];
  if (g.fixed != KernelKind::kLibrary) return std::nullopt;
  for (const Node* user : uses_.UsersOf(n)) {
    if (!g.member_set.contains(user)) return std::nullopt;
  }
  for (const Node* m : g.members) {
    if (m->op() != ir::OpCode::kMatmul) continue;
    switch (m->dtype()) {
      case ir::DType::kFloat32:
      case ir::DType::kFloat64:
      case ir::DType::kComplex64:
      case ir::DType::kComplex128:
        return gs[0];
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

// Each element of `n` is read this many times per kernel run by its users in `g`: a user
// computed f times per element that reads n through a broadcast of ratio r reads it f * r.
// In a row-reduction kernel a per-row value is computed once per row and kept, so reading it
// back across the row costs nothing extra.
double FusionPlanner::RecomputeFactor(const Group& g, const Node* n) const {
  double factor = 1;
  // The kernel's reduction signature, or the one `n` would give it.
  const bool has_signature = g.reductions > 0 || n->info().kind == ir::OpKind::kReduction;
  const ir::Shape shape = g.reductions > 0 ? g.reduced_shape
                          : has_signature  ? n->operand(0).shape()
                                           : ir::Shape();
  const std::vector<int64_t> axes = g.reductions > 0 ? g.reduced_axes
                                    : has_signature  ? ReducedAxes(*n)
                                                     : std::vector<int64_t>{};
  const bool row_kernel = has_signature && AreTrailing(axes, shape.rank());
  int64_t row_count = 1;
  if (row_kernel) {
    for (int i = 0; i < shape.rank() - static_cast<int>(axes.size()); ++i) row_count *= shape[i];
  }
  for (const Node* user : uses_.UsersOf(n)) {
    if (!g.member_set.contains(user)) continue;
    const int64_t read =
        user->info().kind == ir::OpKind::kReduction ? Elements(user->operand(0)) : Elements(*user);
    double ratio = Elements(*n) > 0 ? static_cast<double>(read) / Elements(*n) : 1;
    if (row_kernel && Elements(*n) == row_count) ratio = 1;
    factor = std::max(factor, g.recompute.at(user) * std::max(1.0, ratio));
  }
  return factor;
}

// A value that depends on a reduction of the kernel and is read at more elements than the
// reduction produces needs the whole reduction first. That is legal when the reduced axes are
// trailing: the code that finishes a row reads it back. Otherwise it would need a barrier
// across every thread of the kernel.
bool FusionPlanner::ReadBackViolation(const std::vector<const Node*>& members, const Node* extra,
                                      const std::vector<int64_t>& axes, const ir::Shape& shape,
                                      std::string* why) const {
  if (AreTrailing(axes, shape.rank()) && static_cast<int>(axes.size()) < shape.rank()) {
    return false;
  }
  std::vector<const Node*> sorted = members;
  if (extra) sorted.push_back(extra);
  std::sort(sorted.begin(), sorted.end(),
            [&](const Node* a, const Node* b) { return index_.at(a) < index_.at(b); });
  absl::flat_hash_set<const Node*> in(sorted.begin(), sorted.end());
  absl::flat_hash_map<const Node*, int64_t> reduced_elements;  // depends on a reduction
  for (const Node* m : sorted) {
    int64_t dep = -1;
    if (m->info().kind == ir::OpKind::kReduction) dep = Elements(*m);
    for (const NodeRef& op : m->operands()) {
      auto it = reduced_elements.find(op.get());
      if (!in.contains(op.get()) || it == reduced_elements.end()) continue;
      if (Elements(*m) > it->second && m->info().kind != ir::OpKind::kReduction) {
        *why = absl::StrCat(Name(m), " reads ", Name(op.get()),
                            ", which depends on a reduction over axes [", absl::StrJoin(axes, ", "),
                            "] of ", shape.ToString(), ", back at ", m->type().ToString(),
                            ": the reduction must finish everywhere first (a barrier across the "
                            "kernel), and only trailing-axis reductions finish per row");
        return true;
      }
      dep = std::max(dep, it->second);
    }
    if (dep >= 0) reduced_elements[m] = dep;
  }
  return false;
}

// Whether a kernel made of `members` (the groups `forming`, plus what joins them) must write
// `m` out: it is a result, or another kernel that does not compute `m` itself reads it. A
// cheap node recomputed in every kernel that reads it is never stored.
bool FusionPlanner::NeedsStore(const Node* m, const absl::flat_hash_set<const Node*>& members,
                               const std::vector<int>& forming) const {
  if (results_.contains(m)) return true;
  for (const Node* user : uses_.UsersOf(m)) {
    auto it = groups_of_.find(user);
    if (it == groups_of_.end()) {
      if (!members.contains(user)) return true;
      continue;
    }
    for (int h : it->second) {
      if (!groups_[h].alive || groups_[h].member_set.contains(m)) continue;
      if (std::find(forming.begin(), forming.end(), h) != forming.end()) continue;
      return true;
    }
  }
  return false;
}

int FusionPlanner::CountArrays(const absl::flat_hash_set<const Node*>& members,
                               const std::vector<int>& forming) const {
  absl::flat_hash_set<const Node*> inputs;
  int outputs = 0;
  for (const Node* m : members) {
    for (const NodeRef& op : m->operands()) {
      if (!members.contains(op.get()) && op->op() != ir::OpCode::kConstant) inputs.insert(op.get());
    }
    outputs += NeedsStore(m, members, forming) ? 1 : 0;
  }
  return static_cast<int>(inputs.size()) + outputs;
}

/// What a library call absorbed and why the code around it is not in it, for
/// --explain-fusion.
/// `a` and `b` name the node's first and last operands.
std::string LibraryCallNote(const Node& n, const std::string& a, const std::string& b) {
  switch (n.op()) {
    case ir::OpCode::kMatmul: {
      const ir::MatmulTransposes t = ir::TransposesOf(n);
      std::string absorbed;
      if (t.a || t.b) {
        absorbed = absl::StrCat(
            "; it absorbed the transpose of ",
            t.a && t.b ? absl::StrCat(a, " and ", b)
            : t.a      ? a
                       : b,
            t.a && t.b ? " as the BLAS's transpose flags" : " as the BLAS's transpose flag");
      }
      return absl::StrCat(absorbed,
                          "; the elementwise code around it fuses into the kernels before and "
                          "after it (the GEMM runs without an epilogue)");
    }
    case ir::OpCode::kMatmulBias: {
      const bool relu = ir::AppliesRelu(n);
      return absl::StrCat("; it absorbed the bias ", b, relu ? " and the ReLU" : "",
                          " as its cuBLASLt epilogue (what else reads it fuses into the kernels "
                          "after it)");
    }
    case ir::OpCode::kFft:
      return "; the norm's scale and the code around it fuse into the kernels before and after "
             "it (cuFFT runs without load or store callbacks)";
    default:
      return "";
  }
}

bool FusionPlanner::CanJoin(const Node* n, int g, std::string* why) const {
  const Group& group = groups_[g];
  if (group.fixed) {
    *why = absl::StrCat("its user ", Name(group.members[0]), " is a ",
                        *group.fixed == KernelKind::kLibrary ? "library call" : "scan",
                        ", a kernel of its own");
    return false;
  }
  if (static_cast<int>(group.members.size()) + 1 > budgets_.max_nodes) {
    *why = absl::StrCat("kernel ", Kernel(g), " is at the size budget (", budgets_.max_nodes,
                        " nodes)");
    return false;
  }
  if (n->info().kind == ir::OpKind::kReduction) {
    const ir::Shape& shape = n->operand(0).shape();
    const std::vector<int64_t> axes = ReducedAxes(*n);
    if (group.reductions > 0 && (!(shape == group.reduced_shape) || axes != group.reduced_axes)) {
      *why = absl::StrCat("it reduces axes [", absl::StrJoin(axes, ", "), "] of ", shape.ToString(),
                          " and kernel ", Kernel(g), " reduces axes [",
                          absl::StrJoin(group.reduced_axes, ", "), "] of ",
                          group.reduced_shape.ToString(), ": they iterate differently");
      return false;
    }
    if (group.reductions + 1 > budgets_.max_reductions) {
      *why = absl::StrCat("kernel ", Kernel(g), " is at the reduction budget (",
                          budgets_.max_reductions, ")");
      return false;
    }
    if (ReadBackViolation(group.members, n, axes, shape, why)) return false;
  } else {
    const double factor = RecomputeFactor(group, n);
    const RecomputeCost cost = CompareRecompute(*n, factor, budgets_.cost_model);
    if (factor > 1 && !cost.recompute_wins()) {
      *why = absl::StrCat(
          "kernel ", Kernel(g), " would compute each element of it (", n->info().name, ") ", factor,
          " times through a broadcast: ", cost.ToString(), "; materialized instead");
      return false;
    }
  }
  absl::flat_hash_set<const Node*> joined = group.member_set;
  joined.insert(n);
  if (int arrays = CountArrays(joined, {g}); arrays > budgets_.max_kernel_arrays) {
    *why = absl::StrCat("kernel ", Kernel(g), " would read and write ", arrays,
                        " arrays, past the parameter budget of ", budgets_.max_kernel_arrays);
    return false;
  }
  return true;
}

bool FusionPlanner::TryMerge(const std::vector<int>& gs, std::string* why) {
  absl::flat_hash_set<const Node*> merged;
  const Group* with_reduction = nullptr;
  size_t size = 0;
  for (int g : gs) {
    const Group& group = groups_[g];
    if (group.fixed) {
      *why = absl::StrCat("kernel ", Kernel(g), " is a ",
                          *group.fixed == KernelKind::kLibrary ? "library call" : "scan");
      return false;
    }
    size += group.members.size();
    merged.insert(group.members.begin(), group.members.end());
    if (group.reductions == 0) continue;
    if (with_reduction && (!(with_reduction->reduced_shape == group.reduced_shape) ||
                           with_reduction->reduced_axes != group.reduced_axes)) {
      *why = absl::StrCat("their reductions iterate differently (axes [",
                          absl::StrJoin(with_reduction->reduced_axes, ", "), "] of ",
                          with_reduction->reduced_shape.ToString(), " and axes [",
                          absl::StrJoin(group.reduced_axes, ", "), "] of ",
                          group.reduced_shape.ToString(), ")");
      return false;
    }
    with_reduction = &group;
  }
  if (static_cast<int>(size) > budgets_.max_nodes) {
    *why = absl::StrCat("together they pass the size budget (", budgets_.max_nodes, " nodes)");
    return false;
  }
  int reductions = 0;
  for (int g : gs) reductions += groups_[g].reductions;
  if (reductions > budgets_.max_reductions) {
    *why = absl::StrCat("together they pass the reduction budget (", budgets_.max_reductions, ")");
    return false;
  }
  // A path from the merged set out and back in would make the merged kernel depend on itself.
  // Kernels run as units, so the path goes through whole kernels: reaching one member of
  // another kernel reaches all of its members (each waits for all of that kernel's inputs).
  std::vector<const Node*> stack;
  absl::flat_hash_set<const Node*> seen;
  auto reach = [&](const Node* n) {
    if (!seen.insert(n).second) return;
    stack.push_back(n);
    auto it = groups_of_.find(n);
    if (it == groups_of_.end()) return;
    for (int h : it->second) {
      if (!groups_[h].alive) continue;
      for (const Node* m : groups_[h].members) {
        if (!merged.contains(m) && seen.insert(m).second) stack.push_back(m);
      }
    }
  };
  for (const Node* m : merged) {
    for (const Node* user : uses_.UsersOf(m)) {
      if (!merged.contains(user)) reach(user);
    }
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Node* user : uses_.UsersOf(n)) {
      if (merged.contains(user)) {
        *why = absl::StrCat("one depends on the other through ", Name(n),
                            ", outside both (merging would make a cycle)");
        return false;
      }
      reach(user);
    }
  }
  // Merging may put an expensive node in one kernel with a user that broadcasts it.
  {
    Group probe;
    probe.member_set = merged;
    if (with_reduction) {
      probe.reductions = 1;
      probe.reduced_shape = with_reduction->reduced_shape;
      probe.reduced_axes = with_reduction->reduced_axes;
    }
    std::vector<const Node*> order(merged.begin(), merged.end());
    std::sort(order.begin(), order.end(),
              [&](const Node* a, const Node* b) { return index_.at(a) > index_.at(b); });
    for (const Node* m : order) {
      const double factor = RecomputeFactor(probe, m);
      probe.recompute[m] = factor;
      const RecomputeCost cost = CompareRecompute(*m, factor, budgets_.cost_model);
      if (factor > 1 && !cost.recompute_wins()) {
        *why = absl::StrCat("together they would compute ", Name(m), " (", m->info().name, ") ",
                            factor, " times per element through a broadcast: ", cost.ToString());
        return false;
      }
    }
  }
  if (with_reduction) {
    std::vector<const Node*> members(merged.begin(), merged.end());
    if (ReadBackViolation(members, nullptr, with_reduction->reduced_axes,
                          with_reduction->reduced_shape, why)) {
      return false;
    }
  }
  if (int arrays = CountArrays(merged, gs); arrays > budgets_.max_kernel_arrays) {
    *why = absl::StrCat("together they would read and write ", arrays,
                        " arrays, past the parameter budget of ", budgets_.max_kernel_arrays);
    return false;
  }
  // Merge into the first; the others die.
  const int into = gs[0];
  for (size_t i = 1; i < gs.size(); ++i) {
    Group& from = groups_[gs[i]];
    for (const Node* m : from.members) {
      std::vector<int>& of = groups_of_[m];
      of.erase(std::remove(of.begin(), of.end(), gs[i]), of.end());
      Add(into, m, from.recompute.at(m));
    }
    from.alive = false;
    merged_into_.resize(groups_.size(), -1);
    merged_into_[gs[i]] = into;
  }
  return true;
}

FusionPlan FusionPlanner::Run() {
  for (auto it = graph_.nodes.rbegin(); it != graph_.nodes.rend(); ++it) {
    const Node* n = it->get();
    const ir::OpKind kind = n->info().kind;
    if (ir::IsInPlaceWrite(*n)) {
      // Its region goes into the old value's storage; nothing fuses into it, or the rest
      // of the array would be written too.
      const int g = NewGroup(KernelKind::kLibrary);
      Add(g, n, 1);
      Decide(absl::StrCat("kernel ", Kernel(g), ": ", Name(n), " writes its region in place over ",
                          Name(n->operands()[0].get()), ", a kernel boundary"));
      continue;
    }
    if (kind == ir::OpKind::kLibrary || kind == ir::OpKind::kScan) {
      const int g =
          NewGroup(kind == ir::OpKind::kLibrary ? KernelKind::kLibrary : KernelKind::kScan);
      Add(g, n, 1);
      Decide(absl::StrCat(
          "kernel ", Kernel(g), ": ", Name(n), " (", n->info().name, ") is a ",
          kind == ir::OpKind::kLibrary ? "library call" : "scan", ", a kernel boundary",
          LibraryCallNote(*n, Name(n->operands()[0].get()), Name(n->operands().back().get()))));
      continue;
    }
    if (const std::optional<int> g = LibraryReadingView(n)) {
      Add(*g, n, 1);
      Decide(absl::StrCat("fused ", Name(n), " (", n->info().name, ") into kernel ", Kernel(*g),
                          ": the library call reads the view where it lies, not a copy"));
      continue;
    }
    std::vector<int> user_groups = GroupsOfUsers(n);
    if (user_groups.empty()) {
      const int g = NewGroup();
      Add(g, n, 1);
      Decide(absl::StrCat("kernel ", Kernel(g), ": starts at ", Name(n),
                          results_.contains(n) ? " (a result)" : ""));
      continue;
    }
    std::string why;
    int target = user_groups[0];
    if (user_groups.size() > 1) {
      std::vector<std::string> listed;
      for (int g : user_groups) listed.push_back(Kernel(g));
      const std::string kernels = absl::StrJoin(listed, ", ");
      if (TryMerge(user_groups, &why)) {
        Decide(absl::StrCat("merged kernels ", kernels, " into kernel ", Kernel(target),
                            ": siblings sharing ", Name(n), " (one multi-output kernel)"));
      } else {
        // Recomputed in every kernel that reads it, or written out once: the cost model
        // decides (a reduction is never recomputed: it is not elementwise work).
        double copies = 0;
        for (int g : user_groups) copies += RecomputeFactor(groups_[g], n);
        const RecomputeCost cost = CompareRecompute(*n, copies, budgets_.cost_model);
        bool everywhere = cost.recompute_wins() && kind != ir::OpKind::kReduction;
        std::string join_why;
        for (int g : user_groups) everywhere = everywhere && CanJoin(n, g, &join_why);
        if (everywhere) {
          for (int g : user_groups) Add(g, n, RecomputeFactor(groups_[g], n));
          Decide(absl::StrCat("recomputed ", Name(n), " (", n->info().name, ") in kernels ",
                              kernels, ": they cannot merge (", why, "), and ", cost.ToString()));
        } else {
          const int g = NewGroup();
          Add(g, n, 1);
          Decide(absl::StrCat("kernel ", Kernel(g), ": ", Name(n), " (", n->info().name,
                              ") materialized: its users are in kernels ", kernels,
                              ", which cannot merge (", why, "), and it is ",
                              !cost.recompute_wins() || kind == ir::OpKind::kReduction
                                  ? absl::StrCat("too costly to recompute (", cost.ToString(), ")")
                                  : "not fusible into all of them"));
        }
        continue;
      }
    }
    if (CanJoin(n, target, &why)) {
      Add(target, n, RecomputeFactor(groups_[target], n));
      Decide(absl::StrCat("fused ", Name(n), " into kernel ", Kernel(target)));
    } else {
      const int g = NewGroup();
      Add(g, n, 1);
      Decide(absl::StrCat("kernel ", Kernel(g), ": ", Name(n), " not fused into kernel ",
                          Kernel(target), ": ", why));
    }
  }

  // Order the kernels: each after the kernels whose outputs it reads, ties by graph order.
  std::vector<int> alive;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].alive) continue;
    std::sort(groups_[g].members.begin(), groups_[g].members.end(),
              [&](const Node* a, const Node* b) { return index_.at(a) < index_.at(b); });
    alive.push_back(static_cast<int>(g));
  }
  absl::flat_hash_map<int, absl::flat_hash_set<int>> depends;
  for (int g : alive) {
    for (const Node* m : groups_[g].members) {
      for (const NodeRef& op : m->operands()) {
        if (groups_[g].member_set.contains(op.get())) continue;
        auto it = groups_of_.find(op.get());
        if (it == groups_of_.end()) continue;
        for (int h : it->second) {
          if (groups_[h].alive && h != g) depends[g].insert(h);
        }
      }
    }
  }
  // A kernel's place in graph order: its first member that is not a constant (constants are
  // recomputed wherever they are read, so they say nothing about order).
  // Ties (kernels that recompute the same producer) go by their last member.
  absl::flat_hash_map<int, std::pair<size_t, size_t>> position;
  for (int g : alive) {
    size_t first = graph_.nodes.size();
    for (const Node* m : groups_[g].members) {
      if (m->op() != ir::OpCode::kConstant) first = std::min(first, index_.at(m));
    }
    const size_t last = index_.at(groups_[g].members.back());
    position[g] = {first == graph_.nodes.size() ? index_.at(groups_[g].members[0]) : first, last};
  }
  std::vector<int> order;
  absl::flat_hash_set<int> placed;
  while (order.size() < alive.size()) {
    int best = -1;
    for (int g : alive) {
      if (placed.contains(g)) continue;
      bool ready = true;
      for (int h : depends[g]) ready = ready && placed.contains(h);
      if (ready && (best < 0 || position[g] < position[best])) {
        best = g;
      }
    }
    if (best < 0) {
      // Merges refuse cycles, so this is a fusion bug; say which groups wait on each other
      // rather than emitting a plan that runs a kernel before its inputs exist.
      std::string message = "internal error in fusion: kernels depend on each other in a cycle:";
      for (int g : alive) {
        if (placed.contains(g)) continue;
        absl::StrAppend(&message, "\n  group ", g, ":");
        for (const Node* m : groups_[g].members) absl::StrAppend(&message, " ", Name(m));
        absl::StrAppend(&message, " (waits on");
        for (int h : depends[g]) absl::StrAppend(&message, " ", h);
        absl::StrAppend(&message, ")");
      }
      throw std::logic_error(message);
    }
    placed.insert(best);
    order.push_back(best);
  }

  FusionPlan plan;
  absl::flat_hash_map<int, int> number;
  for (int g : order) {
    const Group& group = groups_[g];
    number[g] = static_cast<int>(plan.kernels.size());
    FusedKernel kernel;
    absl::flat_hash_set<const Node*> inputs_seen;
    for (const Node* m : group.members) {
      kernel.nodes.push_back(graph_.nodes[index_.at(m)]);
      for (const NodeRef& op : m->operands()) {
        if (!group.member_set.contains(op.get()) && inputs_seen.insert(op.get()).second) {
          kernel.inputs.push_back(op);
        }
      }
      if (NeedsStore(m, group.member_set, {g}))
        kernel.outputs.push_back(graph_.nodes[index_.at(m)]);
    }
    if (group.fixed) {
      kernel.kind = *group.fixed;
    } else if (group.reductions > 0) {
      kernel.reduced_shape = group.reduced_shape;
      kernel.reduced_axes = group.reduced_axes;
      const int rank = group.reduced_shape.rank();
      kernel.kind = static_cast<int>(group.reduced_axes.size()) == rank ? KernelKind::kFullReduction
                    : AreTrailing(group.reduced_axes, rank)             ? KernelKind::kRowReduction
                                                            : KernelKind::kColumnReduction;
    }
    plan.kernels.push_back(std::move(kernel));
  }
  auto final_number = [&](int g) {
    while (!groups_[g].alive) g = merged_into_[g];
    return number[g];
  };
  for (std::string& d : decisions_) {
    std::string out;
    for (size_t i = 0; i < d.size(); ++i) {
      if (d[i] != '\x01') {
        out += d[i];
        continue;
      }
      const size_t end = d.find('\x02', i);
      out += absl::StrCat(final_number(std::stoi(d.substr(i + 1, end - i - 1))));
      i = end;
    }
    plan.decisions.push_back(std::move(out));
  }
  return plan;
}

}  // namespace

FusionPlan PlanFusion(const ir::Graph& graph, const FusionBudgets& budgets) {
  return FusionPlanner(graph, budgets).Run();
}

std::string PrintFusionPlan(const ir::Graph& graph, const FusionPlan& plan) {
  ir::ValueNames names(graph);
  auto name = [&](const NodeRef& n) { return absl::StrCat("%", names.NameOf(n.get())); };
  auto list = [&](const std::vector<NodeRef>& nodes) {
    std::vector<std::string> out;
    for (const NodeRef& n : nodes) out.push_back(name(n));
    return absl::StrJoin(out, ", ");
  };
  std::string out = absl::StrCat("// ", plan.kernels.size(), " kernel",
                                 plan.kernels.size() == 1 ? "" : "s", "\nfunc @", graph.name, "(");
  for (size_t i = 0; i < graph.params.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", name(graph.params[i]), ": ",
                    graph.params[i]->type().ToString());
  }
  out += ") {\n";
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const FusedKernel& kernel = plan.kernels[k];
    absl::StrAppend(&out, "  kernel ", k, " ", KernelKindName(kernel.kind));
    if (!kernel.reduced_axes.empty()) {
      absl::StrAppend(&out, " axes [", absl::StrJoin(kernel.reduced_axes, ", "), "] of ",
                      kernel.reduced_shape.ToString());
    }
    absl::StrAppend(&out, " (", list(kernel.inputs), ") -> (", list(kernel.outputs), ") {\n");
    for (const NodeRef& n : kernel.nodes) {
      absl::StrAppend(&out, "    ", ir::PrintNode(*n, names), "\n");
    }
    out += "  }\n";
  }
  absl::StrAppend(&out, "  return ", list(graph.results), "\n}\n");
  return out;
}

}  // namespace gpuc::passes
