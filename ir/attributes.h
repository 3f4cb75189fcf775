//===- attributes.h - Named compile-time parameters of an IR node ---------===//
//
// Attributes are what an op needs besides its operands: reduction axes, a transpose order,
// slice bounds, a constant's value. They are kept sorted by name so that the printer's output
// is canonical and two equal nodes compare equal.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_ATTRIBUTES_H_
#define GPUC_IR_ATTRIBUTES_H_

#include <complex>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/dtype.h"

namespace gpuc::ir {

using AttrValue = std::variant<bool, int64_t, double, std::complex<double>, std::vector<int64_t>,
                               DType, std::string>;

/// "int", "float", "ints", ... for messages.
absl::string_view AttrTypeName(const AttrValue& value);

class Attributes {
 public:
  using Entry = std::pair<std::string, AttrValue>;

  Attributes() = default;
  Attributes(std::initializer_list<Entry> init) {
    for (const Entry& e : init) Set(e.first, e.second);
  }

  void Set(std::string name, AttrValue value);
  void Erase(absl::string_view name);
  bool Has(absl::string_view name) const { return Find(name) != nullptr; }
  const AttrValue* Find(absl::string_view name) const;

  /// The attribute as a T, or nullptr when it is missing or of another type.
  template <typename T>
  const T* Get(absl::string_view name) const {
    const AttrValue* v = Find(name);
    return v ? std::get_if<T>(v) : nullptr;
  }

  /// Typed access with a clear error when missing or of the wrong type.
  absl::StatusOr<int64_t> GetInt(absl::string_view name) const;
  absl::StatusOr<std::vector<int64_t>> GetInts(absl::string_view name) const;
  /// GetInts without the copy; valid while the attribute is.
  absl::StatusOr<absl::Span<const int64_t>> GetIntsView(absl::string_view name) const;
  absl::StatusOr<std::string> GetString(absl::string_view name) const;
  /// A bool attribute, or `fallback` when absent (an error if present with another type).
  absl::StatusOr<bool> GetBool(absl::string_view name, bool fallback) const;

  /// Sorted by name.
  absl::Span<const Entry> entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  friend bool operator==(const Attributes& a, const Attributes& b) {
    return a.entries_ == b.entries_;
  }

 private:
  // A sorted vector, inline up to three entries (a slice's start, stop and step): nodes are
  // made by the thousand in a loop, and a map spent a heap block on every attribute.
  absl::InlinedVector<Entry, 3> entries_;
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_ATTRIBUTES_H_
