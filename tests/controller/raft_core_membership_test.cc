// Voter changes in a dynamic quorum (KIP-853) through the raft core: a
// controller formatted without voters follows as an observer and is added
// once caught up; Kafka's refusals, in Kafka's order and words; a leader
// that removes itself resigns once the removal is committed; a voter set
// that a truncation takes away is forgotten.
#include <gtest/gtest.h>

#include "controller/raft/raft_core.h"
#include "tests/controller/raft_core_harness.h"

namespace hw::controller::raft {
namespace {

using namespace testing;
using protocol::error_code;

std::string key(int32_t id) { return replica_key_string(n(id), directory_of(id)); }

// Node 1 formatted --standalone, node 2 (and 3) --no-initial-controllers,
// asking node 1 who leads; node 1 leads and the others follow it.
struct standalone_and_observers : ::testing::Test {
  void SetUp() override {
    c.add_dynamic(1, std::vector<int32_t>{1});
    c.add_dynamic(2, std::nullopt, {1});
    c.add_dynamic(3, std::nullopt, {1});
    c.advance(3000);
    ASSERT_EQ(c.leader(), n(1));
    ASSERT_EQ(c[2].leader_id(), n(1));
    ASSERT_EQ(c[3].leader_id(), n(1));
  }
  mini_cluster c;
};

TEST_F(standalone_and_observers, an_observer_that_caught_up_becomes_a_voter) {
  EXPECT_TRUE(c[1].dynamic_quorum());
  EXPECT_FALSE(c[2].is_voter());
  EXPECT_EQ(c[2].voters().size(), 1u);  // node 1, from the first batch of its epoch
  auto begun = c[1].begin_add_voter(voter_of(2));
  ASSERT_EQ(begun.error, error_code::none) << begun.message;
  auto done = c[1].finish_add_voter(voter_of(2));
  ASSERT_EQ(done.error, error_code::none) << done.message;
  EXPECT_EQ(done.entry, c[1].log().end_offset() - 1);
  c.advance(500);
  EXPECT_GT(c[1].high_watermark(), done.entry);
  EXPECT_EQ(c[1].voters().ids(), (std::vector<node_id>{n(1), n(2)}));
  EXPECT_EQ(c[2].voters().ids(), (std::vector<node_id>{n(1), n(2)}));
  EXPECT_TRUE(c[2].is_voter());
  EXPECT_FALSE(c[3].is_voter());
  // Two voters now: nothing commits without node 2.
  c.down.push_back(n(2));
  const offset hw = c[1].high_watermark();
  ASSERT_EQ(c[1].propose({{'x'}}).error, propose_error::none);
  c.advance(500);
  EXPECT_EQ(c[1].high_watermark(), hw);
  c.down.clear();
  c.advance(500);
  EXPECT_GT(c[1].high_watermark(), hw);
}

TEST_F(standalone_and_observers, refusals_in_kafkas_order_and_words) {
  auto r = c[2].begin_add_voter(voter_of(3));
  EXPECT_EQ(r.error, error_code::not_leader_or_follower);
  r = c[1].begin_add_voter(voter_of(1));
  EXPECT_EQ(r.error, error_code::duplicate_voter);
  EXPECT_EQ(r.message, "The voter id for " + key(1) + " is already part of the set of voters [" + key(1) + "].");
  // The last voter cannot go, nor a voter named with another directory.
  r = c[1].remove_voter(n(1), directory_of(1));
  EXPECT_EQ(r.error, error_code::voter_not_found);
  EXPECT_EQ(r.message, "Cannot remove voter " + key(1) + " from the set of voters [" + key(1) + "]");
  r = c[1].remove_voter(n(1), directory_of(7));
  EXPECT_EQ(r.error, error_code::voter_not_found);
  // One change at a time: an add waiting for its new voter's ApiVersions.
  ASSERT_EQ(c[1].begin_add_voter(voter_of(2)).error, error_code::none);
  r = c[1].begin_add_voter(voter_of(3));
  EXPECT_EQ(r.error, error_code::request_timed_out);
  EXPECT_EQ(r.message, "Request timed out waiting for leader to handle previous voter change request");
  EXPECT_EQ(c[1].remove_voter(n(1), directory_of(1)).message, r.message);
  c[1].abort_add_voter();
  // A replica that never fetched with that directory is lagging.
  voter stranger = voter_of(3);
  stranger.directory_id = directory_of(9);
  ASSERT_EQ(c[1].begin_add_voter(stranger).error, error_code::none);
  r = c[1].finish_add_voter(stranger);
  EXPECT_EQ(r.error, error_code::request_timed_out);
  EXPECT_EQ(r.message, "Aborted add voter operation for " + replica_key_string(n(3), directory_of(9)) +
                           " since it is lagging behind");
  // An uncommitted change holds the next one back.
  c.down.push_back(n(2));
  ASSERT_EQ(c[1].begin_add_voter(voter_of(2)).error, error_code::none);
  auto added = c[1].finish_add_voter(voter_of(2));
  ASSERT_EQ(added.error, error_code::none);
  c.advance(100);
  // Still the same add: its timer (controller.quorum.request.timeout.ms) covers the commit too.
  r = c[1].begin_add_voter(voter_of(3));
  EXPECT_EQ(r.message, "Request timed out waiting for leader to handle previous voter change request");
  c.advance(500);
  r = c[1].begin_add_voter(voter_of(3));
  EXPECT_EQ(r.error, error_code::request_timed_out);
  EXPECT_EQ(r.message, "Request timed out waiting for voters to commit the latest voter change at Optional[" +
                           std::to_string(added.entry.value) + "] with HWM " +
                           std::to_string(c[1].high_watermark().value));
}

TEST(raft_core_membership, a_static_quorum_refuses_changes) {
  mini_cluster c;
  c.add(1, {1});
  c.advance(100);
  ASSERT_EQ(c.leader(), n(1));
  auto r = c[1].begin_add_voter(voter_of(2));
  EXPECT_EQ(r.error, error_code::unsupported_version);
  EXPECT_EQ(r.message, "Cluster doesn't support adding voter because the kraft.version feature is 0");
  r = c[1].remove_voter(n(1), protocol::uuid{});
  EXPECT_EQ(r.message, "Cluster doesn't support removing voter because the kraft.version feature is 0");
}

TEST(raft_core_membership, a_leader_that_removes_itself_resigns_once_committed) {
  mini_cluster c;
  for (int32_t id : {1, 2, 3}) c.add_dynamic(id, std::vector<int32_t>{1, 2, 3});
  c.advance(3000);
  ASSERT_EQ(c.leader(), n(1));
  auto r = c[1].remove_voter(n(1), directory_of(1));
  ASSERT_EQ(r.error, error_code::none) << r.message;
  c.advance(5000);
  const node_id leader = c.leader();
  ASSERT_NE(leader, no_node);
  EXPECT_NE(leader, n(1));
  EXPECT_FALSE(c[1].is_voter());
  EXPECT_EQ(c[2].voters().ids(), (std::vector<node_id>{n(2), n(3)}));
  // Node 1 follows the new leader as an observer, and never stands again.
  EXPECT_EQ(c[1].leader_id(), leader);
  const epoch e = c[1].current_epoch();
  c.advance(10000);
  EXPECT_EQ(c[1].current_epoch(), e);
  EXPECT_NE(c[1].current_role(), role::candidate);
}

TEST(raft_core_membership, a_truncated_voter_change_is_forgotten) {
  // Follower 2 of a dynamic {1,2,3} under leader 1, epoch 1.
  raft_options o = options_for(2, {});
  o.directory_id = directory_of(2);
  raft_disk_state d;
  d.state = {ep(1), n(1), no_node};
  d.snapshot_voters = voters_of({1, 2, 3});
  raft_core f(o, std::move(d), 0);
  auto fetches = messages_of<fetch_request>(f.take_ready());
  ASSERT_EQ(fetches.size(), 1u);
  EXPECT_EQ(fetches[0].second.replica_directory_id, directory_of(2));
  // It fetches a LeaderChange and an uncommitted change that adds 4.
  log_entry change{off(1), ep(1), true, {{}}, 0, voters_of({1, 2, 3, 4})};
  fetch_response r;
  r.correlation = fetches[0].second.correlation;
  r.current = {n(1), ep(1)};
  r.entries = {log_entry{off(0), ep(1), true, {{}}, 0}, change};
  f.receive(n(1), r);
  EXPECT_EQ(f.voters().size(), 4u);
  f.take_ready();
  f.persisted(off(2));
  auto next = messages_of<fetch_request>(f.take_ready());
  ASSERT_EQ(next.size(), 1u);
  // A new leader (3, epoch 2) never had it: the follower cuts back to 1.
  f.receive(n(3), begin_quorum_epoch_request{7, n(3), ep(2)});
  auto again = messages_of<fetch_request>(f.take_ready());
  ASSERT_EQ(again.size(), 1u);
  fetch_response cut;
  cut.correlation = again[0].second.correlation;
  cut.current = {n(3), ep(2)};
  cut.diverging_epoch = epoch_end_offset{ep(1), off(1)};
  f.receive(n(3), cut);
  EXPECT_EQ(f.log().end_offset(), off(1));
  EXPECT_EQ(f.voters().size(), 3u);
  EXPECT_FALSE(f.voters().contains(n(4)));
}

TEST_F(standalone_and_observers, a_voter_at_a_new_address_updates_its_entry) {
  ASSERT_EQ(c[1].begin_add_voter(voter_of(2)).error, error_code::none);
  ASSERT_EQ(c[1].finish_add_voter(voter_of(2)).error, error_code::none);
  c.advance(500);
  voter moved = voter_of(2);
  moved.endpoints = {{"CONTROLLER", "127.0.0.9", 19092}};
  // Only the leader, a known voter with its directory, the default listener
  // and a kraft.version range holding 1.
  EXPECT_EQ(c[2].update_voter(moved, "CONTROLLER").error, error_code::not_leader_or_follower);
  voter stranger = moved;
  stranger.directory_id = directory_of(9);
  EXPECT_EQ(c[1].update_voter(stranger, "CONTROLLER").error, error_code::voter_not_found);
  voter observer = voter_of(3);
  EXPECT_EQ(c[1].update_voter(observer, "CONTROLLER").error, error_code::voter_not_found);
  EXPECT_EQ(c[1].update_voter(moved, "OTHER").error, error_code::invalid_request);
  voter old_range = moved;
  old_range.max_kraft_version = 0;
  EXPECT_EQ(c[1].update_voter(old_range, "CONTROLLER").error, error_code::invalid_request);
  auto r = c[1].update_voter(moved, "CONTROLLER");
  ASSERT_EQ(r.error, error_code::none);
  EXPECT_EQ(r.entry, c[1].log().end_offset() - 1);
  // Until that entry commits, another change waits.
  EXPECT_EQ(c[1].update_voter(moved, "CONTROLLER").error, error_code::request_timed_out);
  c.advance(500);
  for (int id : {1, 2}) {
    const voter* v = c[id].voters().find(n(2));
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->endpoints, moved.endpoints) << "node " << id;
  }
  // The same again changes nothing and writes nothing.
  const offset end = c[1].log().end_offset();
  EXPECT_EQ(c[1].update_voter(moved, "CONTROLLER").error, error_code::none);
  EXPECT_EQ(c[1].log().end_offset(), end);
}

TEST_F(standalone_and_observers, an_observer_silent_for_five_minutes_is_forgotten) {
  c.advance(500);
  ASSERT_TRUE(c[1].replica_views().count(n(3)));
  c.down.push_back(n(3));
  c.advance(299'000);
  EXPECT_TRUE(c[1].replica_views().count(n(3)));
  c.advance(2'000);
  EXPECT_FALSE(c[1].replica_views().count(n(3)));
  EXPECT_TRUE(c[1].replica_views().count(n(2)));  // still fetching
  EXPECT_TRUE(c[1].replica_views().count(n(1)));
  // Back: shown again from its next fetch.
  c.down.clear();
  c.advance(500);
  EXPECT_TRUE(c[1].replica_views().count(n(3)));
}

}  // namespace
}  // namespace hw::controller::raft
