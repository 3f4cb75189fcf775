//===- gir_parse_one.cc - One parser fuzzing step -------------------------===//
#include "test/fuzz/gir_parse_one.h"

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace gpuc::fuzz {

ParseOutcome ParseOne(const uint8_t* data, size_t size, std::string& failure) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ir::Graph> graph = ir::Parse(text);
  if (!graph.ok()) {
    if (graph.status().message().empty()) failure = "parse error without a message";
    return ParseOutcome::kParseError;
  }
  // Printing must work on anything the parser accepts, verified or not.
  std::string printed = ir::Print(*graph);
  absl::StatusOr<ir::Graph> reparsed = ir::Parse(printed);
  if (!reparsed.ok()) {
    failure =
        "printed text does not parse: " + std::string(reparsed.status().message()) + "\n" + printed;
    return ParseOutcome::kParseError;
  }
  if (ir::Print(*reparsed) != printed) failure = "print(parse(print(g))) != print(g):\n" + printed;
  if (!ir::Verify(*graph).ok()) return ParseOutcome::kVerifyError;
  return ParseOutcome::kValid;
}

}  // namespace gpuc::fuzz
