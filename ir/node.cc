//===- node.cc - Immutable IR nodes and tensor types ----------------------===//
#include "ir/node.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_set.h"
#include "absl/strings/str_cat.h"

namespace gpuc::ir {

std::string TensorType::ToString() const {
  return absl::StrCat(DTypeName(dtype), shape.ToString());
}

namespace {

// Every distinct location text once, for the life of the process (the set of recording sites
// in a program is small). Each thread remembers what it interned, so recording a node at a
// known site takes no lock.
const std::string* InternLocation(absl::string_view text) {
  static const std::string* const kEmpty = new std::string;
  if (text.empty()) return kEmpty;
  // A loop records many nodes at one site in a row: the last text answers most calls.
  thread_local const std::string* last = nullptr;
  if (last != nullptr && *last == text) return last;
  thread_local absl::flat_hash_map<std::string, const std::string*> seen;
  if (auto it = seen.find(text); it != seen.end()) return last = it->second;
  static std::mutex mutex;
  static auto* interned = new absl::node_hash_set<std::string>;
  const std::string* stable;
  {
    std::lock_guard<std::mutex> lock(mutex);
    stable = &*interned->emplace(text).first;
  }
  seen.emplace(std::string(text), stable);
  return last = stable;
}

}  // namespace

NodeRef Node::Create(OpCode op, TensorType type, std::vector<NodeRef> operands, Attributes attrs,
                     std::string name, absl::string_view location) {
  auto node = std::make_shared<Node>(ConstructionKey(), op, std::move(type), std::move(operands),
                                     std::move(attrs), std::move(name));
  node->location_ = InternLocation(location);
  return node;
}

NodeRef Node::CreateBound(TensorType type, std::shared_ptr<const Binding> binding,
                          std::string name) {
  auto node = std::make_shared<Node>(ConstructionKey(), OpCode::kParameter, std::move(type),
                                     std::vector<NodeRef>{}, Attributes{}, std::move(name));
  node->location_ = InternLocation("");
  node->binding_ = std::move(binding);
  return node;
}

Node::~Node() {
  std::vector<NodeRef> pending = std::move(operands_);
  while (!pending.empty()) {
    NodeRef node = std::move(pending.back());
    pending.pop_back();
    if (node.use_count() == 1) {
      // The last owner: take its operands now so that releasing it recurses no further.
      for (NodeRef& operand : node->operands_) pending.push_back(std::move(operand));
      node->operands_.clear();
    }
  }
}

bool IsInPlaceWrite(const Node& node) {
  if (node.op() != OpCode::kUpdateSlice && node.op() != OpCode::kScatter) return false;
  const bool* in_place = node.attrs().Get<bool>("in_place");
  return in_place != nullptr && *in_place;
}

}  // namespace gpuc::ir
