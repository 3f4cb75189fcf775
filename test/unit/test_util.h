//===- test_util.h - Shared helpers of the unit tests ---------------------===//
//
// Reading the NumPy fixtures (test/fixtures/make_fixtures.py), building tensors, and comparing
// an interpreter result with NumPy's within a named tolerance.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_TEST_UNIT_TEST_UTIL_H_
#define GPUC_TEST_UNIT_TEST_UTIL_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace gpuc::test {

/// n doubles drawn uniformly from [-1, 1) by std::mt19937(seed): fresh, reproducible inputs.
std::vector<double> UniformDoubles(int64_t n, uint32_t seed);

/// The message of the gpuc::Error `body` throws, or "" when it throws none.
std::string ErrorOf(const std::function<void()>& body);

/// A path in the source tree. GPUC_SOURCE_DIR in the environment overrides the build's source
/// directory, for a test binary moved to another machine (the GPU machine).
std::string SourcePath(const std::string& relative);

/// Parses test/fixtures/NAME.
nlohmann::json LoadFixture(const std::string& name);

/// A tensor from the fixture encoding {"dtype", "shape", "data"} (floats as C99 hex strings).
ir::HostTensor TensorFromJson(const nlohmann::json& json);

/// A tensor of `dtype` holding `values` (converted with gpuc's cast semantics), 1-D unless
/// `shape` is given.
ir::HostTensor MakeTensor(ir::DType dtype, const std::vector<double>& values,
                          std::optional<std::vector<int64_t>> shape = std::nullopt);

/// A random `rows` x `cols` CSR structure (about `per_row` sorted, distinct columns a row,
/// some rows empty) as .gir-ready host tensors: values of `dtype` in [-1, 1], column indices
/// and row offsets of `index`.
std::vector<ir::HostTensor> RandomCsr(int64_t rows, int64_t cols, int per_row, ir::DType dtype,
                                      ir::DType index, uint64_t seed);

/// How many random graphs a differential suite checks: GPUC_DIFFERENTIAL_GRAPHS, else 300.
int DifferentialGraphCount();

/// The differential suites' relative tolerance for a result of `dtype` (integers and bools
/// are always exact): a few units in the last place, for sums whose order differs between
/// the interpreter and generated code.
std::string DifferentialTolerance(ir::DType dtype);
/// The same for a result of `graph`: looser for f32/f64 (and complex) results when the graph
/// has an f32 or complex64 matmul, which the host computes with the BLAS's blocked fused
/// multiply-adds (errors scale with the sum of |a||b|, not with the result).
std::string DifferentialTolerance(const ir::Graph& graph, ir::DType dtype);

/// Empty when `actual` matches `expected` under `tolerance` ("exact", "value", "ulp4",
/// "rel1e-5", ...); otherwise a description of the first mismatches. NaN matches NaN; "exact"
/// also compares the sign of zero, "value" does not.
std::string CompareTensors(const ir::HostTensor& actual, const ir::HostTensor& expected,
                           const std::string& tolerance);

/// Parses and verifies `text`, failing the current test on error.
ir::Graph ParseVerified(const std::string& text);

/// Element `i` as a double (real part for complex).
double ElementAsDouble(const ir::HostTensor& t, int64_t i);

}  // namespace gpuc::test

#endif  // GPUC_TEST_UNIT_TEST_UTIL_H_
