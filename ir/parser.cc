//===- parser.cc - The textual IR (.gir) reader ---------------------------===//
#include "ir/parser.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/lexer.h"

namespace gpuc::ir {
namespace {

class Parser {
 public:
  explicit Parser(absl::string_view text) : lexer_(text) { Advance(); }

  absl::StatusOr<Graph> ParseFunction() {
    Graph graph;
    if (absl::Status s = ExpectIdent("func"); !s.ok()) return s;
    if (token_.kind != TokenKind::kFuncName) return Expected("a function name '@name'");
    graph.name = token_.text;
    Advance();
    if (absl::Status s = Expect(TokenKind::kLParen, "'('"); !s.ok()) return s;
    while (token_.kind != TokenKind::kRParen) {
      if (!graph.params.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or ')'"); !s.ok()) return s;
      }
      if (token_.kind != TokenKind::kValueName) return Expected("a parameter name '%name'");
      Token name = token_;
      Advance();
      if (absl::Status s = Expect(TokenKind::kColon, "':' after the parameter name"); !s.ok()) {
        return s;
      }
      absl::StatusOr<TensorType> type = ParseType();
      if (!type.ok()) return type.status();
      NodeRef param = Node::Create(OpCode::kParameter, *std::move(type), {}, {}, name.text);
      if (absl::Status s = Define(name, param); !s.ok()) return s;
      graph.params.push_back(std::move(param));
    }
    Advance();
    if (absl::Status s = Expect(TokenKind::kArrow, "'->'"); !s.ok()) return s;
    if (absl::Status s = Expect(TokenKind::kLParen, "'(' before the result types"); !s.ok()) {
      return s;
    }
    std::vector<TensorType> result_types;
    while (token_.kind != TokenKind::kRParen) {
      if (!result_types.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or ')'"); !s.ok()) return s;
      }
      absl::StatusOr<TensorType> type = ParseType();
      if (!type.ok()) return type.status();
      result_types.push_back(*std::move(type));
    }
    Advance();
    if (absl::Status s = Expect(TokenKind::kLBrace, "'{'"); !s.ok()) return s;
    while (!(token_.kind == TokenKind::kIdent && token_.text == "return")) {
      absl::StatusOr<NodeRef> node = ParseStatement();
      if (!node.ok()) return node.status();
      graph.nodes.push_back(*std::move(node));
    }
    Token return_token = token_;
    Advance();
    while (token_.kind == TokenKind::kValueName) {
      absl::StatusOr<NodeRef> value = Lookup(token_);
      if (!value.ok()) return value.status();
      graph.results.push_back(*std::move(value));
      Advance();
      if (token_.kind != TokenKind::kComma) break;
      Advance();
    }
    if (graph.results.size() != result_types.size()) {
      return ErrorAt(return_token,
                     absl::StrCat("returns ", graph.results.size(),
                                  " values but the signature declares ", result_types.size()));
    }
    for (size_t i = 0; i < result_types.size(); ++i) {
      if (!(graph.results[i]->type() == result_types[i])) {
        return ErrorAt(return_token,
                       absl::StrCat("result ", i, " has type ", graph.results[i]->type().ToString(),
                                    " but the signature declares ", result_types[i].ToString()));
      }
    }
    if (absl::Status s = Expect(TokenKind::kRBrace, "'}' after the return"); !s.ok()) return s;
    if (token_.kind != TokenKind::kEnd) return Expected("end of input after the function");
    return graph;
  }

 private:
  void Advance() { token_ = lexer_.Next(); }

  absl::Status ErrorAt(const Token& at, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(at.line, ":", at.column, ": ", message));
  }
  absl::Status Expected(absl::string_view what) const {
    return ErrorAt(token_, absl::StrCat("expected ", what, ", got ", DescribeToken(token_)));
  }
  absl::Status Expect(TokenKind kind, absl::string_view what) {
    if (token_.kind != kind) return Expected(what);
    Advance();
    return absl::OkStatus();
  }
  absl::Status ExpectIdent(absl::string_view word) {
    if (token_.kind != TokenKind::kIdent || token_.text != word) {
      return Expected(absl::StrCat("'", word, "'"));
    }
    Advance();
    return absl::OkStatus();
  }

