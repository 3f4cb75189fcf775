//===- test_util.cc - Shared helpers of the unit tests --------------------===//
#include "test/unit/test_util.h"

#include <random>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gpuc/errors.h"
#include "ir/parser.h"
#include "ir/verifier.h"
#include "ir/wide_value.h"

namespace gpuc::test {

std::string ErrorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
namespace {

double HexToDouble(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

/// Distance in units in the last place of `dtype` between two finite values.
double UlpDistance(double a, double b, ir::DType dtype) {
  int mantissa_bits = 52;
  if (dtype == ir::DType::kFloat32 || dtype == ir::DType::kComplex64) mantissa_bits = 23;
  if (dtype == ir::DType::kFloat16) mantissa_bits = 10;
  if (dtype == ir::DType::kBFloat16) mantissa_bits = 7;
  double scale = std::max(std::fabs(a), std::fabs(b));
  int exponent;
  std::frexp(scale, &exponent);
  // Below the normal range the spacing stays that of the smallest normal.
  int min_exponent = dtype == ir::DType::kFloat16 ? -13 : (mantissa_bits == 23 ? -125 : -1021);
  exponent = std::max(exponent, min_exponent);
  double ulp = std::ldexp(1.0, exponent - 1 - mantissa_bits);
  return std::fabs(a - b) / ulp;
}

bool ScalarMatches(double a, double e, ir::DType dtype, const std::string& tolerance) {
  if (std::isnan(a) || std::isnan(e)) return std::isnan(a) && std::isnan(e);
  if (std::isinf(a) || std::isinf(e)) return a == e;
  if (tolerance == "exact") return a == e && std::signbit(a) == std::signbit(e);
  if (tolerance == "value") return a == e;  // the sign of a zero result is not compared
  if (absl::StartsWith(tolerance, "ulp")) {
    double ulps = 0;
    if (!absl::SimpleAtod(tolerance.substr(3), &ulps)) ADD_FAILURE() << "bad tolerance";
    return UlpDistance(a, e, dtype) <= ulps;
  }
  if (absl::StartsWith(tolerance, "rel")) {
    double rel = 0;
    if (!absl::SimpleAtod(tolerance.substr(3), &rel)) ADD_FAILURE() << "bad tolerance";
    return std::fabs(a - e) <= rel * std::max(1.0, std::fabs(e));
  }
  ADD_FAILURE() << "unknown tolerance " << tolerance;
  return false;
}

}  // namespace

std::string SourcePath(const std::string& relative) {
  const char* dir = std::getenv("GPUC_SOURCE_DIR");
  return absl::StrCat(dir ? dir : GPUC_SOURCE_DIR, "/", relative);
}

nlohmann::json LoadFixture(const std::string& name) {
  std::ifstream in(SourcePath("test/fixtures/" + name));
  EXPECT_TRUE(in) << "missing fixture " << name;
  return nlohmann::json::parse(in);
}

ir::HostTensor TensorFromJson(const nlohmann::json& json) {
  ir::DType dtype = *ir::ParseDType(json["dtype"].get<std::string>());
  ir::HostTensor t(ir::TensorType{dtype, ir::Shape(json["shape"].get<std::vector<int64_t>>())});
  const nlohmann::json& data = json["data"];
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const nlohmann::json& v = data[i];
    ir::WideValue w;
    if (v.is_boolean()) {
      w = ir::WideValue::Bool(v.get<bool>());
    } else if (v.is_number_unsigned()) {
      w = ir::WideValue::Unsigned(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      w = ir::WideValue::Signed(v.get<int64_t>());
    } else if (v.is_array()) {
      w = ir::WideValue::Complex({HexToDouble(v[0]), HexToDouble(v[1])});
    } else {
      w = ir::WideValue::Float(HexToDouble(v.get<std::string>()));
    }
    ir::StoreElement(dtype, t.element(i), w);
  }
  return t;
}

ir::HostTensor MakeTensor(ir::DType dtype, const std::vector<double>& values,
                          std::optional<std::vector<int64_t>> shape) {
  if (!shape) shape = std::vector<int64_t>{static_cast<int64_t>(values.size())};
  ir::HostTensor t(ir::TensorType{dtype, ir::Shape(*shape)});
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    ir::StoreElement(dtype, t.element(i), ir::WideValue::Float(values[i]));
  }
  return t;
}

double ElementAsDouble(const ir::HostTensor& t, int64_t i) {
  return ir::ToDouble(ir::LoadElement(t.dtype(), t.element(i)));
}

std::string CompareTensors(const ir::HostTensor& actual, const ir::HostTensor& expected,
                           const std::string& tolerance) {
  if (!(actual.type() == expected.type())) {
    return absl::StrCat("type ", actual.type().ToString(), " != expected ",
                        expected.type().ToString());
  }
  std::string mismatches;
  int count = 0;
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    ir::WideValue a = ir::LoadElement(actual.dtype(), actual.element(i));
    ir::WideValue e = ir::LoadElement(expected.dtype(), expected.element(i));
    bool ok = false;
    std::string shown;
    switch (a.domain) {
      case ir::DTypeKind::kBool:
        ok = a.b == e.b;
        shown = absl::StrCat(a.b, " vs ", e.b);
        break;
      case ir::DTypeKind::kSigned:
        ok = a.i == e.i;
        shown = absl::StrCat(a.i, " vs ", e.i);
        break;
      case ir::DTypeKind::kUnsigned:
        ok = a.u == e.u;
        shown = absl::StrCat(a.u, " vs ", e.u);
        break;
      case ir::DTypeKind::kFloat:
        ok = ScalarMatches(a.f, e.f, actual.dtype(), tolerance);
        shown = absl::StrCat(a.f, " vs ", e.f);
        break;
      case ir::DTypeKind::kComplex:
        ok = ScalarMatches(a.c.real(), e.c.real(), actual.dtype(), tolerance) &&
             ScalarMatches(a.c.imag(), e.c.imag(), actual.dtype(), tolerance);
        shown = absl::StrCat("(", a.c.real(), ",", a.c.imag(), ") vs (", e.c.real(), ",",
                             e.c.imag(), ")");
        break;
    }
    if (!ok && count++ < 5) absl::StrAppend(&mismatches, " [", i, "] ", shown, ";");
  }
  if (count == 0) return "";
  return absl::StrCat(count, " mismatches:", mismatches);
}

