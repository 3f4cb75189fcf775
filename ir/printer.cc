//===- printer.cc - The textual IR (.gir) writer --------------------------===//
#include "ir/printer.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/value_names.h"

namespace gpuc::ir {
namespace {

std::string QuoteString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

std::string PrintDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string PrintAttrValue(const AttrValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return absl::StrCat(i); }
    std::string operator()(double d) const { return PrintDouble(d); }
    std::string operator()(const std::complex<double>& c) const {
      return absl::StrCat("(", PrintDouble(c.real()), ", ", PrintDouble(c.imag()), ")");
    }
    std::string operator()(const std::vector<int64_t>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(DType d) const { return std::string(DTypeName(d)); }
    std::string operator()(const std::string& s) const { return QuoteString(s); }
  };
  return std::visit(Visitor{}, value);
}

std::string PrintNode(const Node& n, const ValueNames& names) {
  auto name = [&](const NodeRef& v) { return absl::StrCat("%", names.NameOf(v.get())); };
  std::string out = absl::StrCat("%", names.NameOf(&n), " = ", OpName(n.op()));
  for (int i = 0; i < n.num_operands(); ++i) {
    absl::StrAppend(&out, i ? ", " : " ", name(n.operands()[i]));
  }
  if (!n.attrs().empty()) {
    out += " {";
    bool first = true;
    for (const auto& [key, value] : n.attrs().entries()) {
      absl::StrAppend(&out, first ? "" : ", ", key, " = ", PrintAttrValue(value));
      first = false;
    }
    out += "}";
  }
  absl::StrAppend(&out, " : ", n.type().ToString());
  return out;
}

std::string Print(const Graph& graph) {
  ValueNames names(graph);
  auto name = [&](const NodeRef& n) { return absl::StrCat("%", names.NameOf(n.get())); };
  std::string out = absl::StrCat("func @", graph.name, "(");
  for (size_t i = 0; i < graph.params.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", name(graph.params[i]), ": ",
                    graph.params[i]->type().ToString());
  }
  out += ") -> (";
  for (size_t i = 0; i < graph.results.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", graph.results[i]->type().ToString());
  }
  out += ") {\n";
  for (const NodeRef& n : graph.nodes) absl::StrAppend(&out, "  ", PrintNode(*n, names), "\n");
  out += "  return";
  for (size_t i = 0; i < graph.results.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : " ", name(graph.results[i]));
  }
  out += "\n}\n";
  return out;
}

}  // namespace gpuc::ir
