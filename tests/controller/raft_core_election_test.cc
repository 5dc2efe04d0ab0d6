// The raft core's election rules: vote granting, log up-to-dateness,
// pre-vote, durable state before the answer, check-quorum, resignation.
#include <gtest/gtest.h>

#include "controller/raft/raft_core.h"
#include "controller/raft/raft_quorum_state.h"
#include "tests/controller/raft_core_harness.h"

namespace hw::controller::raft {
namespace {

using namespace testing;

vote_request vote(int32_t candidate, int32_t e, int32_t last_epoch, int64_t end, bool pre = false) {
  return vote_request{7, ep(e), n(candidate), ep(last_epoch), off(end), pre};
}

// A voter of {1,2,3} at epoch 2 holding [0,2) of epoch 1 and [2,4) of epoch 2.
raft_core voter_with_log(int32_t self = 1) {
  raft_disk_state d;
  d.state = {ep(2), no_node, no_node};
  d.entries = {entry(0, 1, 2), entry(2, 2, 2)};
  return raft_core(options_for(self, {1, 2, 3}), std::move(d), 0);
}

vote_response only_vote_response(const ready& r) {
  auto v = messages_of<vote_response>(r);
  EXPECT_EQ(v.size(), 1u);
  return v.empty() ? vote_response{} : v[0].second;
}

// The only voter leads at once (no election timeout to wait out), as
// Kafka's single-voter quorum does.
TEST(raft_core_election, single_voter_elects_itself_and_commits_its_leader_change) {
  raft_core c(options_for(1, {1}), {}, 0);
  ASSERT_EQ(c.current_role(), role::leader);
  EXPECT_EQ(c.current_epoch(), ep(1));
  ready r = c.take_ready();
  ASSERT_TRUE(r.state);
  EXPECT_EQ(*r.state, (persistent_state{ep(1), n(1), n(1)}));
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_TRUE(r.entries[0].control);
  EXPECT_FALSE(r.high_watermark);  // not durable yet
  c.persisted(off(1));
  EXPECT_EQ(c.take_ready().high_watermark, off(1));
}

TEST(raft_core_election, grants_one_vote_per_epoch_and_persists_it_with_the_answer) {
  raft_core c = voter_with_log();
  c.take_ready();
  c.receive(n(2), vote(2, 3, 2, 4));
  ready r = c.take_ready();
  EXPECT_TRUE(only_vote_response(r).vote_granted);
  // The vote travels in the same ready as its durable record.
  ASSERT_TRUE(r.state);
  EXPECT_EQ(*r.state, (persistent_state{ep(3), no_node, n(2)}));
  // Same epoch, another candidate with an even better log: no.
  c.receive(n(3), vote(3, 3, 2, 10));
  EXPECT_FALSE(only_vote_response(c.take_ready()).vote_granted);
  // The same candidate asking again (a retry) gets the same answer.
  c.receive(n(2), vote(2, 3, 2, 4));
  EXPECT_TRUE(only_vote_response(c.take_ready()).vote_granted);
}

TEST(raft_core_election, refuses_candidates_with_an_older_log) {
  {
    raft_core c = voter_with_log();
    c.receive(n(2), vote(2, 3, 1, 100));  // lower last epoch, however long
    EXPECT_FALSE(only_vote_response(c.take_ready()).vote_granted);
  }
  {
    raft_core c = voter_with_log();
    c.receive(n(2), vote(2, 3, 2, 3));  // same epoch, shorter
    EXPECT_FALSE(only_vote_response(c.take_ready()).vote_granted);
  }
  {
    raft_core c = voter_with_log();
    c.receive(n(2), vote(2, 3, 3, 1));  // higher last epoch, shorter
    EXPECT_TRUE(only_vote_response(c.take_ready()).vote_granted);
  }
  {
    raft_core c = voter_with_log();
    c.receive(n(2), vote(2, 1, 2, 4));  // an older epoch is fenced
    vote_response v = only_vote_response(c.take_ready());
    EXPECT_FALSE(v.vote_granted);
    EXPECT_EQ(v.error, protocol::error_code::fenced_leader_epoch);
  }
}

TEST(raft_core_election, the_unsafe_switch_skips_the_log_check) {
  raft_options o = options_for(1, {1, 2, 3});
  o.unsafe.grant_votes_without_log_check = true;
  raft_disk_state d;
  d.entries = {entry(0, 1, 2)};
  raft_core c(o, std::move(d), 0);
  c.receive(n(2), vote(2, 3, 0, 0));
  EXPECT_TRUE(only_vote_response(c.take_ready()).vote_granted);
}

TEST(raft_core_election, pre_vote_neither_bumps_the_epoch_nor_records_a_vote) {
  raft_core c = voter_with_log();
  c.take_ready();
  c.receive(n(2), vote(2, 2, 2, 4, true));
  ready r = c.take_ready();
  vote_response v = only_vote_response(r);
  EXPECT_TRUE(v.vote_granted);
  EXPECT_TRUE(v.pre_vote);
  EXPECT_FALSE(r.state);
  EXPECT_EQ(c.current_epoch(), ep(2));
  EXPECT_EQ(c.voted_id(), no_node);
  // A pre-vote is still refused to an older log.
  c.receive(n(3), vote(3, 2, 2, 3, true));
  EXPECT_FALSE(only_vote_response(c.take_ready()).vote_granted);
}

TEST(raft_core_election, a_follower_that_hears_from_its_leader_refuses_pre_votes) {
  mini_cluster c;
  for (int i = 1; i <= 3; ++i) c.add(i, {1, 2, 3});
  c.advance(1000);
  node_id leader = c.leader();
  ASSERT_NE(leader, no_node);
  int32_t follower = leader == n(1) ? 2 : 1;
  int32_t other = 6 - leader.value - follower;
  c[follower].receive(n(other), vote(other, c[follower].current_epoch().value, 1, 1, true));
  EXPECT_FALSE(only_vote_response(c[follower].take_ready()).vote_granted);
  // Without news from the leader for a fetch timeout it would grant.
  c.down = {leader, n(other)};
  c.advance(2100);
  c[follower].take_ready();
  c[follower].receive(n(other), vote(other, c[follower].current_epoch().value, 1, 1000, true));
  EXPECT_TRUE(only_vote_response(c[follower].take_ready()).vote_granted);
}

TEST(raft_core_election, three_voters_elect_through_pre_vote_and_tell_everyone) {
  mini_cluster c;
  for (int i = 1; i <= 3; ++i) c.add(i, {1, 2, 3});
  c.advance(990);
  EXPECT_EQ(c.leader(), no_node);
  c.advance(10);  // all time out together; ids break no tie, the first to ask wins
  node_id leader = c.leader();
  ASSERT_NE(leader, no_node);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(c[i].current_epoch(), ep(1)) << i;
    EXPECT_EQ(c[i].leader_id(), leader) << i;
  }
  c.advance(50);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(c[i].high_watermark(), off(1)) << i;
}

TEST(raft_core_election, a_candidate_without_a_majority_retries_with_pre_vote_and_never_leads) {
  mini_cluster c;
  for (int i = 1; i <= 3; ++i) c.add(i, {1, 2, 3});
  c.down = {n(2), n(3)};
  c.advance(5000);
  EXPECT_EQ(c[1].current_role(), role::prospective);
  EXPECT_EQ(c[1].current_epoch(), ep(0));  // pre-votes failed: no epoch bump
}

TEST(raft_core_election, check_quorum_makes_a_cut_off_leader_resign) {
  mini_cluster c;
  for (int i = 1; i <= 3; ++i) c.add(i, {1, 2, 3});
  c.advance(1000);
  node_id leader = c.leader();
  ASSERT_NE(leader, no_node);
  std::vector<node_id> others;
  for (int i = 1; i <= 3; ++i) {
    if (n(i) != leader) others.push_back(n(i));
  }
  c.down = others;
  // Kafka's check-quorum timeout is 1.5 fetch timeouts (2000 ms here).
  c.advance(2900);
  EXPECT_EQ(c[leader.value].current_role(), role::leader);
  c.advance(110);
  raft_core& l = c[leader.value];
  EXPECT_EQ(l.current_role(), role::resigned);
  EXPECT_EQ(l.propose({{1}}).error, propose_error::not_leader);
  // As Kafka, a resigned leader moves past its epoch after an election
  // timeout (at most 2000 ms here), then elects like anyone else.
  epoch led = l.current_epoch();
  c.advance(2000);
  EXPECT_EQ(l.current_epoch(), led + 1);
  EXPECT_NE(l.current_role(), role::leader);
}

TEST(raft_core_election, resign_names_successors_by_fetch_offset_and_the_first_runs_at_once) {
  mini_cluster c;
  for (int i = 1; i <= 3; ++i) c.add(i, {1, 2, 3});
  c.advance(1000);
  node_id leader = c.leader();
  ASSERT_NE(leader, no_node);
  c[leader.value].resign();
  ready r = c[leader.value].take_ready();
  auto ends = messages_of<end_quorum_epoch_request>(r);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0].second.preferred_successors.size(), 2u);
  node_id first = ends[0].second.preferred_successors[0];
  EXPECT_NE(first, leader);
  // Deliver them; the first successor starts its election on its next tick.
  for (auto& [to, m] : ends) c[to.value].receive(leader, m);
  c.step();
  c.advance(10);
  EXPECT_EQ(c.leader(), first);
  EXPECT_EQ(c[first.value].current_epoch(), ep(2));
}

