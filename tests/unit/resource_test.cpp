#include "model/resource.h"

#include <gtest/gtest.h>

#include <scoria/scoria.h>

#include <vector>

namespace scoria::model {
namespace {

TEST(Resource, ToleranceMatchesTheSdk) {
  EXPECT_DOUBLE_EQ(kResourceEpsilon, SCORIA_RESOURCE_EPSILON);
}

TEST(Resource, LessEqualForgivesDifferencesBelowTheTolerance) {
  EXPECT_TRUE(less_equal(1000.0, 1000.0));
  EXPECT_TRUE(less_equal(1000.05, 1000.0));
  EXPECT_FALSE(less_equal(1000.2, 1000.0));
  EXPECT_TRUE(less_equal(0.0, 0.0));
}

TEST(Resource, VectorLessEqualNeedsEveryDimension) {
  std::vector<double> node = {4000, 8e9, 110};
  EXPECT_TRUE(less_equal(std::vector<double>{4000, 8e9, 1}, node));
  EXPECT_FALSE(less_equal(std::vector<double>{4001, 1, 1}, node));
  EXPECT_FALSE(less_equal(std::vector<double>{1, 8e9 + 1, 1}, node));
}

TEST(Resource, FirstShortDimensionCountsReleasingAndPipelined) {
  std::vector<double> need = {2000, 1e9, 1};
  std::vector<double> idle = {1000, 4e9, 10}, releasing = {1000, 0, 0}, pipelined = {0, 0, 0};
  EXPECT_EQ(first_short_dimension(need, idle.data(), releasing.data(), pipelined.data()), 3u);
  pipelined = {500, 0, 0};
  EXPECT_EQ(first_short_dimension(need, idle.data(), releasing.data(), pipelined.data()), 0u);
  idle = {5000, 0, 10};
  EXPECT_EQ(first_short_dimension(need, idle.data(), releasing.data(), pipelined.data()), 1u);
}

TEST(Resource, AddAndSubtract) {
  std::vector<double> acc = {0, 0, 0};
  add(acc, std::vector<double>{500, 1024, 1});
  add(acc, std::vector<double>{500, 1024, 1});
  add(acc, std::vector<double>{250, 24, 1}, -1.0);
  EXPECT_EQ(acc, (std::vector<double>{750, 2024, 1}));
}

TEST(Resource, EmptyIgnoresThePodCount) {
  EXPECT_TRUE(is_empty(std::vector<double>{0, 0, 1}, 2));
  EXPECT_TRUE(is_empty(std::vector<double>{0.05, 0, 1}, 2));
  EXPECT_FALSE(is_empty(std::vector<double>{0, 0, 1, 1000}, 2));
  EXPECT_FALSE(is_empty(std::vector<double>{100, 0, 0}, 2));
}

}  // namespace
}  // namespace scoria::model
