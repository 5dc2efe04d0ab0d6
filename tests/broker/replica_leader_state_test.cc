// The leader's follower bookkeeping: caught-up times, ISR expansion and
// shrink proposals, the HW over the maximal ISR with strict min ISR, acks=all
// completion, and the controller's answers.

#include <gtest/gtest.h>

#include <map>

#include "broker/replica/leader_state.h"

namespace hw::broker {
namespace {

using protocol::error_code;

constexpr int64_t lag_ms = 10'000;

struct cluster {
  std::map<int32_t, broker_status> brokers;
  broker_lookup lookup() const {
    return [this](node_id n) -> std::optional<broker_status> {
      auto it = brokers.find(n.value);
      if (it == brokers.end()) return std::nullopt;
      return it->second;
    };
  }
};

partition_role role_of(int32_t leader, int32_t epoch, int32_t version, std::vector<int32_t> replicas,
                       std::vector<int32_t> isr) {
  partition_role r;
  r.leader = node_id(leader);
  r.leader_epoch = leader_epoch(epoch);
  r.partition_epoch = partition_epoch(version);
  for (int32_t n : replicas) r.replicas.push_back(node_id(n));
  for (int32_t n : isr) r.isr.push_back(node_id(n));
  return r;
}

std::vector<node_id> ids(std::vector<int32_t> v) {
  std::vector<node_id> out;
  for (int32_t n : v) out.push_back(node_id(n));
  return out;
}

class LeaderState : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int32_t n : {1, 2, 3}) c.brokers[n] = broker_status{broker_epoch(100 + n), false, false};
  }
  leader_state make(int32_t min_isr, std::vector<int32_t> isr = {1, 2, 3}, offset leo = offset(0)) {
    leader_state s(node_id(1), broker_epoch(101), leader_settings{lag_ms, min_isr});
    EXPECT_TRUE(s.on_role(role_of(1, 5, 10, {1, 2, 3}, isr), leo, now));
    return s;
  }
  follower_fetch_outcome fetch(leader_state& s, int32_t follower, int64_t at, offset leo, offset hw) {
    return s.on_follower_fetch(node_id(follower), offset(at), offset(0), broker_epoch(100 + follower), now, leo, hw,
                               c.lookup());
  }
  cluster c;
  int64_t now = 1'000'000;
};

TEST_F(LeaderState, TheHighWatermarkIsTheSmallestLogEndInTheIsr) {
  auto s = make(2);
  const offset leo(100);
  // Nobody has fetched: the followers' log ends are unknown, the HW stays.
  EXPECT_EQ(s.next_high_watermark(leo, offset(0), now, c.lookup()), std::nullopt);
  fetch(s, 2, 60, leo, offset(0));
  EXPECT_EQ(s.next_high_watermark(leo, offset(0), now, c.lookup()), std::nullopt) << "3 has not fetched";
  fetch(s, 3, 40, leo, offset(0));
  EXPECT_EQ(s.next_high_watermark(leo, offset(0), now, c.lookup()), offset(40));
  fetch(s, 3, 100, leo, offset(40));
  EXPECT_EQ(s.next_high_watermark(leo, offset(40), now, c.lookup()), offset(60));
  // Never backwards.
  EXPECT_EQ(s.next_high_watermark(leo, offset(80), now, c.lookup()), std::nullopt);
}

TEST_F(LeaderState, BelowMinIsrTheHighWatermarkDoesNotMove) {
  auto s = make(2, {1});
  EXPECT_TRUE(s.under_min_isr());
  EXPECT_EQ(s.next_high_watermark(offset(10), offset(0), now, c.lookup()), std::nullopt);
  // With min ISR 1 the leader alone moves it.
  auto alone = make(1, {1});
  // Replicas 2 and 3 are out of the ISR and not caught up: they do not hold it.
  EXPECT_EQ(alone.next_high_watermark(offset(10), offset(0), now, c.lookup()), offset(10));
  // One that catches up (its log end reaches the leader's) and is eligible
  // holds the HW until it has joined, so that it can.
  fetch(alone, 2, 10, offset(10), offset(10));
  EXPECT_EQ(alone.next_high_watermark(offset(30), offset(10), now, c.lookup()), std::nullopt);
  fetch(alone, 2, 25, offset(30), offset(10));
  EXPECT_EQ(alone.next_high_watermark(offset(30), offset(10), now, c.lookup()), offset(25));
}

