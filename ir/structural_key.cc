//===- structural_key.cc - A graph's identity up to its inputs' storage ----===//
#include "ir/structural_key.h"

#include <cstring>
#include <type_traits>

#include "absl/container/flat_hash_map.h"
#include "ir/positions.h"

namespace gpuc::ir {
namespace {

// Fixed-width fields, so that no two different sequences of fields encode to the same bytes.
class KeyWriter {
 public:
  explicit KeyWriter(std::string& out) : out_(out) {}

  template <typename T>
  void Put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  void PutString(const std::string& s) {
    Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void PutType(const TensorType& type) {
    Put<uint8_t>(static_cast<uint8_t>(type.dtype));
    Put<uint32_t>(static_cast<uint32_t>(type.shape.rank()));
    for (int64_t d : type.shape.dims()) Put<int64_t>(d);
  }
  void PutAttr(const AttrValue& value) {
    Put<uint8_t>(static_cast<uint8_t>(value.index()));
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            Put<uint32_t>(static_cast<uint32_t>(v.size()));
            for (int64_t x : v) Put<int64_t>(x);
          } else if constexpr (std::is_same_v<T, std::string>) {
            PutString(v);
          } else if constexpr (std::is_same_v<T, std::complex<double>>) {
            Put<double>(v.real());
            Put<double>(v.imag());
          } else {
            Put<T>(v);  // bool, int64_t, double (its bits: -0.0 and NaNs stay distinct), DType
          }
        },
        value);
  }

 private:
  std::string& out_;
};

}  // namespace

namespace {

// Whether attribute `name` of `n` restates a position (the offset itself, or the other end
// that moves with it) when positions are values.
bool IsPositional(const Node& n, const std::string& name) {
  const char* offsets = OffsetAttribute(n);
  if (offsets == nullptr) return false;
  return name == offsets || name == (n.op() == OpCode::kPad ? "high" : "stop");
}

std::string KeyOf(const Graph& graph, std::vector<int64_t>* positions);

}  // namespace

std::string StructuralKey(const Graph& graph) { return KeyOf(graph, nullptr); }

std::string StructuralKey(const Graph& graph, std::vector<int64_t>& positions) {
  return KeyOf(graph, &positions);
}

namespace {

std::string KeyOf(const Graph& graph, std::vector<int64_t>* positions) {
  std::string key;
  key.reserve(64 * (graph.params.size() + graph.nodes.size()));
  KeyWriter w(key);
  // Values are numbered in definition order: parameters first, then the body.
  absl::flat_hash_map<const Node*, uint32_t> number;
  number.reserve(graph.params.size() + graph.nodes.size());
  w.Put<uint32_t>(static_cast<uint32_t>(graph.params.size()));
  for (const NodeRef& p : graph.params) {
    number.emplace(p.get(), static_cast<uint32_t>(number.size()));
    w.PutType(p->type());
  }
  w.Put<uint32_t>(static_cast<uint32_t>(graph.nodes.size()));
  for (const NodeRef& n : graph.nodes) {
    number.emplace(n.get(), static_cast<uint32_t>(number.size()));
    w.Put<uint16_t>(static_cast<uint16_t>(n->op()));
    w.PutType(n->type());
    w.Put<uint32_t>(static_cast<uint32_t>(n->num_operands()));
    for (const NodeRef& operand : n->operands()) w.Put<uint32_t>(number.at(operand.get()));
    w.Put<uint32_t>(static_cast<uint32_t>(n->attrs().entries().size()));
    for (const auto& [name, value] : n->attrs().entries()) {
      w.PutString(name);
      if (positions != nullptr && IsPositional(*n, name)) {
        // Which offsets are zero (kernels keep zero literal); the values are positions.
        if (name == OffsetAttribute(*n)) {
          for (int64_t v : std::get<std::vector<int64_t>>(value)) w.Put<uint8_t>(v != 0);
        }
        continue;
      }
      w.PutAttr(value);
    }
    if (positions != nullptr) AppendPositions(*n, *positions);
    // Part of the key so that an evaluation-time error names the line that recorded this
    // graph's node, not the line of an earlier graph of the same shape. Locations are
    // interned (one address per text, never freed): the address is the text, and cheaper.
    w.Put<uintptr_t>(reinterpret_cast<uintptr_t>(&n->location()));
  }
  w.Put<uint32_t>(static_cast<uint32_t>(graph.results.size()));
  for (const NodeRef& r : graph.results) w.Put<uint32_t>(number.at(r.get()));
  return key;
}

}  // namespace

}  // namespace gpuc::ir
