//===- sparse_api_test.cc - gpuc::sparse beyond the NumPy fixtures --------===//
//
// The fixtures (api_fixtures_test.cc) check products, transposes and conversions against
// SciPy. Here: every malformed matrix is rejected when it is built, with a message naming the
// problem, and the process and other arrays stay usable; products of shapes that do not fit
// name both; empty matrices and columns; duplicates summed; int64 structure; a random larger
// matrix against the dense product of its dense form; the product records one validated spmv
// node.
//
//===----------------------------------------------------------------------===//
#include <functional>
#include <string>
#include <vector>

#include "gpuc/gpuc.h"
#include "gtest/gtest.h"
#include "lib/api/array_impl.h"

namespace gpuc {
namespace {

using sparse::CsrMatrix;

void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning " << parts[0];
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.kind(), "invalid_argument") << message;
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

// [[1, 0, 2], [0, 0, 0], [0, 3, 0], [4, 0, 5]]
const std::vector<double> kData = {1, 2, 3, 4, 5};
const std::vector<int32_t> kIndices = {0, 2, 1, 0, 2};
const std::vector<int32_t> kIndptr = {0, 2, 2, 3, 5};

CsrMatrix Example() { return CsrMatrix(array(kData), array(kIndices), array(kIndptr), {4, 3}); }

TEST(SparseApi, MalformedMatricesAreRejectedWhenBuilt) {
  Array bystander = arange(4) * 3;
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(kIndices), array(kIndptr), {5, 3});
      },
      {"sparse::CsrMatrix", "indptr i32[5]", "rows + 1 = 6", "5x3"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(std::vector<int32_t>{0, 2, 1, 0}), array(kIndptr), {4, 3});
      },
      {"indices i32[4]", "data f64[5]", "differ in length"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(std::vector<int32_t>{0, 2, 3, 0, 2}), array(kIndptr), {4, 3});
      },
      {"indices[2] = 3 (row 2)", "outside [0, 3)", "4x3"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(std::vector<int32_t>{0, -1, 1, 0, 2}), array(kIndptr),
                  {4, 3});
      },
      {"indices[1] = -1 (row 0)"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(kIndices), array(std::vector<int32_t>{0, 3, 2, 3, 5}),
                  {4, 3});
      },
      {"indptr decreases at row 1 (3 then 2)"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(kIndices), array(std::vector<int32_t>{1, 2, 2, 3, 5}),
                  {4, 3});
      },
      {"indptr[0] is 1, not 0"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(kIndices), array(std::vector<int32_t>{0, 2, 2, 3, 4}),
                  {4, 3});
      },
      {"indptr ends at 4 but there are 5 entries"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), astype(array(kIndices), float32), array(kIndptr), {4, 3});
      },
      {"indices must have an integer dtype, not f32[5]"});
  ExpectError(
      [] {
        CsrMatrix(ones({5}, bool_), array(kIndices), array(kIndptr), {4, 3});
      },
      {"data must be numeric, not bool[5]"});
  ExpectError(
      [] {
        CsrMatrix(ones({5, 1}), array(kIndices), array(kIndptr), {4, 3});
      },
      {"data must be 1-D, not f64[5,1]"});
  ExpectError(
      [] {
        CsrMatrix(array(kData), array(kIndices), array(kIndptr), {4, -3});
      },
      {"negative shape 4x-3"});
  ExpectError(
      [] {
        CsrMatrix::from_coo(array(std::vector<int64_t>{0, 4}), array(std::vector<int64_t>{1, 1}),
                            ones({2}), {4, 3});
      },
      {"from_coo", "entry 1 at (4, 1) is outside a 4x3 matrix"});
  // Nothing was lost: the process and the other arrays are fine.
  EXPECT_EQ(bystander.to_host<int64_t>(), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(sparse::matmul(Example(), ones({3})).to_host<double>(),
            (std::vector<double>{3, 0, 3, 9}));
}

TEST(SparseApi, ProductsOfShapesThatDoNotFitNameBoth) {
  ExpectError([] { sparse::matmul(Example(), ones({4})); },
              {"sparse::matmul", "4x3 f64[5] matrix times f64[4]", "expects [3] or [3, k]"});
  ExpectError([] { sparse::matmul(Example(), ones({3, 2, 2})); }, {"times f64[3,2,2]"});
  ExpectError([] { sparse::matmul(Example(), scalar(1.0)); }, {"times f64[]"});
}