TEST(raft_core_election, a_restarted_leader_resumes_resigned_and_never_leads_its_old_epoch) {
  raft_disk_state d;
  d.state = {ep(4), n(1), n(1)};
  d.entries = {entry(0, 4)};
  raft_core c(options_for(1, {1, 2, 3}), std::move(d), 0);
  EXPECT_EQ(c.current_role(), role::resigned);
  EXPECT_EQ(c.propose({{1}}).error, propose_error::not_leader);
}

TEST(raft_core_election, observers_never_vote_nor_run) {
  raft_core c(options_for(9, {1, 2, 3}), {}, 0);
  c.receive(n(2), vote(2, 1, 0, 0));
  vote_response v = only_vote_response(c.take_ready());
  EXPECT_FALSE(v.vote_granted);
  c.tick(100000);
  EXPECT_EQ(c.current_role(), role::unattached);
  EXPECT_EQ(messages_of<vote_request>(c.take_ready()).size(), 0u);
}

TEST(raft_core_election, a_prospective_voter_rejected_by_a_majority_follows_its_leader_again) {
  raft_disk_state d;
  d.state = {ep(3), n(2), no_node};
  raft_core c(options_for(1, {1, 2, 3}), std::move(d), 0);
  ASSERT_EQ(c.current_role(), role::follower);
  c.tick(2000);  // no fetch answer for a fetch timeout
  ASSERT_EQ(c.current_role(), role::prospective);
  auto pre = messages_of<vote_request>(c.take_ready());
  ASSERT_EQ(pre.size(), 2u);
  EXPECT_TRUE(pre[0].second.pre_vote);
  EXPECT_EQ(pre[0].second.replica_epoch, ep(3));
  uint64_t round = pre[0].second.correlation;
  c.receive(n(3), vote_response{round, protocol::error_code::none, {n(2), ep(3)}, false, true});
  EXPECT_EQ(c.current_role(), role::prospective);  // naming the known leader is no news
  c.receive(n(2), vote_response{round, protocol::error_code::none, {n(2), ep(3)}, false, true});
  EXPECT_EQ(c.current_role(), role::follower);
  EXPECT_EQ(c.leader_id(), n(2));
  EXPECT_EQ(c.current_epoch(), ep(3));
}

