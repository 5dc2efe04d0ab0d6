#include "broker/network/frame_size.h"

#include <gtest/gtest.h>

namespace hw::broker {
namespace {

TEST(FrameSize, KafkaRules) {
  EXPECT_EQ(frame_size_error(0, 100), std::nullopt);
  EXPECT_EQ(frame_size_error(100, 100), std::nullopt);
  EXPECT_EQ(frame_size_error(101, 100), "Invalid receive (size = 101 larger than 100)");
  EXPECT_EQ(frame_size_error(-1, 100), "Invalid receive (size = -1)");
  EXPECT_EQ(frame_size_error(INT32_MIN, 100), "Invalid receive (size = -2147483648)");
}

}  // namespace
}  // namespace hw::broker
