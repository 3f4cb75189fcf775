//===- gir_parse_one.h - One parser fuzzing step --------------------------===//
//
// What a fuzzer does with one input: parse it; if it parses, verify it; if it verifies, print it
// and check that the text parses back to the same print. Shared by the seeded mutation test
// (test/unit/parser_fuzz_test.cc) and a libFuzzer entry point (gir_parser_fuzzer.cc).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_TEST_FUZZ_GIR_PARSE_ONE_H_
#define GPUC_TEST_FUZZ_GIR_PARSE_ONE_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpuc::fuzz {

enum class ParseOutcome { kParseError, kVerifyError, kValid };

/// Returns the outcome, or sets `failure` (non-empty) when a property is broken.
ParseOutcome ParseOne(const uint8_t* data, size_t size, std::string& failure);

}  // namespace gpuc::fuzz

#endif  // GPUC_TEST_FUZZ_GIR_PARSE_ONE_H_