TEST(raft_core_election, a_duplicated_grant_counts_once) {
  raft_core c(options_for(1, {1, 2, 3, 4, 5}), {}, 0);
  c.tick(1000);
  uint64_t round = messages_of<vote_request>(c.take_ready())[0].second.correlation;
  for (int i = 0; i < 3; ++i) {
    c.receive(n(2), vote_response{round, protocol::error_code::none, {no_node, ep(0)}, true, true});
  }
  EXPECT_EQ(c.current_role(), role::prospective);  // 2 of 5
  c.receive(n(3), vote_response{round, protocol::error_code::none, {no_node, ep(0)}, true, true});
  EXPECT_EQ(c.current_role(), role::candidate);
  // A late pre-vote grant does not count as a vote.
  round = messages_of<vote_request>(c.take_ready())[0].second.correlation;
  c.receive(n(4), vote_response{round, protocol::error_code::none, {no_node, ep(1)}, true, true});
  c.receive(n(5), vote_response{round, protocol::error_code::none, {no_node, ep(1)}, true, true});
  EXPECT_EQ(c.current_role(), role::candidate);
}

TEST(raft_core_election, a_candidate_follows_the_leader_of_its_epoch) {
  raft_core c(options_for(1, {1, 2, 3}), {}, 0);
  c.tick(1000);
  uint64_t round = messages_of<vote_request>(c.take_ready())[0].second.correlation;
  c.receive(n(2), vote_response{round, protocol::error_code::none, {no_node, ep(0)}, true, true});
  ASSERT_EQ(c.current_role(), role::candidate);
  c.take_ready();
  c.receive(n(3), begin_quorum_epoch_request{1, n(3), ep(1)});
  ready r = c.take_ready();
  EXPECT_EQ(c.current_role(), role::follower);
  EXPECT_EQ(c.leader_id(), n(3));
  ASSERT_TRUE(r.state);
  EXPECT_EQ(*r.state, (persistent_state{ep(1), n(3), n(1)}));  // keeps its own vote of this epoch
  ASSERT_TRUE(r.leader);
  EXPECT_EQ(*r.leader, (leader_and_epoch{n(3), ep(1)}));
  EXPECT_EQ(messages_of<fetch_request>(r).size(), 1u);
}

