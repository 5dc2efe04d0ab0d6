#include "broker/txn/txn_metadata.h"

#include <gtest/gtest.h>

#include "broker/txn/txn_partition.h"

namespace hw::broker::txn {
namespace {

using protocol::error_code;

constexpr int64_t k_pid = 4000;

// Prepares with `p`, expects success, completes it; returns the target.
txn_transit apply(txn_metadata& m, txn_prepared p) {
  EXPECT_TRUE(p.ok()) << p.illegal << " " << static_cast<int>(p.error);
  if (!p.ok()) return {};
  auto wrong = m.complete(*p.transit);
  EXPECT_FALSE(wrong) << *wrong;
  return *p.transit;
}

// A producer that ran InitProducerId once: Empty at epoch 0.
txn_metadata initialized(int16_t epoch = 0) {
  txn_metadata m("app-1", k_pid, 60000, 1000);
  apply(m, m.prepare_increment_epoch(60000, std::nullopt, 1000));
  while (m.producer_epoch() < epoch) apply(m, m.prepare_increment_epoch(60000, std::nullopt, 1000));
  return m;
}

TEST(TxnState, NamesAndIdsAreKafkas) {
  EXPECT_EQ(state_name(txn_state::prepare_epoch_fence), "PrepareEpochFence");
  EXPECT_EQ(state_name(txn_state::complete_commit), "CompleteCommit");
  EXPECT_EQ(state_from_name("Ongoing"), txn_state::ongoing);
  EXPECT_EQ(state_from_name("ongoing"), std::nullopt);
  EXPECT_EQ(state_from_id(6), txn_state::dead);
  EXPECT_EQ(state_from_id(8), std::nullopt);
  EXPECT_EQ(state_from_id(-1), std::nullopt);
}

TEST(TxnState, TransitionsFollowKafkasTable) {
  using enum txn_state;
  EXPECT_TRUE(may_follow(empty, ongoing));
  EXPECT_TRUE(may_follow(ongoing, ongoing));
  EXPECT_TRUE(may_follow(complete_abort, ongoing));
  EXPECT_FALSE(may_follow(prepare_commit, ongoing));
  EXPECT_TRUE(may_follow(ongoing, prepare_commit));
  EXPECT_FALSE(may_follow(empty, prepare_commit));
  // Kafka 4.3: an empty transaction may be aborted (transactions v2).
  EXPECT_TRUE(may_follow(empty, prepare_abort));
  EXPECT_TRUE(may_follow(prepare_epoch_fence, prepare_abort));
  EXPECT_FALSE(may_follow(prepare_abort, complete_commit));
  EXPECT_TRUE(may_follow(prepare_commit, complete_commit));
  EXPECT_FALSE(may_follow(ongoing, empty));
  EXPECT_FALSE(may_follow(ongoing, dead));
  EXPECT_TRUE(may_follow(complete_commit, dead));
  EXPECT_FALSE(may_follow(empty, prepare_epoch_fence));
}

TEST(TxnPartition, IsKafkasPartitionFor) {
  // Checked with jshell: Math.abs("my-txn".hashCode()) % 50 is 45 (the
  // hash is negative, so masking its sign bit would give 3).
  EXPECT_EQ(txn_partition("my-txn", 50), 45);
  EXPECT_EQ(txn_partition("txn-1", 50), 10);
  EXPECT_EQ(txn_partition("polygenelubricants", 50), 0);
}

TEST(TxnMetadata, InitProducerIdStartsAtEpochZeroAndEachNewProducerBumps) {
  txn_metadata m("app-1", k_pid, 60000, 1000);
  EXPECT_EQ(m.producer_epoch(), k_no_producer_epoch);
  auto t = apply(m, m.prepare_increment_epoch(30000, std::nullopt, 2000));
  EXPECT_EQ(t.producer_epoch, 0);
  EXPECT_EQ(t.last_producer_epoch, k_no_producer_epoch);
  EXPECT_EQ(m.state(), txn_state::empty);
  EXPECT_EQ(m.timeout_ms(), 30000);
  EXPECT_EQ(m.start_ms(), -1);
  t = apply(m, m.prepare_increment_epoch(30000, std::nullopt, 3000));
  EXPECT_EQ(m.producer_epoch(), 1);
  EXPECT_EQ(m.last_producer_epoch(), k_no_producer_epoch);
  EXPECT_EQ(t.prev_producer_id, k_pid);
}

TEST(TxnMetadata, AResumingProducerBumpsARetryGetsTheSameEpochAnOtherIsFenced) {
  auto m = initialized(3);
  // The producer at epoch 3 recovers from an error: 4, remembering 3.
  apply(m, m.prepare_increment_epoch(60000, int16_t{3}, 5000));
  EXPECT_EQ(m.producer_epoch(), 4);
  EXPECT_EQ(m.last_producer_epoch(), 3);
  // Its retry (the answer was lost) names 3 again: 4 again, no bump.
  auto retry = m.prepare_increment_epoch(60000, int16_t{3}, 6000);
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry.transit->producer_epoch, 4);
  m.abandon();
  // Any other epoch belongs to a fenced instance.
  auto fenced = m.prepare_increment_epoch(60000, int16_t{1}, 6000);
  EXPECT_FALSE(fenced.ok());
  EXPECT_EQ(fenced.error, error_code::producer_fenced);
  EXPECT_TRUE(fenced.illegal.empty());
  EXPECT_FALSE(m.has_pending());
}

TEST(TxnMetadata, AVersionOneTransactionCommitsAtItsEpoch) {
  auto m = initialized();
  auto t = apply(m, m.prepare_add_partitions({{"orders", 0}, {"orders", 1}}, 10000, 0));
  EXPECT_EQ(m.state(), txn_state::ongoing);
  EXPECT_EQ(m.start_ms(), 10000);
  apply(m, m.prepare_add_partitions({{"audit", 0}}, 11000, 0));
  EXPECT_EQ(m.partitions().size(), 3u);
  EXPECT_EQ(m.start_ms(), 10000) << "adding to an ongoing transaction keeps its start";

  apply(m, m.prepare_abort_or_commit(txn_state::prepare_commit, 0, k_no_producer_id, 12000, false));
  EXPECT_EQ(m.state(), txn_state::prepare_commit);
  EXPECT_EQ(m.producer_epoch(), 0);
  EXPECT_TRUE(m.remove_partition({"audit", 0}));
  EXPECT_EQ(m.partitions().size(), 2u);
  t = apply(m, m.prepare_complete(13000));
  EXPECT_EQ(m.state(), txn_state::complete_commit);
  EXPECT_TRUE(m.partitions().empty());
  EXPECT_EQ(t.producer_epoch, 0);
  EXPECT_FALSE(m.remove_partition({"orders", 0})) << "only while markers are being written";
}

TEST(TxnMetadata, AVersionTwoTransactionBumpsTheEpochAtItsEnd) {
  auto m = initialized(5);
  apply(m, m.prepare_add_partitions({{"orders", 0}}, 10000, 2));
  EXPECT_EQ(m.client_version(), 2);
  apply(m, m.prepare_abort_or_commit(txn_state::prepare_abort, 2, k_no_producer_id, 12000, false));
  EXPECT_EQ(m.producer_epoch(), 6);
  EXPECT_EQ(m.last_producer_epoch(), 5);
  apply(m, m.prepare_complete(13000));
  EXPECT_EQ(m.state(), txn_state::complete_abort);
  EXPECT_EQ(m.producer_epoch(), 6);
  EXPECT_EQ(m.producer_id(), k_pid);
}

TEST(TxnMetadata, AnExhaustedVersionTwoEpochMovesToTheNextProducerId) {
  auto m = initialized();
  // Load the state of a producer at the last usable epoch.
  txn_transit at_top = m.current();
  at_top.producer_epoch = INT16_MAX - 1;
  txn_metadata top("app-1", at_top);
  EXPECT_TRUE(top.epoch_exhausted());
  apply(top, top.prepare_add_partitions({{"orders", 0}}, 10000, 2));
  apply(top, top.prepare_abort_or_commit(txn_state::prepare_commit, 2, 9000, 12000, false));
  EXPECT_EQ(top.producer_epoch(), INT16_MAX);
  EXPECT_EQ(top.next_producer_id(), 9000);
  auto done = apply(top, top.prepare_complete(13000));
  EXPECT_EQ(top.producer_id(), 9000);
  EXPECT_EQ(top.producer_epoch(), 0);
  EXPECT_EQ(top.prev_producer_id(), k_pid);
  EXPECT_EQ(top.last_producer_epoch(), INT16_MAX - 1) << "the last epoch the client saw";
  EXPECT_EQ(top.next_producer_id(), k_no_producer_id);
  EXPECT_EQ(done.state, txn_state::complete_commit);
}

TEST(TxnMetadata, AVersionTwoClientMayAbortATransactionThatAddedNothing) {
  auto m = initialized();
  auto t = apply(m, m.prepare_abort_or_commit(txn_state::prepare_abort, 2, k_no_producer_id, 20000, true));
  EXPECT_EQ(t.start_ms, 20000);
  EXPECT_EQ(m.producer_epoch(), 1);
  apply(m, m.prepare_complete(21000));
  EXPECT_EQ(m.state(), txn_state::complete_abort);
  // Commit of nothing is not a move (the coordinator answers it itself).
  auto commit = m.prepare_abort_or_commit(txn_state::prepare_commit, 2, k_no_producer_id, 22000, true);
  EXPECT_FALSE(commit.ok());
  EXPECT_FALSE(commit.illegal.empty());
}

TEST(TxnMetadata, OneMoveAtATime) {
  auto m = initialized();
  auto first = m.prepare_add_partitions({{"orders", 0}}, 10000, 0);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(m.pending(), txn_state::ongoing);
  auto second = m.prepare_add_partitions({{"orders", 1}}, 10001, 0);
  EXPECT_FALSE(second.ok());
  EXPECT_NE(second.illegal.find("pending"), std::string::npos) << second.illegal;
  // The write failed: nothing changed and the next move may start.
  m.abandon();
  EXPECT_EQ(m.state(), txn_state::empty);
  EXPECT_TRUE(m.partitions().empty());
  EXPECT_TRUE(m.prepare_add_partitions({{"orders", 1}}, 10002, 0).ok());
}

TEST(TxnMetadata, CompleteRefusesATargetThatDoesNotFollowFromTheState) {
  auto m = initialized();
  apply(m, m.prepare_add_partitions({{"orders", 0}, {"orders", 1}}, 10000, 0));
  auto p = m.prepare_abort_or_commit(txn_state::prepare_commit, 0, k_no_producer_id, 12000, false);
  ASSERT_TRUE(p.ok());
  txn_transit other = *p.transit;
  other.partitions.erase({"orders", 1});
  auto wrong = m.complete(other);
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("other partitions"), std::string::npos) << *wrong;
  EXPECT_EQ(m.state(), txn_state::ongoing);
  other = *p.transit;
  other.producer_epoch = 7;
  EXPECT_TRUE(m.complete(other));
  EXPECT_FALSE(m.complete(*p.transit));
  EXPECT_EQ(m.state(), txn_state::prepare_commit);
  EXPECT_TRUE(m.complete(*p.transit)) << "a second completion finds nothing pending";
}