  absl::Status Define(const Token& name, const NodeRef& node) {
    if (!values_.emplace(name.text, node).second) {
      return ErrorAt(name, absl::StrCat("value '%", name.text, "' is defined twice"));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<NodeRef> Lookup(const Token& name) const {
    auto it = values_.find(name.text);
    if (it == values_.end()) {
      return ErrorAt(name, absl::StrCat("use of undefined value '%", name.text, "'"));
    }
    return it->second;
  }

  absl::StatusOr<int64_t> ParseIntToken() {
    if (token_.kind != TokenKind::kInt) return Expected("an integer");
    int64_t value = 0;
    const char* begin = token_.text.data();
    const char* end = begin + token_.text.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end) {
      return ErrorAt(token_, absl::StrCat("integer '", token_.text, "' does not fit in 64 bits"));
    }
    Advance();
    return value;
  }

  absl::StatusOr<TensorType> ParseType() {
    if (token_.kind != TokenKind::kIdent) return Expected("a type such as f32[2,3]");
    std::optional<DType> dtype = ParseDType(token_.text);
    if (!dtype) return ErrorAt(token_, absl::StrCat("unknown dtype '", token_.text, "'"));
    Advance();
    absl::StatusOr<std::vector<int64_t>> dims = ParseIntList("'[' and the extents of the type");
    if (!dims.ok()) return dims.status();
    return TensorType{*dtype, Shape(*std::move(dims))};
  }

  absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view what) {
    if (absl::Status s = Expect(TokenKind::kLBracket, what); !s.ok()) return s;
    std::vector<int64_t> values;
    while (token_.kind != TokenKind::kRBracket) {
      if (!values.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or ']'"); !s.ok()) return s;
      }
      absl::StatusOr<int64_t> v = ParseIntToken();
      if (!v.ok()) return v.status();
      values.push_back(*v);
    }
    Advance();
    return values;
  }

  /// A float literal: a number, or nan / inf with an optional leading '-'.
  absl::StatusOr<double> ParseDouble() {
    bool negative = false;
    if (token_.kind == TokenKind::kMinus) {
      negative = true;
      Advance();
      if (token_.kind != TokenKind::kIdent) return Expected("'inf' or 'nan' after '-'");
    }
    if (token_.kind == TokenKind::kIdent && (token_.text == "nan" || token_.text == "inf")) {
      double v = token_.text == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                      : std::numeric_limits<double>::infinity();
      Advance();
      return negative ? -v : v;
    }
    if (negative) return Expected("'inf' or 'nan' after '-'");
    if (token_.kind != TokenKind::kFloat && token_.kind != TokenKind::kInt) {
      return Expected("a number");
    }
    double value = 0;
    const char* begin = token_.text.data();
    const char* end = begin + token_.text.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end) {
      return ErrorAt(token_, absl::StrCat("number '", token_.text, "' is out of range"));
    }
    Advance();
    return value;
  }

