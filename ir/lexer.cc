//===- lexer.cc - Tokens of the textual IR --------------------------------===//
#include "ir/lexer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gpuc::ir {
namespace {

bool IsIdentChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

}  // namespace

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kError:
      return absl::StrCat("unexpected character '", token.text, "'");
    case TokenKind::kValueName:
      return absl::StrCat("value '%", token.text, "'");
    case TokenKind::kFuncName:
      return absl::StrCat("function name '@", token.text, "'");
    case TokenKind::kIdent:
      return absl::StrCat("identifier '", token.text, "'");
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return absl::StrCat("number '", token.text, "'");
    case TokenKind::kString:
      return "a string";
    default:
      return absl::StrCat("'", token.text, "'");
  }
}

char Lexer::Advance() {
  char c = text_[pos_++];
  if (c == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  return c;
}

void Lexer::SkipSpaceAndComments() {
  while (pos_ < text_.size()) {
    char c = Peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      Advance();
    } else if (c == '/' && Peek(1) == '/') {
      while (pos_ < text_.size() && Peek() != '\n') Advance();
    } else {
      return;
    }
  }
}

Token Lexer::Next() {
  SkipSpaceAndComments();
  Token token;
  token.line = line_;
  token.column = column_;
  if (pos_ >= text_.size()) return token;
  char c = Peek();
  if (c == '%' || c == '@') {
    Advance();
    token.kind = c == '%' ? TokenKind::kValueName : TokenKind::kFuncName;
    while (pos_ < text_.size() && IsIdentChar(Peek())) token.text += Advance();
    if (token.text.empty()) {
      token.kind = TokenKind::kError;
      token.text = std::string(1, c);
    }
    return token;
  }
  if (absl::ascii_isdigit(static_cast<unsigned char>(c)) ||
      (c == '-' && absl::ascii_isdigit(static_cast<unsigned char>(Peek(1))))) {
    return LexNumber(std::move(token));
  }
  if (absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_') {
    token.kind = TokenKind::kIdent;
    while (pos_ < text_.size() && IsIdentChar(Peek())) token.text += Advance();
    return token;
  }
  if (c == '"') return LexString(std::move(token));
  if (c == '-' && Peek(1) == '>') {
    Advance();
    Advance();
    token.kind = TokenKind::kArrow;
    token.text = "->";
    return token;
  }
  Advance();
  token.text = std::string(1, c);
  switch (c) {
    case '(':
      token.kind = TokenKind::kLParen;
      break;
    case ')':
      token.kind = TokenKind::kRParen;
      break;
    case '{':
      token.kind = TokenKind::kLBrace;
      break;
    case '}':
      token.kind = TokenKind::kRBrace;
      break;
    case '[':
      token.kind = TokenKind::kLBracket;
      break;
    case ']':
      token.kind = TokenKind::kRBracket;
      break;
    case ',':
      token.kind = TokenKind::kComma;
      break;
    case ':':
      token.kind = TokenKind::kColon;
      break;
    case '=':
      token.kind = TokenKind::kEqual;
      break;
    case '-':
      token.kind = TokenKind::kMinus;
      break;
    default:
      token.kind = TokenKind::kError;
      if (!absl::ascii_isprint(static_cast<unsigned char>(c))) {
        token.text = absl::StrCat("\\x", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
      }
  }
  return token;
}

Token Lexer::LexNumber(Token token) {
  token.kind = TokenKind::kInt;
  if (Peek() == '-') token.text += Advance();
  auto digits = [&] {
    while (absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) token.text += Advance();
  };
  digits();
  if (Peek() == '.') {
    token.kind = TokenKind::kFloat;
    token.text += Advance();
    digits();
  }
  if ((Peek() == 'e' || Peek() == 'E') &&
      (absl::ascii_isdigit(static_cast<unsigned char>(Peek(1))) ||
       ((Peek(1) == '-' || Peek(1) == '+') &&
        absl::ascii_isdigit(static_cast<unsigned char>(Peek(2)))))) {
    token.kind = TokenKind::kFloat;
    token.text += Advance();
    if (Peek() == '-' || Peek() == '+') token.text += Advance();
    digits();
  }
  return token;
}

Token Lexer::LexString(Token token) {
  Advance();  // opening quote
  token.kind = TokenKind::kString;
  while (pos_ < text_.size() && Peek() != '"' && Peek() != '\n') {
    char c = Advance();
    if (c == '\\' && pos_ < text_.size()) {
      char e = Advance();
      token.text += e == 'n' ? '\n' : e;
    } else {
      token.text += c;
    }
  }
  if (Peek() != '"') {
    token.kind = TokenKind::kError;
    token.text = "\"";
    return token;
  }
  Advance();
  return token;
}

}  // namespace gpuc::ir
