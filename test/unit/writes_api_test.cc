//===- writes_api_test.cc - a(i...) = v, a(i...) op= v and a.at(i...) -----===//
//
// The values themselves are checked against NumPy in api_fixtures_test.cc (the write_* cases);
// here: gpuc's value semantics around writes (views and handle copies keep the old values),
// and the errors, each naming the op, the shapes or the dtypes, leaving every array usable.
//
//===----------------------------------------------------------------------===//
#include <utility>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "gpuc/gpuc.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

using test::ErrorOf;

std::vector<double> Values(const Array& a) { return a.to_host<double>(); }

TEST(Writes, ViewsAndHandleCopiesTakenBeforeAWriteKeepTheOldValues) {
  Array a = arange(6.0);
  Array view = a(Slice(0, 3));
  Array copy = a;
  a(Slice(1, 3)) = -1.0;
  EXPECT_EQ(Values(a), (std::vector<double>{0, -1, -1, 3, 4, 5}));
  EXPECT_EQ(Values(view), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(Values(copy), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(Writes, WritingIntoAViewChangesTheViewOnly) {
  Array a = arange(4.0);
  Array row = a(Slice(1, none));
  row(0) = 9.0;
  EXPECT_EQ(Values(row), (std::vector<double>{9, 2, 3}));
  EXPECT_EQ(Values(a), (std::vector<double>{0, 1, 2, 3}));
}

TEST(Writes, TheFunctionalFormLeavesTheArrayAsItIs) {
  Array a = arange(4, 8);
  Array b = a.at(Slice(none, none, 2)).add(10);
  EXPECT_EQ(Values(b), (std::vector<double>{14, 5, 16, 7}));
  EXPECT_EQ(Values(a), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(Values(a.at(-1).get()), (std::vector<double>{7}));
  EXPECT_EQ(b.dtype(), int64);
}

TEST(Writes, CompoundAssignmentThroughASubscriptWrites) {
  Array a = ones({2, 3}, float32);
  a(1) *= 4;
  a(colon, 0) -= 0.5;
  a(0, 2) /= 2;
  EXPECT_EQ(Values(a), (std::vector<double>{0.5, 1, 0.5, 3.5, 4, 4}));
  EXPECT_EQ(a.dtype(), float32);
}

TEST(Writes, AssigningToATemporaryIsAnError) {
  Array a = arange(3.0);
  const std::string message = ErrorOf([&] { (a + 1) = 2.0; });
  EXPECT_TRUE(absl::StrContains(message, "assigning to a temporary array changes nothing"))
      << message;
  const Array& constant = a;
  EXPECT_TRUE(absl::StrContains(ErrorOf([&] { constant(0) = 5.0; }), "temporary"));
  EXPECT_TRUE(absl::StrContains(ErrorOf([&] { a(Slice(0, 2))(0) = 5.0; }), "temporary"));
  EXPECT_EQ(Values(a), (std::vector<double>{0, 1, 2}));
}

TEST(Writes, AValueThatDoesNotBroadcastNamesBothShapes) {
  Array a = zeros({3, 4});
  const std::string message = ErrorOf([&] { a(Slice(0, 2)) = arange(3.0); });
  EXPECT_TRUE(absl::StrContains(message,
                                "set: could not broadcast input array from shape (3,) "
                                "into shape (2,4)"))
      << message;
  EXPECT_EQ(Values(sum(a)), (std::vector<double>{0}));
}

TEST(Writes, IntegerScalarsMustFitAndCombinersCastSameKind) {
  Array u = arange(3).astype(uint8);
  std::string message = ErrorOf([&] { u(0) = 256; });
  EXPECT_TRUE(absl::StrContains(message, "set: integer scalar 256 is out of bounds for uint8"))
      << message;
  u(0) = 255;
  EXPECT_EQ(Values(u), (std::vector<double>{255, 1, 2}));
  Array i = arange(3);
  message = ErrorOf([&] { i(Slice(1, none)) += 0.5; });
  EXPECT_TRUE(absl::StrContains(message,
                                "cannot cast the result from float64 to int64 with "
                                "casting rule 'same_kind'"))
      << message;
  i(0) = 2.9;  // setitem casts unsafely, as NumPy's does
  EXPECT_EQ(Values(i), (std::vector<double>{2, 1, 2}));
}

TEST(Writes, BadSubscriptsNameTheOpAndTheShape) {
  Array a = zeros({2, 3});
  EXPECT_TRUE(absl::StrContains(ErrorOf([&] { a(5) = 1.0; }),
                                "index: index 5 is out of bounds for axis 0 with size 2"));
  EXPECT_TRUE(absl::StrContains(ErrorOf([&] { a.at(0, 0, 0).set(1.0); }),
                                "set: too many indices for an array of shape [2,3]"));
  EXPECT_TRUE(absl::StrContains(ErrorOf([&] { a(Slice(none, none, 0)) = 1.0; }),
                                "slice step of axis 0 is 0"));
  const std::string message = ErrorOf([&] { a.at(0).add(ones({2, 3})); });
  EXPECT_TRUE(absl::StrContains(message,
                                "add: non-broadcastable output operand with shape (3,) "
                                "doesn't match the broadcast shape (2,3)"))
      << message;
  a(1, 1) = 4.0;
  EXPECT_EQ(Values(a), (std::vector<double>{0, 0, 0, 0, 4, 0}));
}

TEST(Writes, ATimeStepLoopOfWritesMatchesTheSameLoopOnTheHost) {
  // Explicit 1-D heat steps with fixed ends, 20 steps recorded lazily (the pending graph is
  // cut at the depth limit by itself), against the same loop in plain C++.
  std::vector<double> expected(64);
  for (size_t k = 0; k < expected.size(); ++k) expected[k] = (k % 7) * 0.25 - 0.5;
  Array u = array(expected);
  for (int t = 0; t < 20; ++t) {
    std::vector<double> next = expected;
    for (size_t k = 1; k + 1 < next.size(); ++k) {
      next[k] = expected[k] + 0.25 * (expected[k - 1] - 2 * expected[k] + expected[k + 1]);
    }
    expected = next;
    u(Slice(1, -1)) =
        u(Slice(1, -1)) + 0.25 * (u(Slice(none, -2)) - 2.0 * u(Slice(1, -1)) + u(Slice(2, none)));
  }
  const std::vector<double> got = Values(u);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], expected[k], 1e-12) << k;
}

}  // namespace
}  // namespace gpuc
