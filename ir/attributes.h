//===- attributes.h - Named compile-time parameters of an IR node ---------===//
//
// Attributes are what an op needs besides its operands: reduction axes, a transpose order,
// slice bounds, a constant's value. They are kept in a sorted map so that the printer's output
// is canonical and two equal nodes compare equal.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_ATTRIBUTES_H_
#define GPUC_IR_ATTRIBUTES_H_

#include <complex>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/dtype.h"

namespace gpuc::ir {

using AttrValue = std::variant<bool, int64_t, double, std::complex<double>, std::vector<int64_t>,
                               DType, std::string>;

/// "int", "float", "ints", ... for messages.
absl::string_view AttrTypeName(const AttrValue& value);

class Attributes {
 public:
  Attributes() = default;
  Attributes(std::initializer_list<std::pair<const std::string, AttrValue>> init) : map_(init) {}

  void Set(std::string name, AttrValue value) { map_[std::move(name)] = std::move(value); }
  void Erase(absl::string_view name) {
    if (auto it = map_.find(name); it != map_.end()) map_.erase(it);
  }
  bool Has(absl::string_view name) const { return map_.find(name) != map_.end(); }
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
  absl::StatusOr<std::string> GetString(absl::string_view name) const;
  /// A bool attribute, or `fallback` when absent (an error if present with another type).
  absl::StatusOr<bool> GetBool(absl::string_view name, bool fallback) const;

  const std::map<std::string, AttrValue, std::less<>>& entries() const { return map_; }
  bool empty() const { return map_.empty(); }
  friend bool operator==(const Attributes& a, const Attributes& b) { return a.map_ == b.map_; }

 private:
  std::map<std::string, AttrValue, std::less<>> map_;
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_ATTRIBUTES_H_
