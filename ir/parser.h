//===- parser.h - The textual IR (.gir) reader ----------------------------===//
//
// Parse() reads the text that ir/printer.h writes (grammar in docs/ir.md). It checks syntax and
// names (each value defined once, before use) and keeps the stated types; type rules are the
// verifier's job. Errors read "LINE:COL: expected X, got Y". No input makes it crash or hang:
// it is linear in the input and recurses nowhere.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_PARSER_H_
#define GPUC_IR_PARSER_H_

#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace gpuc::ir {

absl::StatusOr<Graph> Parse(absl::string_view text);

}  // namespace gpuc::ir

#endif  // GPUC_IR_PARSER_H_
