// Each kind of bad input to the Array API gets a gpuc::Error whose message names the op, the
// shapes and dtypes involved and the line that recorded it; afterwards the process and every
// other array are still usable.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "gpuc/gpuc.h"
#include "gtest/gtest.h"

namespace gpuc {
namespace {

// Runs `fn`, which must throw gpuc::Error with a message containing every one of `parts`.
void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& parts,
                 const std::string& kind = "invalid_argument") {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning " << parts[0];
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.kind(), kind) << message;
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

class ApiErrors : public ::testing::Test {
 protected:
  // Bystanders: arrays recorded before the error, pending and evaluated, that must survive it.
  Array pending_ = arange(6).reshape({2, 3}) * 2;
  Array evaluated_ = linspace(0.0, 1.0, 3).eval();

  void TearDown() override {
    EXPECT_EQ(pending_.to_host<int64_t>(), (std::vector<int64_t>{0, 2, 4, 6, 8, 10}));
    EXPECT_EQ(sum(evaluated_).item<double>(), 1.5);
    EXPECT_EQ((evaluated_ + 1).to_host<double>(), (std::vector<double>{1.0, 1.5, 2.0}));
  }
};

const Array f32_2x3 = ones({2, 3}, float32);

TEST_F(ApiErrors, ShapesThatDoNotBroadcast) {
  ExpectError([] { (void)(f32_2x3 + ones({4}, int32)); },  // a + b names both operands
              {"add", "f32[2,3]", "i32[4]", "api_errors_test.cc"});
  ExpectError([] { (void)where(ones({2}, bool_), f32_2x3, 0); }, {"where", "[2]", "[2,3]"});
  ExpectError([] { (void)broadcast_to(f32_2x3, {3, 3}); }, {"broadcast_to", "[2,3]", "[3,3]"});
}

TEST_F(ApiErrors, CreationEdgesAsNumpyRejectsThem) {
  // NumPy: "arange: cannot compute length" (before: an empty array, or an undefined cast).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  ExpectError([&] { (void)arange(0.0, nan); }, {"arange", "cannot compute the length", "NaN"});
  ExpectError([&] { (void)arange(0.0, inf); }, {"arange", "infinite"});
  ExpectError([&] { (void)arange(nan, 5.0, 1.0); }, {"arange"});
  EXPECT_EQ(arange(0.0, 5.0, inf).to_host<double>(), (std::vector<double>{0.0}));
  EXPECT_EQ(arange(0.0, 5.0, -inf).size(), 0);
  // NumPy: "scale < 0" (before: the draws' sign flipped silently).
  ExpectError([] { (void)random::normal({3}, 0.0, -1.0); }, {"random::normal", "-1"});
  ExpectError([&] { (void)random::normal({3}, 0.0, nan); }, {"random::normal"});
  EXPECT_EQ(random::normal({3}, 2.0, 0.0).to_host<double>(), (std::vector<double>{2, 2, 2}));
}

TEST_F(ApiErrors, SlicesWithExtremeStepsSelectAsPythonDoes) {
  // Python: list(range(10))[2::sys.maxsize] == [2], [::-sys.maxsize - 1] == [9]; these steps
  // overflowed the length arithmetic.
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  Array a = arange(10);
  EXPECT_EQ(a(Slice(2, none, max)).to_host<int64_t>(), (std::vector<int64_t>{2}));
  EXPECT_EQ(a(Slice(none, none, min)).to_host<int64_t>(), (std::vector<int64_t>{9}));
  EXPECT_EQ(a(Slice(none, none, -max)).to_host<int64_t>(), (std::vector<int64_t>{9}));
  EXPECT_EQ(a(Slice(7, 1, min)).to_host<int64_t>(), (std::vector<int64_t>{7}));
  EXPECT_EQ(a(Slice(1, 7, min)).size(), 0);
  Array b = arange(5);
  b(Slice(none, none, max)) = 40;
  EXPECT_EQ(b.to_host<int64_t>(), (std::vector<int64_t>{40, 1, 2, 3, 4}));
}

TEST_F(ApiErrors, ExhaustedMemoryIsAnErrorAndTheProcessGoesOn) {
  // 2^45 doubles (256 TiB) and 2^35 (256 GiB) fit no machine this runs on (an H200 holds
  // 139 GiB); both threw std::bad_alloc out of the API.
  ExpectError([] { (void)zeros({int64_t{1} << 45}, float64).eval(); }, {"out of", "memory"},
              "resource_exhausted");
  ExpectError([] { (void)(empty({int64_t{1} << 35}) * 2).eval(); }, {"out of", "memory"},
              "resource_exhausted");
  EXPECT_EQ(sum(ones({1000})).item<double>(), 1000.0) << "evaluation still works";
}

TEST_F(ApiErrors, ProductsOfShapesThatDoNotFit) {
  ExpectError([] { (void)matmul(f32_2x3, f32_2x3); },
              {"matmul", "f32[2,3]", "(3 vs 2)", "api_errors_test.cc"});
  ExpectError([] { (void)matmul(f32_2x3, full({}, 2.0)); }, {"matmul", "rank >= 1"});
  ExpectError(
      [] {
        (void)tensordot(f32_2x3, ones({4, 2}), {1}, {0});
      },
      {"tensordot", "axis 1 of f32[2,3]", "axis 0 of f64[4,2]"});
  ExpectError([] { (void)tensordot(f32_2x3, f32_2x3, 3); }, {"tensordot", "3 axes"});
  ExpectError([] { (void)trace(ones({4})); }, {"trace", "f64[4]", "fewer than 2 axes"});
  ExpectError([] { (void)vdot(ones({4}, complex64), ones({5}, complex64)); },
              {"vdot", "c64[4]", "c64[5]", "different sizes"});
  ExpectError([] { (void)dot(ones({2, 3, 4}), ones({5, 2})); }, {"tensordot", "[2,3,4]"});
}

TEST_F(ApiErrors, EinsumSubscriptsThatDoNotFit) {
  ExpectError([] { (void)einsum("ij,jk->ik", {f32_2x3}); },
              {"einsum(\"ij,jk->ik\")", "2 terms for 1 operands"});
  ExpectError([] { (void)einsum("ijk->i", {f32_2x3}); },
              {"term 'ijk' has 3 labels for operand 0 f32[2,3]"});
  ExpectError(
      [] {
        (void)einsum("ij,jk->ik", {f32_2x3, ones({2, 4})});
      },
      {"label 'j' is 3 and 2 long (operand 1 f64[2,4])"});
  ExpectError([] { (void)einsum("ii->i", {f32_2x3}); },
              {"einsum(\"ii->i\")", "label 'i' repeats with extents 2 and 3"});
  ExpectError([] { (void)einsum("ij->iq", {f32_2x3}); }, {"output label 'q' is in no input"});
  ExpectError([] { (void)einsum("...j->j", {f32_2x3}); },
              {"the output has no '...' for the axes an input's ellipsis covers"});
  ExpectError(
      [] {
        (void)einsum("...i,...i->...", {ones({2, 3}), ones({4, 3})});
      },
      {"the ellipsis axes of operand 1 f64[4,3] do not broadcast with the others"});
  ExpectError([] { (void)einsum("i1->i", {f32_2x3}); }, {"'1' in term 'i1' is not a letter"});
  ExpectError([] { (void)einsum("i.j->i", {f32_2x3}); }, {"'.' in term 'i.j' is not a letter"});
}

TEST_F(ApiErrors, TransformsOfBadSizesNormsOrTypes) {
  ExpectError([] { (void)fft::fft(f32_2x3, 0); },
              {"fft", "invalid number of data points (0)", "f32[2,3]"});
  ExpectError([] { (void)fft::fft(f32_2x3, std::nullopt, -1, "unitary"); }, {"fft", "\"unitary\""});
  ExpectError([] { (void)fft::rfft(ones({4}, complex128)); }, {"rfft", "c128[4]", "real input"});
  ExpectError([] { (void)fft::fft(full({}, 1.0)); }, {"fft", "f64[]", "no axis"});
  ExpectError([] { (void)fft::fftn(f32_2x3, {4, 4, 4}); }, {"fftn", "3 sizes"});
  ExpectError([] { (void)fft::fftfreq(0); }, {"fftfreq", "positive"});
}

TEST_F(ApiErrors, DtypesAnOpDoesNotTake) {
  ExpectError([] { (void)(f32_2x3 & f32_2x3); }, {"bitwise_and", "f32", "api_errors_test.cc"});
  EXPECT_EQ(exp(ones({2}, bool_)).dtype(), float16);  // not an error: NumPy computes in f16
  ExpectError([] { (void)positive(ones({2}, bool_)); }, {"positive", "bool"});
  ExpectError([] { (void)(ones({2}, float64) << 1); }, {"f64"});
}

TEST_F(ApiErrors, WeakScalarsOutOfTheArraysRange) {
  ExpectError([] { (void)(ones({2}, uint8) + 300); },
              {"add", "300", "uint8", "api_errors_test.cc"});
  ExpectError([] { (void)(ones({2}, int8) * -129); }, {"-129", "int8"});
  // In gpuc's words, not Python's (it said "Python integer ... out of bounds").
  const uint64_t huge = std::numeric_limits<uint64_t>::max();
  try {
    (void)(ones({2}, int64) + huge);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("integer scalar 18446744073709551615 is out of bounds "
                                         "for int64"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find("Python"), std::string::npos) << e.what();
  }
  Array u8 = ones({2}, uint8);
  ExpectError([&] { u8(0) = huge; }, {"integer scalar 18446744073709551615", "uint8"});
}

TEST_F(ApiErrors, CompoundAssignmentThatWouldNeedAnUnsafeCast) {
  Array counts = ones({3}, int32);
  ExpectError([&] { counts /= 2; }, {"/=", "float64", "int32", "same_kind"});
  ExpectError([&] { counts += ones({2, 3}, int32); }, {"+=", "[2,3]", "[3]"});
  EXPECT_EQ(counts.to_host<int32_t>(), (std::vector<int32_t>{1, 1, 1}));  // left as it was
}

TEST_F(ApiErrors, AxesOutOfRangeOrRepeated) {
  ExpectError([] { (void)sum(f32_2x3, 2); }, {"sum", "axis 2", "2"});
  ExpectError([] { (void)mean(f32_2x3, {-3}); }, {"mean", "-3"});
  ExpectError([] { (void)max(f32_2x3, {1, -1}); }, {"max", "repeated axis"});
  ExpectError([] { (void)argmax(f32_2x3, 2); }, {"argmax", "axis 2"});
  ExpectError([] { (void)cumsum(f32_2x3, -3); }, {"cumsum", "-3"});
  ExpectError([] { (void)swapaxes(f32_2x3, 0, 2); }, {"swapaxes", "2"});
  ExpectError([] { (void)squeeze(f32_2x3, {0}); }, {"squeeze", "[2,3]"});
  ExpectError([] { (void)transpose(f32_2x3, {0, 0}); }, {"transpose"});
}

TEST_F(ApiErrors, ReshapesThatChangeTheSize) {
  ExpectError([] { (void)reshape(f32_2x3, {4}); }, {"reshape", "[2,3]", "[4]"});
  ExpectError([] { (void)reshape(f32_2x3, {-1, -1}); }, {"reshape", "-1"});
  ExpectError([] { (void)reshape(f32_2x3, {4, -1}); }, {"reshape", "size 6", "[4,-1]"});
}

TEST_F(ApiErrors, IndexingPastTheEnds) {
  ExpectError([] { (void)f32_2x3(2); }, {"index", "2 is out of bounds", "size 2"});
  ExpectError([] { (void)f32_2x3(0, -4); }, {"index", "-4 is out of bounds", "size 3"});
  ExpectError([] { (void)f32_2x3(Slice(none, none, 0)); }, {"slice step", "is 0"});
  ExpectError([] { (void)f32_2x3(0, 0, 0); }, {"too many indices", "2"});
  ExpectError([] { (void)f32_2x3(ellipsis, ellipsis); }, {"ellipsis"});
}

TEST_F(ApiErrors, TakeChecksItsIndicesWhenEvaluatedAndNamesTheRecordingLine) {
  Array picked = take(f32_2x3, array<int64_t>({0, 7}), 1);  // recorded here, fails on read
  const int recorded_line = __LINE__ - 1;
  ExpectError([&] { (void)picked.to_host<float>(); },
              {"take", "index 7", "size 3", "f32[2,3]",
               "api_errors_test.cc:" + std::to_string(recorded_line)},
              "out_of_range");
  ExpectError([&] { (void)picked.to_host<float>(); }, {"take"}, "out_of_range");  // again
  EXPECT_EQ(take(f32_2x3, array<int64_t>({0, -1}), 1).to_host<float>(),
            (std::vector<float>{1, 1, 1, 1}));
  ExpectError([] { (void)take(f32_2x3, ones({2}, float32), 0); }, {"take", "f32"});
}

TEST_F(ApiErrors, ConcatenateAndStackNeedMatchingShapes) {
  ExpectError([] { (void)concatenate({f32_2x3, ones({2, 2, 1})}, 0); }, {"concatenate"});
  ExpectError(
      [] {
        (void)concatenate({f32_2x3, ones({3, 2})}, 0);
      },
      {"concatenate", "[2,3]", "[3,2]"});
  ExpectError([] { (void)concatenate({}, 0); }, {"concatenate", "at least one"});
  ExpectError([] { (void)stack({f32_2x3, ones({3, 2})}); }, {"stack", "[2,3]", "[3,2]"});
  ExpectError([] { (void)stack({f32_2x3}, 3); }, {"stack", "3"});
}

TEST_F(ApiErrors, CreationArgumentsOutOfRange) {
  ExpectError([] { (void)ones({2, -1}); }, {"-1"});
  ExpectError([] { (void)arange(0, 5, 0); }, {"arange", "step"});
  ExpectError([] { (void)eye(-2); }, {"eye", "-2"});
  ExpectError([] { (void)linspace(0.0, 1.0, -1); }, {"linspace", "-1"});
  ExpectError([] { (void)tile(f32_2x3, {-1}); }, {"tile", "-1"});
  ExpectError([] { (void)repeat(f32_2x3, -2); }, {"repeat", "-2"});
  ExpectError([] { (void)pad(f32_2x3, {{1, 1}, {0, 0}, {2, 2}}); }, {"pad", "3", "[2,3]"});
  ExpectError([] { (void)random::integers(5, 5, {3}); }, {"integers", "5"});
  std::vector<float> three = {1, 2, 3};
  ExpectError([&] { (void)array(three, Shape{2, 2}); }, {"3", "[2,2]"});
}

TEST_F(ApiErrors, ReadsIntoTheWrongPlace) {
  ExpectError([] { (void)f32_2x3.item<float>(); }, {"item", "[2,3]"});
  float small[2];
  ExpectError([&] { f32_2x3.copy_to(small, sizeof(small)); }, {"copy_to", "24", "8"});
  ExpectError([] { (void)Array().dtype(); }, {"empty"});
}

TEST_F(ApiErrors, FilesThatAreMissingOrNotNpy) {
  ExpectError([] { (void)load("/nonexistent/gpuc/x.npy"); }, {"load", "/nonexistent/gpuc/x.npy"},
              "not_found");
  const std::string path = ::testing::TempDir() + "gpuc_not_npy.npy";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("this is not a NumPy file", f);
  std::fclose(f);
  ExpectError([&] { (void)load(path); }, {"load", path});
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gpuc
