//===- parser_fuzz_test.cc - Seeded mutations of the .gir corpus ----------===//
//
// Many thousands of random mutations and truncations of every .gir file in the repository must
// each give an error or a graph (and a graph must print and re-parse to the same text): never a
// crash or a hang (ctest's timeout catches a hang). The seed is fresh each run and printed;
// GPUC_FUZZ_SEED=N reproduces a run.
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "test/fuzz/gir_parse_one.h"
#include "test/unit/test_util.h"

namespace gpuc::fuzz {
namespace {

std::vector<std::string> LoadCorpus() {
  std::vector<std::string> corpus;
  for (const std::string& root : {test::SourcePath("test/lit"), test::SourcePath("examples")}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".gir") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      corpus.push_back(text.str());
    }
  }
  return corpus;
}

/// Fragments that push the parser into its corners when spliced in.
constexpr const char* kDictionary[] = {"%x",
                                       "%",
                                       "@",
                                       "f32[2,3]",
                                       "[",
                                       "]",
                                       "{",
                                       "}",
                                       "(",
                                       ")",
                                       ",",
                                       ":",
                                       "=",
                                       "->",
                                       "-",
                                       "return",
                                       "func",
                                       "nan",
                                       "-inf",
                                       "1e999",
                                       "99999999999999999999",
                                       "-9223372036854775808",
                                       "{axes = [0], keepdims = true}",
                                       "\"",
                                       "\\",
                                       "//",
                                       "\n",
                                       "(1.0, 2.0)",
                                       "bf16[]",
                                       "c128[0]",
                                       "reduce_sum",
                                       "concatenate",
                                       "pad",
                                       "slice",
                                       "\x00",
                                       "\xff",
                                       "0.",
                                       ".5",
                                       "1e",
                                       "-x"};

std::string Mutate(std::string text, std::mt19937_64& rng) {
  auto below = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int s = 0; s < steps; ++s) {
    size_t at = below(text.size() + 1);
    switch (rng() % 6) {
      case 0:  // replace one byte with anything
        if (!text.empty()) text[below(text.size())] = static_cast<char>(rng());
        break;
      case 1:  // delete a range
        text.erase(at, below(16) + 1);
        break;
      case 2:  // duplicate a range
        if (at < text.size()) text.insert(at, text.substr(at, below(32) + 1));
        break;
      case 3: {  // splice in a dictionary fragment
        const char* word = kDictionary[below(std::size(kDictionary))];
        text.insert(at, word[0] ? word : std::string(1, '\0'));
        break;
      }
      case 4:  // truncate
        text.resize(at);
        break;
      case 5:  // swap two bytes
        if (text.size() > 1) std::swap(text[below(text.size())], text[below(text.size())]);
        break;
    }
  }
  return text;
}

TEST(ParserFuzz, MutatedCorpusNeverCrashesOrBreaksRoundTrip) {
  std::vector<std::string> corpus = LoadCorpus();
  ASSERT_GE(corpus.size(), 5u) << "the .gir corpus is missing";
  uint64_t seed =
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  if (const char* fixed = std::getenv("GPUC_FUZZ_SEED")) seed = std::strtoull(fixed, nullptr, 10);
  std::cout << "parser fuzz seed: " << seed << " (GPUC_FUZZ_SEED to reproduce)\n";
  std::mt19937_64 rng(seed);
  constexpr int kMutations = 100000;
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < kMutations; ++i) {
    std::string input = Mutate(corpus[rng() % corpus.size()], rng);
    std::string failure;
    ParseOutcome outcome =
        ParseOne(reinterpret_cast<const uint8_t*>(input.data()), input.size(), failure);
    ASSERT_EQ(failure, "") << "seed " << seed << ", mutation " << i << ", input:\n" << input;
    ++counts[static_cast<int>(outcome)];
  }
  // The mutations must reach all three outcomes, or the test is not testing much.
  EXPECT_GT(counts[0], 0);
  EXPECT_GT(counts[1] + counts[2], 0);
  std::cout << "parse errors " << counts[0] << ", verify errors " << counts[1] << ", valid "
            << counts[2] << "\n";
}

TEST(ParserFuzz, CorpusFilesAreValidAndRoundTrip) {
  for (const std::string& text : LoadCorpus()) {
    std::string failure;
    ParseOutcome outcome =
        ParseOne(reinterpret_cast<const uint8_t*>(text.data()), text.size(), failure);
    EXPECT_EQ(failure, "");
    // Some lit files are error tests on purpose; they must fail to parse or verify, not crash.
    (void)outcome;
  }
}

}  // namespace
}  // namespace gpuc::fuzz
