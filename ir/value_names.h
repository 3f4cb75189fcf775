//===- value_names.h - Unique printable names for a graph's values --------===//
//
// Printer, verifier messages and the JSON form all name values the same way: a node's own name
// hint when it is a valid identifier not used yet, otherwise a fresh number or a suffixed hint.
// Names that came from parsed text are unique and valid, so printing preserves them exactly.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_VALUE_NAMES_H_
#define GPUC_IR_VALUE_NAMES_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/graph.h"

namespace gpuc::ir {

/// Whether `name` can follow '%' or '@' in the textual IR: [A-Za-z0-9_.]+ , not starting with
/// '.'.
bool IsValidIdentifier(absl::string_view name);

class ValueNames {
 public:
  /// Names the params, then the body, in order.
  explicit ValueNames(const Graph& graph);
  /// The name without '%'. A node outside the graph gets its name hint, or "?".
  const std::string& NameOf(const Node* node) const;

 private:
  void AssignFresh(const Node* node);

  absl::flat_hash_map<const Node*, std::string> names_;
  absl::flat_hash_set<std::string> used_;
  int next_number_ = 0;
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_VALUE_NAMES_H_
