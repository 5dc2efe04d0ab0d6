// KIP-392's RackAwareReplicaSelector: which replica a consumer in a rack
// is sent to.

#include <gtest/gtest.h>

#include "broker/replica/replica_selector.h"

namespace hw::broker {
namespace {

TEST(ReplicaSelector, TheLeaderUnlessAnotherRackHoldsTheConsumer) {
  const replica_view leader{1, "a", 100, 0};
  const std::vector<replica_view> followers{{2, "b", 90, 500}, {3, "b", 100, 800}, {4, "c", 100, 0}};
  EXPECT_EQ(select_rack_aware("", leader, followers), 1) << "no client.rack: the leader";
  EXPECT_EQ(select_rack_aware("a", leader, followers), 1) << "the leader's own rack";
  EXPECT_EQ(select_rack_aware("z", leader, followers), 1) << "no replica in the rack";
  EXPECT_EQ(select_rack_aware("b", leader, followers), 3) << "the most caught-up in the rack";
  EXPECT_EQ(select_rack_aware("c", leader, followers), 4);
}

TEST(ReplicaSelector, EqualLogEndsGoToTheMostRecentlyCaughtUp) {
  const replica_view leader{1, std::nullopt, 100, 0};
  EXPECT_EQ(select_rack_aware("b", leader, {{2, "b", 100, 900}, {3, "b", 100, 200}}), 3);
  EXPECT_EQ(select_rack_aware("b", leader, {{2, "b", 100, 100}, {3, "b", 100, 200}}), 2);
}

}  // namespace
}  // namespace hw::broker
