//===- host_fft_test.cc - fft nodes on the host against the direct DFT ----===//
//
// The host executor's FFT (lib/backend/host/host_fft.h: radix-2 for powers of two, Bluestein
// otherwise) against the interpreter's O(n^2) DFT: lengths 1 to 1000 (primes, powers of two and
// neither), both precisions, several axes at once, the inverse and every normalization.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "test/unit/host_check.h"

namespace gpuc {
namespace {

void CheckFft(const std::string& type, const std::string& attrs, const std::string& tolerance,
              uint64_t seed, const std::string& result_type = "") {
  const std::string out = result_type.empty() ? type : result_type;
  const std::string text = absl::StrCat("func @f(%a: ", type, ") -> (", out, ") {\n  %r = fft %a {",
                                        attrs, "} : ", out, "\n  return %r\n}\n");
  test::ExpectHostMatchesInterpreter(text, seed, tolerance);
}

TEST(HostFftTest, EveryLengthAgreesWithTheDirectDft) {
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 64, 100, 127, 128, 243, 1000}) {
    CheckFft(absl::StrCat("c128[3,", n, "]"), "axes = [1]", "rel1e-11", n);
    CheckFft(absl::StrCat("c64[2,", n, "]"), "axes = [1]", "rel2e-5", n + 1);
  }
}

TEST(HostFftTest, SeveralAxesInversesAndNormalizations) {
  CheckFft("c128[6,10]", "axes = [0, 1]", "rel1e-12", 1);
  CheckFft("c128[5,8,3]", "axes = [0, 2], inverse = true", "rel1e-12", 2);
  for (const char* norm : {"backward", "ortho", "forward"}) {
    CheckFft("c128[4,9]", absl::StrCat("axes = [1], norm = \"", norm, "\""), "rel1e-12", 3);
    CheckFft("c128[4,9]", absl::StrCat("axes = [1], inverse = true, norm = \"", norm, "\""),
             "rel1e-12", 4);
  }
  CheckFft("c64[0,4]", "axes = [0]", "exact", 5);  // an empty axis: nothing to transform
}

// Real-to-complex keeps n / 2 + 1 frequencies of the highest axis; complex-to-real rebuilds
// the rest by Hermitian symmetry (the random input is not Hermitian: the imaginary parts of
// its zero and Nyquist frequencies must be ignored the same way by both).
TEST(HostFftTest, RealToComplexAndBack) {
  for (int64_t n : {1, 2, 7, 8, 17, 64, 100}) {
    CheckFft(absl::StrCat("f64[3,", n, "]"), "axes = [1], kind = \"r2c\"", "rel1e-11", n,
             absl::StrCat("c128[3,", n / 2 + 1, "]"));
    CheckFft(absl::StrCat("c128[3,", n / 2 + 1, "]"),
             absl::StrCat("axes = [1], inverse = true, kind = \"c2r\", n = ", n), "rel1e-11", n,
             absl::StrCat("f64[3,", n, "]"));
  }
  CheckFft("f32[6,5,4]", "axes = [0, 1], kind = \"r2c\", norm = \"ortho\"", "rel2e-5", 7,
           "c64[6,3,4]");
  CheckFft("c64[6,3,4]", "axes = [0, 1], inverse = true, kind = \"c2r\", n = 5", "rel2e-5", 8,
           "f32[6,5,4]");
  CheckFft("c128[5,4]", "axes = [0], inverse = true, kind = \"c2r\", n = 8, norm = \"forward\"",
           "rel1e-11", 9, "f64[8,4]");
}

}  // namespace
}  // namespace gpuc
