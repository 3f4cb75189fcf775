//===- value_names.cc - Unique printable names for a graph's values -------===//
#include "ir/value_names.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gpuc::ir {

bool IsValidIdentifier(absl::string_view name) {
  if (name.empty() || name.front() == '.') return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  }
  return true;
}

ValueNames::ValueNames(const Graph& graph) {
  // Valid hints are reserved first, so that a generated number never steals a name that a later
  // node brings with it.
  for (const auto* list : {&graph.params, &graph.nodes}) {
    for (const NodeRef& n : *list) {
      const std::string& hint = n->name();
      if (!names_.contains(n.get()) && IsValidIdentifier(hint) && used_.insert(hint).second) {
        names_[n.get()] = hint;
      }
    }
  }
  for (const auto* list : {&graph.params, &graph.nodes}) {
    for (const NodeRef& n : *list) AssignFresh(n.get());
  }
}

void ValueNames::AssignFresh(const Node* node) {
  if (names_.contains(node)) return;
  absl::string_view base = IsValidIdentifier(node->name()) ? absl::string_view(node->name()) : "";
  std::string name;
  do {
    name = base.empty() ? absl::StrCat(next_number_++) : absl::StrCat(base, ".", next_number_++);
  } while (used_.contains(name));
  used_.insert(name);
  names_[node] = std::move(name);
}

const std::string& ValueNames::NameOf(const Node* node) const {
  static const std::string kUnknown = "?";
  auto it = names_.find(node);
  if (it != names_.end()) return it->second;
  // A node from outside the graph (a verifier message names it): its hint is the best name.
  return IsValidIdentifier(node->name()) ? node->name() : kUnknown;
}

}  // namespace gpuc::ir