TEST_F(LeaderState, TheEffectiveMinIsrIsCappedAtTheReplicationFactor) {
  leader_state s(node_id(1), broker_epoch(101), leader_settings{lag_ms, 3});
  ASSERT_TRUE(s.on_role(role_of(1, 0, 0, {1}, {1}), offset(0), now));
  EXPECT_EQ(s.effective_min_isr(), 1);
  EXPECT_FALSE(s.under_min_isr());
  EXPECT_EQ(s.next_high_watermark(offset(7), offset(0), now, c.lookup()), offset(7));
}

TEST_F(LeaderState, AFollowerAtTheLeadersEndIsCaughtUpAndOneBehindForTooLongIsShrunk) {
  auto s = make(2);
  offset leo(50);
  fetch(s, 2, 50, leo, offset(0));
  fetch(s, 3, 50, leo, offset(0));
  EXPECT_EQ(s.maybe_shrink(now, leo), std::nullopt);
  // Appends continue; 2 keeps up, 3 stops fetching.
  for (int i = 0; i < 12; ++i) {
    now += 1000;
    leo += 10;
    fetch(s, 2, leo.value, leo, offset(0));
  }
  auto change = s.maybe_shrink(now, leo);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->what, isr_change::kind::shrink);
  EXPECT_EQ(change->isr, ids({1, 2}));
  EXPECT_EQ(change->changed, ids({3}));
  EXPECT_EQ(change->broker_epochs, (std::vector<broker_epoch>{broker_epoch(101), broker_epoch(102)}));
  // The shrink is not assumed: until committed, 3 still holds the HW.
  EXPECT_EQ(s.maximal_isr(), ids({1, 2, 3}));
  EXPECT_EQ(s.next_high_watermark(leo, offset(50), now, c.lookup()), std::nullopt);
  // One change in flight at a time.
  EXPECT_EQ(s.maybe_shrink(now, leo), std::nullopt);
  alter_partition_answer ok{error_code::none, leader_epoch(5), partition_epoch(11), ids({1, 2})};
  EXPECT_EQ(s.on_alter_answer(change->id, ok), alter_outcome::committed);
  EXPECT_EQ(s.isr(), ids({1, 2}));
  EXPECT_EQ(s.version(), partition_epoch(11));
  EXPECT_EQ(s.next_high_watermark(leo, offset(50), now, c.lookup()), leo);
}

TEST_F(LeaderState, AFollowerFetchingBehindSmallFrequentAppendsStaysCaughtUp) {
  // Each fetch reaches the end the leader had at the previous fetch: caught
  // up as of that fetch, although never equal to the current end.
  auto s = make(2);
  offset leo(0);
  for (int i = 0; i < 100; ++i) {
    const offset before = leo;
    leo += 5;
    now += 500;
    fetch(s, 2, before.value, leo, offset(0));
    fetch(s, 3, before.value, leo, offset(0));
  }
  EXPECT_EQ(s.maybe_shrink(now, leo), std::nullopt);
}

TEST_F(LeaderState, AnOutOfSyncFollowerRejoinsAtTheHighWatermarkWithinTheLeadersEpoch) {
  auto s = make(2, {1, 2}, offset(30));  // epoch 5 starts at 30
  const offset hw(40);
  offset leo(60);
  auto o = fetch(s, 3, 20, leo, hw);
  EXPECT_FALSE(o.expand) << "below the epoch start and the HW";
  o = fetch(s, 3, 35, leo, hw);
  EXPECT_FALSE(o.expand) << "in this epoch, but below the HW";
  o = fetch(s, 3, 40, leo, hw);
  ASSERT_TRUE(o.expand);
  EXPECT_EQ(o.expand->isr, ids({1, 2, 3}));
  EXPECT_EQ(o.expand->broker_epochs.back(), broker_epoch(103));
  // While the expansion is pending the joiner counts for the HW (maximal ISR).
  EXPECT_EQ(s.maximal_isr(), ids({1, 2, 3}));
  fetch(s, 2, 60, leo, hw);
  EXPECT_EQ(s.next_high_watermark(leo, hw, now, c.lookup()), std::nullopt) << "3 is at 40";
  fetch(s, 3, 55, leo, hw);
  EXPECT_EQ(s.next_high_watermark(leo, hw, now, c.lookup()), offset(55));
  // Refused as ineligible: back to the committed ISR; may propose again.
  alter_partition_answer no{error_code::ineligible_replica, {}, {}, {}};
  EXPECT_EQ(s.on_alter_answer(o.expand->id, no), alter_outcome::reverted);
  EXPECT_EQ(s.maximal_isr(), ids({1, 2}));
  EXPECT_TRUE(fetch(s, 3, 60, leo, offset(55)).expand);
}

