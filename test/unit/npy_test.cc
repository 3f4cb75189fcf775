//===- npy_test.cc - .npy reading and writing -----------------------------===//
#include "ir/npy.h"

#include <gtest/gtest.h>

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