  absl::StatusOr<AttrValue> ParseAttrValue() {
    switch (token_.kind) {
      case TokenKind::kInt: {
        absl::StatusOr<int64_t> v = ParseIntToken();
        if (!v.ok()) return v.status();
        return AttrValue(*v);
      }
      case TokenKind::kFloat:
      case TokenKind::kMinus: {
        absl::StatusOr<double> v = ParseDouble();
        if (!v.ok()) return v.status();
        return AttrValue(*v);
      }
      case TokenKind::kLBracket: {
        absl::StatusOr<std::vector<int64_t>> v = ParseIntList("'['");
        if (!v.ok()) return v.status();
        return AttrValue(*std::move(v));
      }
      case TokenKind::kString: {
        std::string s = token_.text;
        Advance();
        return AttrValue(std::move(s));
      }
      case TokenKind::kLParen: {
        Advance();
        absl::StatusOr<double> re = ParseDouble();
        if (!re.ok()) return re.status();
        if (absl::Status s = Expect(TokenKind::kComma, "',' in a complex (re, im)"); !s.ok()) {
          return s;
        }
        absl::StatusOr<double> im = ParseDouble();
        if (!im.ok()) return im.status();
        if (absl::Status s = Expect(TokenKind::kRParen, "')' closing a complex"); !s.ok()) {
          return s;
        }
        return AttrValue(std::complex<double>(*re, *im));
      }
      case TokenKind::kIdent: {
        if (token_.text == "true" || token_.text == "false") {
          bool b = token_.text == "true";
          Advance();
          return AttrValue(b);
        }
        if (token_.text == "nan" || token_.text == "inf") {
          absl::StatusOr<double> v = ParseDouble();
          if (!v.ok()) return v.status();
          return AttrValue(*v);
        }
        if (std::optional<DType> d = ParseDType(token_.text)) {
          Advance();
          return AttrValue(*d);
        }
        return ErrorAt(token_, absl::StrCat("unknown attribute value '", token_.text, "'"));
      }
      default:
        return Expected("an attribute value");
    }
  }

  absl::StatusOr<Attributes> ParseAttributes() {
    Attributes attrs;
    Advance();  // '{'
    while (token_.kind != TokenKind::kRBrace) {
      if (!attrs.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or '}'"); !s.ok()) return s;
      }
      if (token_.kind != TokenKind::kIdent) return Expected("an attribute name");
      Token key = token_;
      Advance();
      if (absl::Status s = Expect(TokenKind::kEqual, "'=' after the attribute name"); !s.ok()) {
        return s;
      }
      absl::StatusOr<AttrValue> value = ParseAttrValue();
      if (!value.ok()) return value.status();
      if (attrs.Has(key.text)) {
        return ErrorAt(key, absl::StrCat("attribute '", key.text, "' is given twice"));
      }
      attrs.Set(key.text, *std::move(value));
    }
    Advance();
    return attrs;
  }

  absl::StatusOr<NodeRef> ParseStatement() {
    if (token_.kind != TokenKind::kValueName) return Expected("'%name = op ...' or 'return'");
    Token name = token_;
    Advance();
    if (absl::Status s = Expect(TokenKind::kEqual, "'='"); !s.ok()) return s;
    if (token_.kind != TokenKind::kIdent) return Expected("an op name");
    std::optional<OpCode> op = ParseOpName(token_.text);
    if (!op || *op == OpCode::kParameter) {
      return ErrorAt(token_, absl::StrCat("unknown op '", token_.text, "'"));
    }
    Advance();
    std::vector<NodeRef> operands;
    while (token_.kind == TokenKind::kValueName) {
      absl::StatusOr<NodeRef> operand = Lookup(token_);
      if (!operand.ok()) return operand.status();
      operands.push_back(*std::move(operand));
      Advance();
      if (token_.kind != TokenKind::kComma) break;
      Advance();
      if (token_.kind != TokenKind::kValueName) return Expected("an operand after ','");
    }
    Attributes attrs;
    if (token_.kind == TokenKind::kLBrace) {
      absl::StatusOr<Attributes> parsed = ParseAttributes();
      if (!parsed.ok()) return parsed.status();
      attrs = *std::move(parsed);
    }
    if (absl::Status s = Expect(TokenKind::kColon, "':' before the result type"); !s.ok()) {
      return s;
    }
    absl::StatusOr<TensorType> type = ParseType();
    if (!type.ok()) return type.status();
    NodeRef node =
        Node::Create(*op, *std::move(type), std::move(operands), std::move(attrs), name.text);
    if (absl::Status s = Define(name, node); !s.ok()) return s;
    return node;
  }

  Lexer lexer_;
  Token token_;
  absl::flat_hash_map<std::string, NodeRef> values_;
};

}  // namespace

absl::StatusOr<Graph> Parse(absl::string_view text) { return Parser(text).ParseFunction(); }

}  // namespace gpuc::ir