TEST_F(LeaderState, FencedShuttingDownOrReincarnatedBrokersDoNotJoin) {
  auto s = make(1, {1, 2});
  const offset leo(10);
  c.brokers[3].fenced = true;
  EXPECT_FALSE(fetch(s, 3, 10, leo, offset(10)).expand);
  c.brokers[3].fenced = false;
  c.brokers[3].shutting_down = true;
  EXPECT_FALSE(fetch(s, 3, 10, leo, offset(10)).expand);
  c.brokers[3].shutting_down = false;
  // A fetch from an earlier incarnation is refused outright.
  c.brokers[3].epoch = broker_epoch(200);
  auto stale = s.on_follower_fetch(node_id(3), offset(10), offset(0), broker_epoch(103), now, leo, offset(10),
                                   c.lookup());
  EXPECT_EQ(stale.error, error_code::not_leader_or_follower);
  EXPECT_FALSE(stale.expand);
  auto fresh = s.on_follower_fetch(node_id(3), offset(10), offset(0), broker_epoch(200), now, leo, offset(10),
                                   c.lookup());
  EXPECT_EQ(fresh.error, error_code::none);
  EXPECT_TRUE(fresh.expand);
}

TEST_F(LeaderState, AFetchFromANonReplicaIsUnknownAtThisEpoch) {
  auto s = make(1);
  auto o = s.on_follower_fetch(node_id(9), offset(0), offset(0), broker_epoch(-1), now, offset(0), offset(0),
                               c.lookup());
  EXPECT_EQ(o.error, error_code::unknown_leader_epoch);
}

TEST_F(LeaderState, AcksAllWaitsForTheHighWatermarkAndReportsAShrinkBelowMinIsr) {
  auto s = make(2);
  EXPECT_EQ(s.acks_done(offset(10), offset(9)), std::make_pair(false, error_code::none));
  EXPECT_EQ(s.acks_done(offset(10), offset(10)), std::make_pair(true, error_code::none));
  // The ISR shrank to the leader while the produce waited.
  const offset leo(10);
  now += lag_ms + 1;
  auto change = s.maybe_shrink(now, leo);
  ASSERT_TRUE(change);
  ASSERT_EQ(s.on_alter_answer(change->id, {error_code::none, leader_epoch(5), partition_epoch(11), ids({1})}),
            alter_outcome::committed);
  EXPECT_EQ(s.acks_done(offset(10), offset(10)), std::make_pair(true, error_code::not_enough_replicas_after_append));
}

TEST_F(LeaderState, ControllerAnswersThatDoNotFitWaitOrRetry) {
  auto s = make(2);
  now += lag_ms + 1;
  auto change = s.maybe_shrink(now, offset(5));
  ASSERT_TRUE(change);
  EXPECT_EQ(s.on_alter_answer(change->id + 1, {}), alter_outcome::stale);
  EXPECT_EQ(s.on_alter_answer(change->id, {error_code::request_timed_out, {}, {}, {}}), alter_outcome::retry);
  EXPECT_EQ(s.on_alter_answer(change->id, {error_code::invalid_update_version, {}, {}, {}}),
            alter_outcome::await_metadata);
  // A success for another leader epoch does not commit.
  EXPECT_EQ(s.on_alter_answer(change->id, {error_code::none, leader_epoch(6), partition_epoch(11), ids({1})}),
            alter_outcome::await_metadata);
  EXPECT_TRUE(s.pending());
  // The metadata log settles it: a role at a newer partition epoch clears the pending change.
  EXPECT_TRUE(s.on_role(role_of(1, 5, 12, {1, 2, 3}, {1}), offset(5), now));
  EXPECT_FALSE(s.pending());
  EXPECT_EQ(s.isr(), ids({1}));
  // An older registration (the AlterPartition answer got here first) is skipped.
  EXPECT_FALSE(s.on_role(role_of(1, 5, 11, {1, 2, 3}, {1, 2}), offset(5), now));
  EXPECT_EQ(s.isr(), ids({1}));
}

