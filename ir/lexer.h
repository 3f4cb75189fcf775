//===- lexer.h - Tokens of the textual IR ---------------------------------===//
//
// Splits .gir text into tokens with their line and column. The lexer never fails: characters it
// does not know become kError tokens, which the parser reports with their position.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_LEXER_H_
#define GPUC_IR_LEXER_H_

#include <string>
#include "absl/strings/string_view.h"

namespace gpuc::ir {

enum class TokenKind {
  kEnd,
  kError,
  kValueName,  // %x (text holds "x")
  kFuncName,   // @f (text holds "f")
  kIdent,      // add, f32, true, keepdims
  kInt,        // 42, -3
  kFloat,      // 2.5, -1e-3
  kString,     // "backward" (text holds the unescaped contents)
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLBracket,
  kRBracket,
  kComma,
  kColon,
  kEqual,
  kArrow,
  kMinus,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  int line = 1;
  int column = 1;
};

/// How a token reads in an error message: "'{'", "identifier 'add'", "end of input".
std::string DescribeToken(const Token& token);

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}
  Token Next();

 private:
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  char Advance();
  void SkipSpaceAndComments();
  Token LexNumber(Token token);
  Token LexString(Token token);

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_LEXER_H_
