//===- gir_parser_fuzzer.cc - libFuzzer entry point for the .gir parser ---===//
//
// Build with clang: clang++ -fsanitize=fuzzer,address ... gir_parser_fuzzer.cc gir_parse_one.cc
// (docs/testing.md). Aborts on a broken property so libFuzzer records the input.
//
//===----------------------------------------------------------------------===//
#include <cstdio>
#include <cstdlib>

#include "test/fuzz/gir_parse_one.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string failure;
  gpuc::fuzz::ParseOne(data, size, failure);
  if (!failure.empty()) {
    std::fprintf(stderr, "%s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
