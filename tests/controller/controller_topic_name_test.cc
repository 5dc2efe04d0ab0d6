// Kafka's topic name rules.

#include <gtest/gtest.h>

#include "controller/topic_name.h"

namespace hw::controller {
namespace {

TEST(ControllerTopicName, Rules) {
  EXPECT_FALSE(invalid_topic_name("orders-2024_v1.x"));
  EXPECT_FALSE(invalid_topic_name(std::string(249, 'a')));
  EXPECT_TRUE(invalid_topic_name(std::string(250, 'a')));
  EXPECT_EQ(invalid_topic_name(".."), "Topic name is invalid: '..' is not allowed");
  EXPECT_EQ(invalid_topic_name("a b"),
            "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'");
  EXPECT_TRUE(invalid_topic_name("caf\xc3\xa9"));
}

TEST(ControllerTopicName, Collisions) {
  EXPECT_TRUE(has_collision_chars("a.b"));
  EXPECT_TRUE(has_collision_chars("a_b"));
  EXPECT_FALSE(has_collision_chars("a-b"));
  EXPECT_EQ(unify_collision_chars("a.b_c"), "a_b_c");
  EXPECT_TRUE(is_internal_topic("__consumer_offsets"));
  EXPECT_FALSE(is_internal_topic("__cluster_metadata"));
}

}  // namespace
}  // namespace hw::controller
