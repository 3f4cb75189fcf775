//===- attributes.cc - Named compile-time parameters of an IR node --------===//
#include "ir/attributes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace gpuc::ir {
namespace {

absl::Status Missing(absl::string_view name) {
  return absl::InvalidArgumentError(absl::StrCat("missing attribute '", name, "'"));
}

absl::Status WrongType(absl::string_view name, absl::string_view want, const AttrValue& got) {
  return absl::InvalidArgumentError(
      absl::StrCat("attribute '", name, "' must be ", want, ", not ", AttrTypeName(got)));
}

template <typename T>
absl::StatusOr<T> GetTyped(const Attributes& attrs, absl::string_view name,
                           absl::string_view want) {
  const AttrValue* v = attrs.Find(name);
  if (!v) return Missing(name);
  if (const T* t = std::get_if<T>(v)) return *t;
  return WrongType(name, want, *v);
}

}  // namespace

absl::string_view AttrTypeName(const AttrValue& value) {
  static constexpr absl::string_view kNames[] = {"bool", "int",   "float", "complex",
                                                 "ints", "dtype", "string"};
  return kNames[value.index()];
}

void Attributes::Set(std::string name, AttrValue value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, const std::string& n) { return e.first < n; });
  if (it != entries_.end() && it->first == name) {
    it->second = std::move(value);
    return;
  }
  entries_.insert(it, Entry(std::move(name), std::move(value)));
}

void Attributes::Erase(absl::string_view name) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.first == name; });
  if (it != entries_.end()) entries_.erase(it);
}

const AttrValue* Attributes::Find(absl::string_view name) const {
  for (const Entry& e : entries_) {  // a handful of entries: a scan beats a search
    if (e.first == name) return &e.second;
  }
  return nullptr;
}

absl::StatusOr<int64_t> Attributes::GetInt(absl::string_view name) const {
  return GetTyped<int64_t>(*this, name, "an int");
}

absl::StatusOr<std::vector<int64_t>> Attributes::GetInts(absl::string_view name) const {
  return GetTyped<std::vector<int64_t>>(*this, name, "a list of ints");
}

absl::StatusOr<absl::Span<const int64_t>> Attributes::GetIntsView(absl::string_view name) const {
  const AttrValue* v = Find(name);
  if (!v) return Missing(name);
  if (const auto* ints = std::get_if<std::vector<int64_t>>(v))
    return absl::Span<const int64_t>(*ints);
  return WrongType(name, "a list of ints", *v);
}

absl::StatusOr<std::string> Attributes::GetString(absl::string_view name) const {
  return GetTyped<std::string>(*this, name, "a string");
}

absl::StatusOr<bool> Attributes::GetBool(absl::string_view name, bool fallback) const {
  if (!Has(name)) return fallback;
  return GetTyped<bool>(*this, name, "a bool");
}

}  // namespace gpuc::ir