ir::Graph ParseVerified(const std::string& text) {
  absl::StatusOr<ir::Graph> graph = ir::Parse(text);
  EXPECT_TRUE(graph.ok()) << graph.status() << "\n" << text;
  if (!graph.ok()) return {};
  absl::Status verified = ir::Verify(*graph);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << text;
  return *std::move(graph);
}

int DifferentialGraphCount() {
  const char* env = std::getenv("GPUC_DIFFERENTIAL_GRAPHS");
  return env ? std::atoi(env) : 300;
}

std::string DifferentialTolerance(ir::DType dtype) {
  switch (ir::RealPart(dtype)) {
    case ir::DType::kFloat16:
      return "rel4e-3";
    case ir::DType::kBFloat16:
      return "rel3e-2";
    case ir::DType::kFloat32:
      return "rel2e-6";
    default:
      return "rel1e-13";
  }
}

std::string DifferentialTolerance(const ir::Graph& graph, ir::DType dtype) {
  // Values computed from the matmul's result may be f64 (promoted later in the graph).
  const ir::DType real = ir::RealPart(dtype);
  if (real == ir::DType::kFloat32 || real == ir::DType::kFloat64) {
    for (const ir::NodeRef& n : graph.nodes) {
      if (n->op() == ir::OpCode::kMatmul && ir::RealPart(n->dtype()) == ir::DType::kFloat32) {
        return "rel2e-5";
      }
    }
  }
  return DifferentialTolerance(dtype);
}

std::vector<ir::HostTensor> RandomCsr(int64_t rows, int64_t cols, int per_row, ir::DType dtype,
                                      ir::DType index, uint64_t seed) {
  std::vector<double> offsets = {0}, columns;
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      if (static_cast<int64_t>(next() % cols) < per_row) columns.push_back(static_cast<double>(c));
    }
    offsets.push_back(static_cast<double>(columns.size()));
  }
  std::vector<double> values(columns.size());
  for (double& v : values) v = static_cast<double>(next() % 2001) / 1000.0 - 1.0;
  return {MakeTensor(dtype, values), MakeTensor(index, columns), MakeTensor(index, offsets)};
}

std::vector<double> UniformDoubles(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}

}  // namespace gpuc::test
