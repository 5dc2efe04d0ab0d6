// Leader, ISR and ELR choice (KIP-966) as Kafka's PartitionChangeBuilder
// makes it.

#include <gtest/gtest.h>

#include <set>

#include "controller/partition_change.h"
#include "node_ids.h"

namespace hw::controller {
namespace {

using ints = std::vector<int32_t>;

partition_registration reg(ints replicas, ints isr, int32_t leader, ints elr = {}, ints lke = {}) {
  partition_registration p;
  p.replicas = ids(replicas);
  p.isr = ids(isr);
  p.leader = node_id(leader);
  p.elr = ids(elr);
  p.last_known_elr = ids(lke);
  p.leader_epoch = leader_epoch(5);
  p.partition_epoch = partition_epoch(7);
  return p;
}

partition_change_options opts(std::set<int32_t> alive, int32_t min_isr = 1, bool elr = true) {
  partition_change_options o;
  o.acceptable_leader = [alive](node_id b) { return alive.count(b.value) > 0; };
  o.min_isr = min_isr;
  o.elr_enabled = elr;
  return o;
}

TEST(PartitionChange, NothingToChangeIsNoRecord) {
  auto p = reg({1, 2, 3}, {1, 2, 3}, 1);
  partition_change_builder b(p, {}, 0, opts({1, 2, 3}, 2));
  EXPECT_FALSE(b.build());
}

TEST(PartitionChange, LeaderFencedMovesToNextIsrMemberInReplicaOrder) {
  auto p = reg({1, 2, 3}, {3, 1, 2}, 1);
  partition_change_builder b(p, {}, 0, opts({2, 3}, 2));
  b.set_target_isr(ids({3, 2}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 2) << "replica order, not ISR order";
  EXPECT_EQ(r->isr, (ints{3, 2}));
  EXPECT_FALSE(r->eligible_leader_replicas) << "ISR still at min ISR";
}

TEST(PartitionChange, CurrentLeaderStaysWhileValid) {
  auto p = reg({1, 2, 3}, {1, 2, 3}, 3);
  partition_change_builder b(p, {}, 0, opts({1, 2, 3}, 1));
  b.set_target_isr(ids({2, 3}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, no_leader_change);
  EXPECT_EQ(r->isr, (ints{2, 3}));
}

TEST(PartitionChange, ShrinkBelowMinIsrMovesLeaversToElr) {
  auto p = reg({1, 2, 3}, {1, 2}, 1);
  partition_change_builder b(p, {}, 0, opts({2, 3}, 2));
  b.set_target_isr(ids({2}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 2);
  EXPECT_EQ(r->isr, ints{2});
  EXPECT_EQ(r->eligible_leader_replicas, ints{1});
}

TEST(PartitionChange, EmptyIsrElectsFromElrWhichBecomesTheIsr) {
  auto p = reg({1, 2, 3}, {}, no_leader.value, {2, 3}, {});
  partition_change_builder b(p, {}, 0, opts({3}, 2));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 3);
  EXPECT_EQ(r->isr, ints{3});
  EXPECT_EQ(r->eligible_leader_replicas, ints{2});
  EXPECT_EQ(r->leader_recovery_state, -1) << "a clean election";
}

// What Kafka 4.3.1 wrote for the last replica's controlled shutdown (fixture
// offset 199): ISR and leader gone, the replica kept as ELR and last leader.
TEST(PartitionChange, LastReplicaShuttingDownMatchesKafka) {
  auto p = reg({1}, {1}, 1);
  p.leader_epoch = leader_epoch(0);
  p.partition_epoch = partition_epoch(0);
  partition_change_builder b(p, {}, 0, opts({}, 1));
  b.set_target_isr(ids({}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, no_leader.value);
  EXPECT_EQ(r->isr, ints{});
  EXPECT_EQ(r->eligible_leader_replicas, ints{1});
  EXPECT_EQ(r->last_known_elr, ints{1});
  EXPECT_FALSE(r->replicas);
}

TEST(PartitionChange, UncleanShutdownReplicasLeaveTheElr) {
  auto p = reg({1, 2, 3}, {1}, 1, {2, 3});
  partition_change_builder b(p, {}, 0, opts({2, 3}, 2));
  b.set_target_isr(ids({}));
  b.set_unclean_shutdown_replicas(ids({3}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 2) << "from the ELR";
  EXPECT_EQ(r->isr, ints{2});
  EXPECT_EQ(r->eligible_leader_replicas, ints{1});
}

TEST(PartitionChange, NoCandidateWithoutUncleanLeavesNoLeader) {
  auto p = reg({1, 2}, {1}, 1);
  partition_change_builder b(p, {}, 0, opts({2}, 1, false));
  b.set_target_isr(ids({}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, no_leader.value);
  EXPECT_FALSE(r->isr) << "without ELR the ISR never empties";
}

TEST(PartitionChange, UncleanElectionPicksAnyLiveReplicaAndRecovers) {
  auto p = reg({1, 2}, {1}, no_leader.value);
  partition_change_builder b(p, {}, 0, opts({2}, 1, false));
  b.set_election(election_type::unclean);
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 2);
  EXPECT_EQ(r->isr, ints{2});
  EXPECT_EQ(r->leader_recovery_state, 1);
}

TEST(PartitionChange, UncleanClearsElr) {
  auto p = reg({1, 2, 3}, {}, no_leader.value, {1}, {});
  partition_change_builder b(p, {}, 0, opts({3}, 2));
  b.set_election(election_type::unclean);
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 3);
  EXPECT_EQ(r->isr, ints{3});
  EXPECT_EQ(r->eligible_leader_replicas, ints{});
}

TEST(PartitionChange, PreferredElectionMovesToFirstReplica) {
  auto p = reg({1, 2, 3}, {1, 2, 3}, 2);
  partition_change_builder b(p, {}, 0, opts({1, 2, 3}, 2));
  b.set_election(election_type::preferred);
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 1);
  partition_change_builder online(p, {}, 0, opts({1, 2, 3}, 2));
  EXPECT_FALSE(online.build()) << "an online election keeps a valid leader";
}

TEST(PartitionChange, LastKnownLeaderIsElectedWhenNothingElseRemains) {
  auto p = reg({1, 2}, {}, no_leader.value, {}, {1});
  partition_change_builder away(p, {}, 0, opts({2}, 1));
  EXPECT_FALSE(away.build()) << "the last leader is not back: wait for it";
  partition_change_builder b(p, {}, 0, opts({1, 2}, 1));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 1);
  EXPECT_EQ(r->isr, ints{1});
  EXPECT_EQ(r->leader_recovery_state, 1);
  EXPECT_EQ(r->last_known_elr, ints{}) << "cleared: the partition has a leader again";
}

TEST(PartitionChange, IsrBackToMinIsrClearsElr) {
  auto p = reg({1, 2, 3}, {2}, 2, {1});
  partition_change_builder b(p, {}, 0, opts({1, 2, 3}, 2));
  b.set_target_isr(ids({2, 1}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->isr, (ints{2, 1}));
  EXPECT_EQ(r->eligible_leader_replicas, ints{});
  EXPECT_EQ(r->leader, no_leader_change);
}

TEST(PartitionChange, OldMetadataVersionBumpsLeaderEpochOnShrink) {
  auto p = reg({1, 2}, {1, 2}, 1);
  auto o = opts({1, 2}, 1, false);
  o.version = minimum_metadata_version;
  partition_change_builder b(p, {}, 0, o);
  b.set_target_isr(ids({1}));
  auto r = b.build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 1);
}

}  // namespace
}  // namespace hw::controller