// The metadata log may bring the ISR change before the controller's
// answer: the answer then reports that the change was made (the leader's
// IsrShrinks and IsrExpands count it) without touching the state again,
// and only for the change the record matches.
TEST_F(LeaderState, AnAnswerForAChangeTheMetadataLogAlreadyAppliedIsPublished) {
  auto s = make(2);
  now += lag_ms + 1;
  auto change = s.maybe_shrink(now, offset(5));
  ASSERT_TRUE(change);
  ASSERT_EQ(change->isr, ids({1}));
  ASSERT_TRUE(s.on_role(role_of(1, 5, 11, {1, 2, 3}, {1}), offset(5), now));
  EXPECT_FALSE(s.pending());
  EXPECT_EQ(s.on_alter_answer(change->id, {error_code::none, leader_epoch(5), partition_epoch(11), ids({1})}),
            alter_outcome::published);
  EXPECT_EQ(s.on_alter_answer(change->id, {error_code::none, leader_epoch(5), partition_epoch(11), ids({1})}),
            alter_outcome::stale)
      << "counted once";
  EXPECT_EQ(s.isr(), ids({1}));
  EXPECT_EQ(s.version(), partition_epoch(11));

  // A record with another ISR than the pending change's does not make
  // that change ours.
  auto expand = fetch(s, 2, 5, offset(5), offset(5)).expand;
  ASSERT_TRUE(expand);
  ASSERT_EQ(expand->isr, ids({1, 2}));
  ASSERT_TRUE(s.on_role(role_of(1, 5, 12, {1, 2, 3}, {1, 3}), offset(5), now));
  EXPECT_EQ(s.on_alter_answer(expand->id, {error_code::none, leader_epoch(5), partition_epoch(12), ids({1, 2})}),
            alter_outcome::stale);
}

TEST_F(LeaderState, ANewLeaderForgetsWhatItKnewAndCountsTheIsrAsCaughtUp) {
  auto s = make(2);
  fetch(s, 2, 0, offset(0), offset(0));
  ASSERT_NE(s.follower(node_id(2))->log_end, offset(-1));
  // Re-elected at a later epoch: offsets are kept, the epoch starts at the log end.
  ASSERT_TRUE(s.on_role(role_of(1, 6, 11, {1, 2, 3}, {1, 2}), offset(70), now));
  EXPECT_EQ(s.epoch(), leader_epoch(6));
  EXPECT_EQ(s.epoch_start_offset(), offset(70));
  EXPECT_EQ(s.follower(node_id(2))->log_end, offset(0));
  EXPECT_EQ(s.follower(node_id(3))->last_caught_up_time_ms, 0) << "3 is out of the ISR";
  // A fresh leader_state (this broker was a follower) knows nothing.
  leader_state fresh(node_id(1), broker_epoch(101), leader_settings{lag_ms, 2});
  ASSERT_TRUE(fresh.on_role(role_of(1, 7, 12, {1, 2, 3}, {1, 2, 3}), offset(80), now));
  EXPECT_EQ(fresh.follower(node_id(2))->log_end, offset(-1));
  EXPECT_EQ(fresh.follower(node_id(2))->last_caught_up_time_ms, now);
  EXPECT_EQ(fresh.maybe_shrink(now + lag_ms, offset(80)), std::nullopt);
  EXPECT_TRUE(fresh.maybe_shrink(now + lag_ms + 1, offset(80)));
}

}  // namespace
}  // namespace hw::broker