TEST(TxnMetadata, AFenceBumpsOnceEvenWhenItsAbortFailedToBeWritten) {
  auto m = initialized(2);
  apply(m, m.prepare_add_partitions({{"orders", 0}}, 10000, 0));
  auto fence = m.prepare_fence_epoch();
  ASSERT_TRUE(fence.ok());
  EXPECT_EQ(fence.transit->producer_epoch, 3);
  EXPECT_EQ(m.pending(), txn_state::prepare_epoch_fence);
  // The coordinator aborts at the fenced epoch in place of the fence.
  m.take_over_fence(fence.transit->producer_epoch);
  auto abort = m.prepare_abort_or_commit(txn_state::prepare_abort, 0, k_no_producer_id, 11000, false);
  ASSERT_TRUE(abort.ok()) << abort.illegal;
  EXPECT_EQ(abort.transit->producer_epoch, 3);
  // The write fails: the next fence reuses epoch 3 rather than taking 4.
  m.abandon();
  EXPECT_TRUE(m.failed_epoch_fence());
  auto again = m.prepare_fence_epoch();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.transit->producer_epoch, 3);
  m.take_over_fence(3);
  apply(m, m.prepare_abort_or_commit(txn_state::prepare_abort, 0, k_no_producer_id, 12000, false));
  apply(m, m.prepare_complete(13000));
  EXPECT_FALSE(m.failed_epoch_fence());
  EXPECT_EQ(m.state(), txn_state::complete_abort);
  EXPECT_EQ(m.producer_epoch(), 3);
}

TEST(TxnMetadata, AnExpiredIdGoesDeadButIsNeverKeptDead) {
  auto m = initialized();
  auto dead = m.prepare_dead();
  ASSERT_TRUE(dead.ok());
  EXPECT_TRUE(dead.transit->partitions.empty());
  auto wrong = m.complete(*dead.transit);
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("removed"), std::string::npos);
}

TEST(TxnMetadata, IncrementAtAnExhaustedEpochIsABug) {
  auto m = initialized();
  txn_transit at_top = m.current();
  at_top.producer_epoch = INT16_MAX - 1;
  txn_metadata top("app-1", at_top);
  auto p = top.prepare_increment_epoch(60000, std::nullopt, 1);
  EXPECT_FALSE(p.ok());
  EXPECT_FALSE(p.illegal.empty());
  auto rotated = apply(top, top.prepare_rotate_producer_id(5000, 60000, 2, true));
  EXPECT_EQ(rotated.producer_id, 5000);
  EXPECT_EQ(rotated.producer_epoch, 0);
  EXPECT_EQ(rotated.last_producer_epoch, INT16_MAX - 1);
  EXPECT_EQ(top.prev_producer_id(), k_pid);
}

}  // namespace
}  // namespace hw::broker::txn
