//===- json.cc - The JSON form of a graph ---------------------------------===//
#include "ir/json.h"

#include <charconv>

#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/value_names.h"

namespace gpuc::ir {
namespace {

using nlohmann::json;

json AttrToJson(const AttrValue& value) {
  struct Visitor {
    json operator()(bool b) const { return {{"bool", b}}; }
    json operator()(int64_t i) const { return {{"int", i}}; }
    json operator()(double d) const { return {{"float", PrintDouble(d)}}; }
    json operator()(const std::complex<double>& c) const {
      return {{"complex", {PrintDouble(c.real()), PrintDouble(c.imag())}}};
    }
    json operator()(const std::vector<int64_t>& v) const { return {{"ints", v}}; }
    json operator()(DType d) const { return {{"dtype", DTypeName(d)}}; }
    json operator()(const std::string& s) const { return {{"string", s}}; }
  };
  return std::visit(Visitor{}, value);
}

absl::Status JsonError(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("JSON graph: ", where, ": ", what));
}

/// Types and floats reuse the textual IR's syntax, parsed through a one-line function so that
/// both forms share one grammar for them.
absl::StatusOr<TensorType> TypeFromText(const std::string& text, absl::string_view where) {
  absl::StatusOr<Graph> g =
      Parse(absl::StrCat("func @t(%v: ", text, ") -> (", text, ") { return %v }"));
  if (!g.ok()) return JsonError(where, absl::StrCat("bad type '", text, "'"));
  return g->params[0]->type();
}

absl::StatusOr<double> DoubleFromText(const json& j, absl::string_view where) {
  if (!j.is_string()) return JsonError(where, "a float must be a string such as \"2.5\"");
  std::string text = j.get<std::string>();
  if (text == "nan") return std::nan("");
  if (text == "inf") return INFINITY;
  if (text == "-inf") return -INFINITY;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    return JsonError(where, absl::StrCat("bad float '", text, "'"));
  }
  return value;
}

absl::StatusOr<AttrValue> AttrFromJson(const json& j, absl::string_view where) {
  if (!j.is_object() || j.size() != 1) {
    return JsonError(where, "an attribute must be an object with one tag, e.g. {\"int\": 1}");
  }
  const std::string& tag = j.begin().key();
  const json& v = j.begin().value();
  if (tag == "bool" && v.is_boolean()) return AttrValue(v.get<bool>());
  if (tag == "int" && v.is_number_integer()) return AttrValue(v.get<int64_t>());
  if (tag == "float") {
    absl::StatusOr<double> d = DoubleFromText(v, where);
    if (!d.ok()) return d.status();
    return AttrValue(*d);
  }
  if (tag == "complex" && v.is_array() && v.size() == 2) {
    absl::StatusOr<double> re = DoubleFromText(v[0], where);
    absl::StatusOr<double> im = DoubleFromText(v[1], where);
    if (!re.ok()) return re.status();
    if (!im.ok()) return im.status();
    return AttrValue(std::complex<double>(*re, *im));
  }
  if (tag == "ints" && v.is_array()) {
    std::vector<int64_t> ints;
    for (const json& e : v) {
      if (!e.is_number_integer()) return JsonError(where, "\"ints\" must hold integers");
      ints.push_back(e.get<int64_t>());
    }
    return AttrValue(std::move(ints));
  }
  if (tag == "dtype" && v.is_string()) {
    if (std::optional<DType> d = ParseDType(v.get<std::string>())) return AttrValue(*d);
  }
  if (tag == "string" && v.is_string()) return AttrValue(v.get<std::string>());
  return JsonError(where, absl::StrCat("bad attribute value tagged '", tag, "'"));
}

const json* Field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

absl::StatusOr<std::string> StringField(const json& j, const char* key, absl::string_view where) {
  const json* f = Field(j, key);
  if (!f || !f->is_string()) return JsonError(where, absl::StrCat("needs a string \"", key, "\""));
  return f->get<std::string>();
}

}  // namespace

