//===- shape_test.cc - Shapes and NumPy broadcasting ----------------------===//
#include "ir/shape.h"

#include <gtest/gtest.h>

namespace gpuc::ir {
namespace {

TEST(Shape, BroadcastValid) {
  EXPECT_EQ(*BroadcastShapes(Shape{8, 1, 6, 1}, Shape{7, 1, 5}), (Shape{8, 7, 6, 5}));
  EXPECT_EQ(*BroadcastShapes(Shape{}, Shape{3, 4}), (Shape{3, 4}));
  EXPECT_EQ(*BroadcastShapes(Shape{0, 1}, Shape{1, 5}), (Shape{0, 5}));
  EXPECT_EQ(*BroadcastShapes(Shape{1}, Shape{0}), (Shape{0}));
  std::vector<Shape> three = {Shape{2, 1}, Shape{1, 3}, Shape{3}};
  EXPECT_EQ(*BroadcastShapes(three), (Shape{2, 3}));
}

TEST(Shape, BroadcastInvalidNamesBothShapes) {
  absl::StatusOr<Shape> r = BroadcastShapes(Shape{2, 3}, Shape{4});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[2,3]"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("[4]"), std::string::npos) << r.status();
  EXPECT_FALSE(BroadcastShapes(Shape{0}, Shape{2}).ok());  // 0 is not 1
}

TEST(Shape, BroadcastsTo) {
  EXPECT_TRUE(BroadcastsTo(Shape{3, 1}, Shape{2, 3, 4}));
  EXPECT_FALSE(BroadcastsTo(Shape{2, 3, 4}, Shape{3, 4}));
  EXPECT_FALSE(BroadcastsTo(Shape{3, 2}, Shape{3, 4}));
}

TEST(Shape, ValidateRejectsNegativeAndHuge) {
  EXPECT_TRUE(ValidateShape(Shape{0, int64_t{1} << 62}).ok());  // empty: no overflow
  EXPECT_EQ((Shape{int64_t{1} << 62, int64_t{1} << 62, 0}).num_elements(), 0);
  EXPECT_FALSE(ValidateShape(Shape{-1}).ok());
  EXPECT_FALSE(ValidateShape(Shape{int64_t{1} << 40, int64_t{1} << 40}).ok());
  EXPECT_FALSE(ValidateShape(Shape(std::vector<int64_t>(65, 1))).ok());
}

TEST(Shape, StridesAndIndices) {
  EXPECT_EQ(ContiguousStrides(Shape{2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  std::vector<int64_t> index(3);
  UnflattenIndex(23, Shape{2, 3, 4}, absl::MakeSpan(index));
  EXPECT_EQ(index, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(*NormalizeAxis(-1, 3), 2);
  EXPECT_FALSE(NormalizeAxis(3, 3).ok());
  EXPECT_FALSE(NormalizeAxis(-4, 3).ok());
}

}  // namespace
}  // namespace gpuc::ir
