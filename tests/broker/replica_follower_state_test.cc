// The follower's fetch state machine and its truncation decisions, against
// the cases of Kafka's AbstractFetcherThread.

#include <gtest/gtest.h>

#include "broker/replica/follower_state.h"

namespace hw::broker {
namespace {

using protocol::error_code;

TEST(FollowerTruncation, TheSameEpochCutsAtTheSmallerEnd) {
  // Leader: epoch 3 ends at 120. Here epoch 3 ends at 150 (log end 150).
  auto t = truncation_for_divergence({leader_epoch(3), offset(120)}, leader_epoch(3), offset(150), offset(150));
  EXPECT_EQ(t.what, truncation::kind::to_offset);
  EXPECT_EQ(t.at, offset(120));
  // Here it ends earlier than at the leader: cut at the local end.
  t = truncation_for_divergence({leader_epoch(3), offset(120)}, leader_epoch(3), offset(110), offset(140));
  EXPECT_EQ(t.at, offset(110));
}

TEST(FollowerTruncation, AnEpochUnknownHereCutsWhereTheLargestEpochBelowItEnds) {
  // Leader says epoch 4 ends at 200; this replica went from epoch 2 (ending
  // at 90) straight to 5.
  auto t = truncation_for_divergence({leader_epoch(4), offset(200)}, leader_epoch(2), offset(90), offset(130));
  EXPECT_EQ(t.what, truncation::kind::to_offset);
  EXPECT_EQ(t.at, offset(90));
  EXPECT_NE(t.reason.find("does not have that epoch"), std::string::npos) << t.reason;
}

TEST(FollowerTruncation, NoLocalEpochBelowTheLeadersUsesTheLeadersEnd) {
  auto t = truncation_for_divergence({leader_epoch(1), offset(10)}, storage::undefined_epoch, offset(-1), offset(50));
  EXPECT_EQ(t.at, offset(10));
}

TEST(FollowerTruncation, NothingToCutWhenTheLogEndsFirst) {
  auto t = truncation_for_divergence({leader_epoch(3), offset(120)}, leader_epoch(3), offset(100), offset(100));
  EXPECT_EQ(t.what, truncation::kind::none);
}

TEST(FollowerReset, ALeaderWithLessThanThisReplicaCutsItBack) {
  auto d = reset_after_out_of_range(offset(80), offset(0), offset(100));
  EXPECT_EQ(d.cut.what, truncation::kind::to_offset);
  EXPECT_EQ(d.cut.at, offset(80));
  EXPECT_EQ(d.fetch_offset, offset(80));
}

TEST(FollowerReset, ALeaderStartingAboveThisLogEmptiesIt) {
  auto d = reset_after_out_of_range(offset(5000), offset(3000), offset(100));
  EXPECT_EQ(d.cut.what, truncation::kind::fully_and_start_at);
  EXPECT_EQ(d.cut.at, offset(3000));
  EXPECT_EQ(d.fetch_offset, offset(3000));
}

TEST(FollowerReset, OtherwiseFetchOnFromTheLogEnd) {
  auto d = reset_after_out_of_range(offset(5000), offset(50), offset(100));
  EXPECT_EQ(d.cut.what, truncation::kind::none);
  EXPECT_EQ(d.fetch_offset, offset(100));
}

TEST(FollowerState, FetchesFromTheLogEndWithTheLastEpochAndFollowsAppends) {
  follower_state s(1000);
  s.start(leader_epoch(7), offset(40), leader_epoch(6));
  EXPECT_TRUE(s.ready(0));
  EXPECT_EQ(s.position().fetch_offset, offset(40));
  EXPECT_EQ(s.position().last_fetched_epoch, leader_epoch(6));
  EXPECT_EQ(s.position().current_leader_epoch, leader_epoch(7));
  EXPECT_TRUE(s.on_appended(offset(40), offset(55), leader_epoch(7), offset(60)));
  EXPECT_EQ(s.position().fetch_offset, offset(55));
  EXPECT_EQ(s.position().last_fetched_epoch, leader_epoch(7));
  EXPECT_EQ(s.lag(), 5);
  // An answer to a request made before the position moved is ignored.
  EXPECT_FALSE(s.on_appended(offset(40), offset(70), leader_epoch(7), offset(70)));
  EXPECT_EQ(s.position().fetch_offset, offset(55));
}

TEST(FollowerState, AnAnswerAfterABackoffMovesThePosition) {
  // The request went out once the backoff ended; its records count.
  follower_state s(1000);
  s.start(leader_epoch(0), offset(0), std::nullopt);
  s.on_error(error_code::not_leader_or_follower, 0);
  ASSERT_TRUE(s.ready(1000));
  EXPECT_TRUE(s.on_appended(offset(0), offset(40), leader_epoch(0), offset(40)));
  EXPECT_EQ(s.position().fetch_offset, offset(40));
  EXPECT_TRUE(s.ready(1000));
}

TEST(FollowerState, AnEmptyLogFetchesWithoutAnEpoch) {
  follower_state s(1000);
  s.start(leader_epoch(0), offset(0), std::nullopt);
  EXPECT_FALSE(s.position().last_fetched_epoch);
}

TEST(FollowerState, ErrorsBackOffFenceOrReset) {
  follower_state s(1000);
  s.start(leader_epoch(2), offset(10), leader_epoch(2));
  s.on_error(error_code::not_leader_or_follower, 5000);
  EXPECT_EQ(s.phase(5000), follower_phase::delayed);
  EXPECT_EQ(s.phase(5999), follower_phase::delayed);
  EXPECT_EQ(s.phase(6000), follower_phase::fetching);
  s.on_error(error_code::unknown_leader_epoch, 6000);
  EXPECT_FALSE(s.ready(6500));
  s.on_request_failed(7000);
  EXPECT_FALSE(s.ready(7999));
  EXPECT_TRUE(s.ready(8000));

  s.on_error(error_code::offset_out_of_range, 8000);
  EXPECT_EQ(s.phase(9000), follower_phase::resetting);
  s.on_reset(offset(3000), std::nullopt, offset(5000));
  EXPECT_TRUE(s.ready(9000));
  EXPECT_EQ(s.position().fetch_offset, offset(3000));
  EXPECT_EQ(s.lag(), 2000);

  s.on_error(error_code::fenced_leader_epoch, 9000);
  EXPECT_EQ(s.phase(1'000'000), follower_phase::awaiting_epoch);
  s.on_request_failed(1'000'000);
  EXPECT_EQ(s.phase(2'000'000), follower_phase::awaiting_epoch) << "only new metadata ends the wait";
  s.start(leader_epoch(3), offset(3000), std::nullopt);
  EXPECT_TRUE(s.ready(2'000'000));
}

TEST(FollowerState, TruncationMovesTheFetchPosition) {
  follower_state s(1000);
  s.start(leader_epoch(5), offset(150), leader_epoch(4));
  s.on_truncated(offset(120), leader_epoch(3));
  EXPECT_EQ(s.position().fetch_offset, offset(120));
  EXPECT_EQ(s.position().last_fetched_epoch, leader_epoch(3));
}

TEST(FollowerState, AStorageErrorStopsIt) {
  follower_state s(1000);
  s.start(leader_epoch(1), offset(0), std::nullopt);
  s.on_storage_error();
  EXPECT_EQ(s.phase(1'000'000), follower_phase::failed);
}

}  // namespace
}  // namespace hw::broker
