//===- in_place_writes.h - Writes that touch only their region ------------===//
//
// `a(i) = v` records update_slice(a, v): a new value, the old one unchanged. When nothing
// but this evaluation can see the old value's storage (no other handle, view or pending graph
// holds it, and nothing else owns its bytes), the evaluation may take that storage over
// ("donation"), and an update_slice over it whose other readers in the graph all read
// elsewhere (slices disjoint from the region) writes only its region, in place: writing one
// row of a matrix moves a row's bytes, not the matrix's. A scatter (`a.at(idx).set(v)`) over
// donated storage writes only its indexed elements when every other reader of the old value
// is done before it (its region depends on the indices, so no slice counts as disjoint). The
// host back end does such writes; the plan key records which inputs were donated.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EVAL_IN_PLACE_WRITES_H_
#define GPUC_LIB_EVAL_IN_PLACE_WRITES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/graph.h"
#include "ir/node.h"
#include "lib/exec/buffer.h"

namespace gpuc::detail {

/// What a target can write in place: over which storage, and which writes.
struct InPlaceRules {
  /// Donated storage is device memory (exec::Buffer::OnDeviceAndUnshared), not host
  /// memory (HostOnlyAndUnshared).
  bool device_storage = false;
  /// The writes the target's executables run in place (exec::Target::WritesInPlace).
  std::function<bool(const ir::Node&)> writes;
};

/// The update_slice nodes of `graph` that may write in place: their old value is parameter
/// i with `inputs[i]` unshared (in the memory `rules` name) and referenced only from
/// inside `graph`, no other update_slice writes over it, it is not a result, and every other
/// reader is a slice disjoint from the region; and `rules.writes` accepts them. `graph` is the
/// evaluation's graph after CollectBoundInputs (its params hold the only references
/// evaluation made).
absl::flat_hash_set<const ir::Node*> FindInPlaceWrites(const ir::Graph& graph,
                                                       const std::vector<exec::BufferRef>& inputs,
                                                       const InPlaceRules& rules);

/// The same for a traced graph (a loop body): parameter i's storage is donated where
/// `donated[i]`, and nothing outside the graph can read its values.
absl::flat_hash_set<const ir::Node*> FindInPlaceWritesOverParams(const ir::Graph& graph,
                                                                 const std::vector<bool>& donated);

/// The plan key's part for `writes`: which parameters they write over ("" when none).
std::string InPlaceKey(const ir::Graph& graph, const absl::flat_hash_set<const ir::Node*>& writes);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EVAL_IN_PLACE_WRITES_H_
