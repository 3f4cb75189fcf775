//===- positions.cc - Slice positions as values of a plan, not its structure ===//
#include "ir/positions.h"

namespace gpuc::ir {

const char* OffsetAttribute(const Node& node) {
  switch (node.op()) {
    case OpCode::kSlice:
    case OpCode::kUpdateSlice:
      return "start";
    case OpCode::kPad:
      return "low";
    default:
      return nullptr;
  }
}

void AppendPositions(const Node& node, std::vector<int64_t>& positions) {
  const char* attr = OffsetAttribute(node);
  if (attr == nullptr) return;
  for (int64_t v : *node.attrs().Get<std::vector<int64_t>>(attr)) {
    if (v != 0) positions.push_back(v);
  }
}

std::optional<Attributes> NumberPositions(const Node& node, int64_t& next) {
  const char* attr = OffsetAttribute(node);
  if (attr == nullptr) return std::nullopt;
  std::vector<int64_t> numbers;
  bool any = false;
  for (int64_t v : *node.attrs().Get<std::vector<int64_t>>(attr)) {
    numbers.push_back(v != 0 ? next++ : -1);
    any = any || v != 0;
  }
  if (!any) return std::nullopt;
  Attributes attrs = node.attrs();
  attrs.Set("positions", std::move(numbers));
  return attrs;
}

int64_t PositionOf(const Node& node, int axis) {
  const std::vector<int64_t>* numbers = node.attrs().Get<std::vector<int64_t>>("positions");
  if (numbers == nullptr || axis >= static_cast<int>(numbers->size())) return -1;
  return (*numbers)[axis];
}

NodeRef PlacedAt(const NodeRef& node, absl::Span<const int64_t> positions) {
  if (positions.empty() || !node->attrs().Has("positions")) return node;
  return Node::Create(node->op(), node->type(), node->operands(), WithPositions(*node, positions),
                      node->name(), node->location());
}

Attributes WithPositions(const Node& node, absl::Span<const int64_t> positions) {
  const std::vector<int64_t>* numbers = node.attrs().Get<std::vector<int64_t>>("positions");
  const char* attr = OffsetAttribute(node);
  Attributes attrs = node.attrs();
  if (numbers == nullptr || attr == nullptr || positions.empty()) return attrs;
  std::vector<int64_t> offsets = *attrs.Get<std::vector<int64_t>>(attr);
  // The other end moves with the offset: a slice's stop by as much, a pad's high by as much
  // the other way (the shapes are fixed).
  const bool pad = node.op() == OpCode::kPad;
  const char* other_end = pad ? "high" : "stop";
  std::vector<int64_t> end = *attrs.Get<std::vector<int64_t>>(other_end);
  for (size_t axis = 0; axis < numbers->size() && axis < offsets.size(); ++axis) {
    const int64_t p = (*numbers)[axis];
    if (p < 0 || p >= static_cast<int64_t>(positions.size())) continue;
    const int64_t moved = positions[p] - offsets[axis];
    if (axis < end.size()) end[axis] += pad ? -moved : moved;
    offsets[axis] = positions[p];
  }
  attrs.Set(attr, std::move(offsets));
  attrs.Set(other_end, std::move(end));
  return attrs;
}

}  // namespace gpuc::ir
