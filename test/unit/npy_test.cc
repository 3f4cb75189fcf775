//===- npy_test.cc - .npy reading and writing -----------------------------===//
#include "ir/npy.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "test/unit/test_util.h"

namespace gpuc::ir {
namespace {

TEST(Npy, RoundTripsEveryNumpyDType) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    HostTensor t = test::MakeTensor(d, {1, 0, -3, 2.5, 7, 1, 0, 4, 9, -1, 3, 2},
                                    std::vector<int64_t>{2, 3, 2});
    absl::StatusOr<std::string> bytes = SerializeNpy(t);
    if (d == DType::kBFloat16) {
      EXPECT_FALSE(bytes.ok());
      continue;
    }
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ((bytes->size() - t.size_in_bytes()) % 64, 0u) << "data is 64-byte aligned";
    absl::StatusOr<HostTensor> back = ParseNpy(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(test::CompareTensors(*back, t, "exact"), "") << DTypeName(d);
  }
}

TEST(Npy, ReadsFortranOrder) {
  // np.asfortranarray(np.arange(6, dtype='<i4').reshape(2, 3)) as numpy writes it.
  std::string header = "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  bytes += header;
  for (int32_t v : {0, 3, 1, 4, 2, 5}) bytes.append(reinterpret_cast<const char*>(&v), 4);
  absl::StatusOr<HostTensor> t = ParseNpy(bytes);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(test::ElementAsDouble(*t, i), i);
}

/// A version-1 .npy file with `header_dict` (padded as NumPy pads it) and `data`.
std::string NpyBytes(std::string header_dict, const std::string& data) {
  header_dict.append((64 - (10 + header_dict.size() + 1) % 64) % 64, ' ');
  header_dict += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header_dict.size() & 0xff);
  bytes += static_cast<char>(header_dict.size() >> 8);
  return bytes + header_dict + data;
}

TEST(Npy, RejectsHeadersThatAreNotNumpys) {
  const std::string four(16, '\1');
  EXPECT_TRUE(
      ParseNpy(NpyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", four)).ok());
  EXPECT_TRUE(
      ParseNpy(NpyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", four)).ok());
  EXPECT_TRUE(
      ParseNpy(NpyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", four)).ok());
  // fortran_order must be a bool (it was read as False whatever it said).
  absl::StatusOr<HostTensor> order =
      ParseNpy(NpyBytes("{'descr': '<i4', 'fortran_order': 1, 'shape': (4,), }", four));
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("fortran_order"), absl::string_view::npos);
  // Empty dimensions are not a tuple (they were skipped: (2,,2) read as (2, 2)).
  for (const char* shape : {"(2,,2)", "(,)", "(,2)", "(2,3,,)"}) {
    absl::StatusOr<HostTensor> t = ParseNpy(NpyBytes(
        absl::StrCat("{'descr': '<i4', 'fortran_order': False, 'shape': ", shape, ", }"), four));
    EXPECT_FALSE(t.ok()) << shape;
  }
  // A header promising 8 TiB is an error naming both sizes, before any allocation.
  absl::StatusOr<HostTensor> huge = ParseNpy(
      NpyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", four));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("the header promises 8796093022208"),
            absl::string_view::npos)
      << huge.status();
}

TEST(Npy, RejectsMalformedFiles) {
  EXPECT_FALSE(ParseNpy("").ok());
  EXPECT_FALSE(ParseNpy("\x93NUMPY\x01\x00\xff\xff").ok());
  std::string big_endian = "\x93NUMPY\x01\x00";
  big_endian += std::string("\x3a\x00", 2);
  big_endian += "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }      \n";
  EXPECT_FALSE(ParseNpy(big_endian).ok());
}

}  // namespace
}  // namespace gpuc::ir