TEST(raft_core_election, leadership_is_claimed_in_the_same_ready_as_its_durable_state) {
  raft_core c(options_for(1, {1, 2, 3}), {}, 0);
  c.tick(1000);
  uint64_t round = messages_of<vote_request>(c.take_ready())[0].second.correlation;
  c.receive(n(2), vote_response{round, protocol::error_code::none, {no_node, ep(0)}, true, true});
  ready r = c.take_ready();
  ASSERT_TRUE(r.state);  // the candidate's own vote, before its vote requests leave
  EXPECT_EQ(*r.state, (persistent_state{ep(1), no_node, n(1)}));
  auto votes = messages_of<vote_request>(r);
  ASSERT_EQ(votes.size(), 2u);
  EXPECT_FALSE(votes[0].second.pre_vote);
  c.receive(n(3), vote_response{votes[0].second.correlation, protocol::error_code::none, {no_node, ep(1)}, true,
                                false});
  r = c.take_ready();
  ASSERT_EQ(c.current_role(), role::leader);
  ASSERT_TRUE(r.state);
  EXPECT_EQ(r.state->leader_id, n(1));
  EXPECT_EQ(messages_of<begin_quorum_epoch_request>(r).size(), 2u);
  ASSERT_EQ(r.entries.size(), 1u);  // the LeaderChange entry opens the epoch
  EXPECT_TRUE(r.entries[0].control);
  EXPECT_EQ(r.entries[0].leader_epoch, ep(1));
}

TEST(raft_core_election, persistent_state_maps_to_quorum_state) {
  persistent_state s{ep(7), n(2), n(3)};
  quorum_state q = to_quorum_state(s);
  EXPECT_EQ(q.leader_epoch, 7);
  EXPECT_EQ(q.leader_id, 2);
  EXPECT_EQ(q.voted_id, 3);
  EXPECT_EQ(from_quorum_state(q), s);
  EXPECT_EQ(from_quorum_state(quorum_state{}), (persistent_state{ep(0), no_node, no_node}));
}

}  // namespace
}  // namespace hw::controller::raft
