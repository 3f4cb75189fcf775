//===- node.h - Immutable IR nodes and tensor types -----------------------===//
//
// A Node is one operation: an op code, its result type, its operands and attributes. Nodes are
// immutable and shared (a front-end Array holds a NodeRef), so a node can belong to several
// graphs; use lists therefore live in the Graph, not in the node.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_NODE_H_
#define GPUC_IR_NODE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "ir/attributes.h"
#include "ir/dtype.h"
#include "ir/op.h"
#include "ir/shape.h"

namespace gpuc::ir {

/// The type of an array value: element dtype and shape. Printed "f32[2,3]".
struct TensorType {
  DType dtype = DType::kFloat32;
  Shape shape;

  std::string ToString() const;
  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
};

class Node;
using NodeRef = std::shared_ptr<const Node>;

/// Storage that a bound parameter stands for. The front end turns an evaluated array into a
/// parameter node that carries its buffer, so graphs recorded later read it as an input. The IR
/// never looks inside: it only keeps the storage alive while a node refers to it.
class Binding {
 public:
  virtual ~Binding() = default;
};

class Node {
 public:
  /// Creates a node without checking it: the verifier and the front end's builders check types
  /// (tests build invalid nodes on purpose to exercise the verifier).
  static NodeRef Create(OpCode op, TensorType type, std::vector<NodeRef> operands = {},
                        Attributes attrs = {}, std::string name = "",
                        absl::string_view location = "");
  /// A parameter that stands for `binding`'s storage (see Binding).
  static NodeRef CreateBound(TensorType type, std::shared_ptr<const Binding> binding,
                             std::string name = "");

  /// Releases long operand chains iteratively: a recorded loop of 10^5 steps would overflow the
  /// stack if each node's destructor released its operands recursively.
  ~Node();

  OpCode op() const { return op_; }
  const OpInfo& info() const { return GetOpInfo(op_); }
  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  const std::vector<NodeRef>& operands() const { return operands_; }
  const Node& operand(int i) const { return *operands_[i]; }
  int num_operands() const { return static_cast<int>(operands_.size()); }
  const Attributes& attrs() const { return attrs_; }
  /// A name hint for printing (may be empty or shared by several nodes).
  const std::string& name() const { return name_; }
  /// Where the node came from ("file.cc:12" of the user code that recorded it), for error
  /// messages; empty when unknown. Not part of the node's meaning: printing, hashing and
  /// comparison ignore it. Interned: equal texts are one string, kept for the process's life,
  /// so its address identifies the text (ir/structural_key.h keys by it).
  const std::string& location() const { return *location_; }
  /// The storage of a bound parameter; null for every other node.
  const std::shared_ptr<const Binding>& binding() const { return binding_; }

 private:
  struct ConstructionKey {
    explicit ConstructionKey() = default;
  };

 public:
  // Public only for std::make_shared (one allocation for the node and its count); the
  // private key keeps everyone else to Create.
  Node(ConstructionKey, OpCode op, TensorType type, std::vector<NodeRef> operands, Attributes attrs,
       std::string name)
      : op_(op),
        type_(std::move(type)),
        operands_(std::move(operands)),
        attrs_(std::move(attrs)),
        name_(std::move(name)) {}

 private:
  OpCode op_;
  TensorType type_;
  // Mutable only so that the destructor can unlink operands iteratively.
  mutable std::vector<NodeRef> operands_;
  Attributes attrs_;
  std::string name_;
  // Interned: a program has few recording sites and records many nodes at each.
  const std::string* location_;
  std::shared_ptr<const Binding> binding_;
};

/// Whether `node` is an update_slice or a scatter that writes into its old value's storage
/// (attribute in_place = true, set by evaluation when that storage was donated): a kernel
/// boundary, run by the host back end as a region copy or a scatter over the old storage.
bool IsInPlaceWrite(const Node& node);

}  // namespace gpuc::ir

#endif  // GPUC_IR_NODE_H_