TEST(SparseApi, ProductsMatchTheDenseProduct) {
  const CsrMatrix a = Example();
  const Array x = array(std::vector<float>{0.5f, -2, 3});
  Array y = sparse::matmul(a, x);
  EXPECT_EQ(y.dtype(), float64);
  EXPECT_EQ(y.to_host<double>(), (std::vector<double>{6.5, 0, -6, 17}));
  const Array m = reshape(arange(6.0), {3, 2});
  EXPECT_EQ(sparse::matmul(a, m).to_host<double>(), matmul(a.to_dense(), m).to_host<double>());
  EXPECT_EQ(sparse::matmul(a, ones({3, 1})).shape(), (Shape{4, 1}));
  EXPECT_EQ(sparse::matmul(a, ones({3, 0})).shape(), (Shape{4, 0}));
  EXPECT_EQ(a.transpose().transpose().to_dense().to_host<double>(), a.to_dense().to_host<double>());
  EXPECT_EQ(a.transpose().to_dense().to_host<double>(), transpose(a.to_dense()).to_host<double>());
}

TEST(SparseApi, EmptyMatricesAndInt64Structure) {
  const CsrMatrix empty(zeros({0}), array(std::vector<int64_t>{}),
                        array(std::vector<int64_t>{0, 0, 0}), {2, 4});
  EXPECT_EQ(empty.nnz(), 0);
  EXPECT_EQ(empty.indices().dtype(), int64);
  EXPECT_EQ(sparse::matmul(empty, ones({4})).to_host<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(empty.to_dense().to_host<double>(), std::vector<double>(8, 0.0));
  const CsrMatrix no_rows(zeros({0}), array(std::vector<int32_t>{}), array(std::vector<int32_t>{0}),
                          {0, 3});
  EXPECT_EQ(sparse::matmul(no_rows, ones({3})).shape(), (Shape{0}));
  EXPECT_EQ(no_rows.transpose().shape(), (std::array<int64_t, 2>{3, 0}));
}

TEST(SparseApi, DuplicatesAreSummed) {
  // CSR with a repeated column in row 0, and COO with a repeated position.
  const CsrMatrix dup(array(std::vector<double>{1, 2, 4}), array(std::vector<int32_t>{1, 1, 0}),
                      array(std::vector<int32_t>{0, 2, 3}), {2, 2});
  EXPECT_EQ(dup.to_dense().to_host<double>(), (std::vector<double>{0, 3, 4, 0}));
  const CsrMatrix coo = CsrMatrix::from_coo(array(std::vector<int64_t>{1, 0, 1}),
                                            array(std::vector<int64_t>{0, 1, 0}),
                                            array(std::vector<float>{2, 5, 7}), {2, 2});
  EXPECT_EQ(coo.nnz(), 2);
  EXPECT_EQ(coo.dtype(), float32);
  EXPECT_EQ(coo.to_dense().to_host<float>(), (std::vector<float>{0, 5, 9, 0}));
}

TEST(SparseApi, ARandomMatrixAgreesWithItsDenseForm) {
  random::Generator rng(11);
  const int64_t rows = 300, cols = 200;
  // About 5 entries per row at random columns (sorted, distinct), random values.
  std::vector<int64_t> indptr = {0}, indices;
  std::vector<double> mask = rng.uniform({rows, cols}).to_host<double>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      if (mask[r * cols + c] < 0.025) indices.push_back(c);
    }
    indptr.push_back(static_cast<int64_t>(indices.size()));
  }
  const int64_t nnz = static_cast<int64_t>(indices.size());
  const CsrMatrix a(rng.normal({nnz}), array(indices), array(indptr), {rows, cols});
  const Array x = rng.normal({cols, 3});
  const std::vector<double> got = sparse::matmul(a, x).to_host<double>();
  const std::vector<double> want = matmul(a.to_dense(), x).to_host<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST(SparseApi, AProductRecordsOneValidatedSpmvNode) {
  const Array y = sparse::matmul(Example(), ones({3, 4}) * 2);
  // The result is a transpose of a reshape of the one spmv node.
  const ir::Node* node = detail::ImplOf(y, "test").node.get();
  while (node->op() != ir::OpCode::kSpmv) {
    ASSERT_GT(node->num_operands(), 0) << ir::OpName(node->op());
    node = &node->operand(0);
  }
  EXPECT_EQ(node->attrs().GetBool("validated", false).value_or(false), true);
  EXPECT_EQ(node->type().shape.num_elements(), 16);  // 4 copies of the 4 rows
}

}  // namespace
}  // namespace gpuc
