// Which member epoch holds each partition of a consumer group: added and
// removed with the members, and the inconsistencies refused without any
// change.
#include <gtest/gtest.h>

#include "tests/broker/reconcile_test_support.h"

namespace hw::broker::group::consumer {
namespace {

using namespace testing;

const auto t1 = topic(1);
const auto t2 = topic(2);

TEST(ReconcilePartitionEpochs, AddAndRemoveAtTheHoldersEpoch) {
  partition_epochs pe;
  EXPECT_FALSE(pe.add(at(epoch(1), tps({{t1, {0, 1}}, {t2, {5}}})), epoch(3)).has_value());
  // The assignment epochs in the map do not matter: held at the epoch given.
  EXPECT_EQ(pe.owner_epoch(t1, 0), epoch(3));
  EXPECT_EQ(pe.owner_epoch(t2, 5), epoch(3));
  EXPECT_EQ(pe.owner_epoch(t1, 2), std::nullopt);
  EXPECT_EQ(pe.owner_epoch(topic(7), 0), std::nullopt);

  pe.remove(at(epoch(3), tps({{t1, {0}}})), epoch(3));
  EXPECT_EQ(pe.owner_epoch(t1, 0), std::nullopt);
  EXPECT_EQ(pe.owner_epoch(t1, 1), epoch(3));
  pe.remove(at(epoch(3), tps({{t1, {1}}, {t2, {5}}})), epoch(3));
  EXPECT_TRUE(pe.empty());
}

TEST(ReconcilePartitionEpochs, RemoveAtAnotherEpochLeavesThePartitionToItsHolder) {
  partition_epochs pe;
  ASSERT_FALSE(pe.add(at(epoch(4), tps({{t1, {0}}})), epoch(4)).has_value());
  pe.remove(at(epoch(3), tps({{t1, {0}}})), epoch(3));
  EXPECT_EQ(pe.owner_epoch(t1, 0), epoch(4));
  pe.remove(at(epoch(3), tps({{t2, {0}}})), epoch(3));  // never held: nothing to do
  EXPECT_EQ(pe.all().size(), 1u);
}

TEST(ReconcilePartitionEpochs, NewerEpochTakesOverAnOlderHolder) {
  partition_epochs pe;
  ASSERT_FALSE(pe.add(at(epoch(2), tps({{t1, {0}}})), epoch(2)).has_value());
  EXPECT_FALSE(pe.add(at(epoch(5), tps({{t1, {0}}})), epoch(5)).has_value());
  EXPECT_EQ(pe.owner_epoch(t1, 0), epoch(5));
}

TEST(ReconcilePartitionEpochs, AddAtTheSameOrAnOlderEpochIsRefusedAndChangesNothing) {
  partition_epochs pe;
  ASSERT_FALSE(pe.add(at(epoch(3), tps({{t1, {1}}})), epoch(3)).has_value());
  const auto before = pe.all();

  auto conflict = pe.add(at(epoch(3), tps({{t1, {0, 1, 2}}})), epoch(3));
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(*conflict, (partition_epoch_conflict{t1, 1, epoch(3), epoch(3)}));
  EXPECT_EQ(pe.all(), before);  // t1-0 was not added either

  conflict = pe.add(at(epoch(2), tps({{t1, {1}}})), epoch(2));
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(conflict->held, epoch(3));
  EXPECT_EQ(pe.all(), before);
}

TEST(ReconcilePartitionEpochs, MemberHoldsAssignedAndPendingRevocationAtItsEpoch) {
  partition_epochs pe;
  auto a = assignment(epoch(4), epoch(4), member_state::unrevoked_partitions, at(epoch(2), tps({{t1, {0}}})),
                      at(epoch(3), tps({{t1, {1}}, {t2, {0}}})));
  ASSERT_FALSE(pe.add_member(a).has_value());
  EXPECT_EQ(pe.owner_epoch(t1, 0), epoch(4));
  EXPECT_EQ(pe.owner_epoch(t1, 1), epoch(4));
  EXPECT_EQ(pe.owner_epoch(t2, 0), epoch(4));
  pe.remove_member(a);
  EXPECT_TRUE(pe.empty());
}

TEST(ReconcilePartitionEpochs, PartitionBothAssignedAndPendingIsRefused) {
  partition_epochs pe;
  auto a = assignment(epoch(4), epoch(3), member_state::unrevoked_partitions, at(epoch(4), tps({{t1, {0, 1}}})),
                      at(epoch(4), tps({{t1, {1}}})));
  auto conflict = pe.add_member(a);
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(conflict->partition, 1);
  EXPECT_TRUE(pe.empty());
}

TEST(ReconcilePartitionEpochs, UpdateFreesWhatTheMemberGaveUpAndTakesWhatItWasGiven) {
  partition_epochs pe;
  auto before = assignment(epoch(2), epoch(1), member_state::stable, at(epoch(2), tps({{t1, {0, 1}}})));
  ASSERT_FALSE(pe.add_member(before).has_value());
  auto after = assignment(epoch(3), epoch(2), member_state::stable,
                          merged(at(epoch(2), tps({{t1, {1}}})), at(epoch(3), tps({{t1, {2}}}))));
  ASSERT_FALSE(pe.update_member(before, after).has_value());
  EXPECT_EQ(pe.owner_epoch(t1, 0), std::nullopt);
  EXPECT_EQ(pe.owner_epoch(t1, 1), epoch(3));
  EXPECT_EQ(pe.owner_epoch(t1, 2), epoch(3));
}

TEST(ReconcilePartitionEpochs, UpdateThatWouldTakeAPartitionHeldElsewhereChangesNothing) {
  partition_epochs pe;
  ASSERT_FALSE(pe.add(at(epoch(3), tps({{t1, {2}}})), epoch(3)).has_value());  // another member
  auto before = assignment(epoch(2), epoch(1), member_state::stable, at(epoch(2), tps({{t1, {0, 1}}})));
  ASSERT_FALSE(pe.add_member(before).has_value());
  const auto snapshot = pe.all();

  auto after = assignment(epoch(3), epoch(2), member_state::stable, at(epoch(3), tps({{t1, {1, 2}}})));
  auto conflict = pe.update_member(before, after);
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(*conflict, (partition_epoch_conflict{t1, 2, epoch(3), epoch(3)}));
  EXPECT_EQ(pe.all(), snapshot);  // t1-0 still held at 2, not freed
}

TEST(ReconcilePartitionEpochs, UpdateKeepingTheEpochIsNotAConflictWithItself) {
  partition_epochs pe;
  auto before = assignment(epoch(2), epoch(1), member_state::stable, at(epoch(2), tps({{t1, {0, 1}}})));
  ASSERT_FALSE(pe.add_member(before).has_value());
  auto after = assignment(epoch(2), epoch(2), member_state::unrevoked_partitions, at(epoch(2), tps({{t1, {0}}})),
                          at(epoch(2), tps({{t1, {1}}})));
  ASSERT_FALSE(pe.update_member(before, after).has_value());
  EXPECT_EQ(pe.owner_epoch(t1, 0), epoch(2));
  EXPECT_EQ(pe.owner_epoch(t1, 1), epoch(2));
}

}  // namespace
}  // namespace hw::broker::group::consumer