json ToJson(const Graph& graph) {
  ValueNames names(graph);
  json params = json::array(), nodes = json::array(), results = json::array();
  for (const NodeRef& p : graph.params) {
    params.push_back({{"name", names.NameOf(p.get())}, {"type", p->type().ToString()}});
  }
  for (const NodeRef& n : graph.nodes) {
    json operands = json::array(), attrs = json::object();
    for (const NodeRef& o : n->operands()) operands.push_back(names.NameOf(o.get()));
    for (const auto& [key, value] : n->attrs().entries()) attrs[key] = AttrToJson(value);
    nodes.push_back({{"name", names.NameOf(n.get())},
                     {"op", OpName(n->op())},
                     {"operands", operands},
                     {"attrs", attrs},
                     {"type", n->type().ToString()}});
  }
  for (const NodeRef& r : graph.results) results.push_back(names.NameOf(r.get()));
  return {{"name", graph.name}, {"params", params}, {"nodes", nodes}, {"results", results}};
}

absl::StatusOr<Graph> FromJson(const json& j) {
  Graph graph;
  absl::StatusOr<std::string> name = StringField(j, "name", "function");
  if (!name.ok()) return name.status();
  graph.name = *name;
  absl::flat_hash_map<std::string, NodeRef> values;
  auto lookup = [&](const json& ref, absl::string_view where) -> absl::StatusOr<NodeRef> {
    if (!ref.is_string()) return JsonError(where, "a value reference must be a string");
    auto it = values.find(ref.get<std::string>());
    if (it == values.end()) {
      return JsonError(where,
                       absl::StrCat("use of undefined value '", ref.get<std::string>(), "'"));
    }
    return it->second;
  };
  const json* params = Field(j, "params");
  const json* nodes = Field(j, "nodes");
  const json* results = Field(j, "results");
  if (!params || !params->is_array() || !nodes || !nodes->is_array() || !results ||
      !results->is_array()) {
    return JsonError("function", "needs arrays \"params\", \"nodes\" and \"results\"");
  }
  for (const json& p : *params) {
    absl::StatusOr<std::string> pname = StringField(p, "name", "parameter");
    if (!pname.ok()) return pname.status();
    absl::StatusOr<std::string> ptype = StringField(p, "type", *pname);
    if (!ptype.ok()) return ptype.status();
    absl::StatusOr<TensorType> type = TypeFromText(*ptype, *pname);
    if (!type.ok()) return type.status();
    NodeRef node = Node::Create(OpCode::kParameter, *type, {}, {}, *pname);
    if (!values.emplace(*pname, node).second) return JsonError(*pname, "is defined twice");
    graph.params.push_back(std::move(node));
  }
  for (const json& n : *nodes) {
    absl::StatusOr<std::string> nname = StringField(n, "name", "node");
    if (!nname.ok()) return nname.status();
    absl::StatusOr<std::string> opname = StringField(n, "op", *nname);
    if (!opname.ok()) return opname.status();
    std::optional<OpCode> op = ParseOpName(*opname);
    if (!op || *op == OpCode::kParameter) {
      return JsonError(*nname, absl::StrCat("unknown op '", *opname, "'"));
    }
    absl::StatusOr<std::string> ntype = StringField(n, "type", *nname);
    if (!ntype.ok()) return ntype.status();
    absl::StatusOr<TensorType> type = TypeFromText(*ntype, *nname);
    if (!type.ok()) return type.status();
    std::vector<NodeRef> operands;
    if (const json* ops = Field(n, "operands")) {
      if (!ops->is_array()) return JsonError(*nname, "\"operands\" must be an array");
      for (const json& o : *ops) {
        absl::StatusOr<NodeRef> operand = lookup(o, *nname);
        if (!operand.ok()) return operand.status();
        operands.push_back(*std::move(operand));
      }
    }
    Attributes attrs;
    if (const json* a = Field(n, "attrs")) {
      if (!a->is_object()) return JsonError(*nname, "\"attrs\" must be an object");
      for (auto it = a->begin(); it != a->end(); ++it) {
        absl::StatusOr<AttrValue> value = AttrFromJson(it.value(), *nname);
        if (!value.ok()) return value.status();
        attrs.Set(it.key(), *std::move(value));
      }
    }
    NodeRef node =
        Node::Create(*op, *std::move(type), std::move(operands), std::move(attrs), *nname);
    if (!values.emplace(*nname, node).second) return JsonError(*nname, "is defined twice");
    graph.nodes.push_back(std::move(node));
  }
  for (const json& r : *results) {
    absl::StatusOr<NodeRef> result = lookup(r, "results");
    if (!result.ok()) return result.status();
    graph.results.push_back(*std::move(result));
  }
  return graph;
}

}  // namespace gpuc::ir
