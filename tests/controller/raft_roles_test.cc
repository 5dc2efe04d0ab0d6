// The role states raft_core keeps: the leader's progress (committed end,
// check-quorum, BeginQuorumEpoch resends, successors), a follower's snapshot
// copy, and the vote rule.
#include <gtest/gtest.h>

#include "tests/controller/raft_core_harness.h"
#include "controller/raft/raft_roles.h"

namespace hw::controller::raft {
namespace {

using testing::ep;
using testing::n;
using testing::off;

fetch_request fetch_at(int64_t offset, int32_t last_epoch) {
  fetch_request m;
  m.fetch_offset = off(offset);
  m.last_fetched_epoch = ep(last_epoch);
  return m;
}

TEST(raft_roles, the_committed_end_is_what_a_majority_holds_once_past_the_epoch_start) {
  raft_log log(snapshot_id{}, {testing::entry(0, 1, 5), testing::entry(5, 2, 1)});
  leader_progress l;
  l.start(n(1), {n(1), n(2), n(3)}, off(5), 0);
  EXPECT_EQ(l.committed_end(off(6)), std::nullopt) << "no follower holds anything yet";
  fetch_response r;
  l.serve_fetch(n(2), fetch_at(5, 1), log, 100, 10, r);
  EXPECT_EQ(l.committed_end(off(6)), std::nullopt) << "a majority at 5 is not past the epoch start";
  fetch_response r2;
  l.serve_fetch(n(2), fetch_at(6, 2), log, 100, 20, r2);
  EXPECT_EQ(l.committed_end(off(6)), off(6));
  EXPECT_EQ(l.committed_end(off(5)), std::nullopt) << "the leader's own durable end is one of the majority";
  EXPECT_EQ(l.successors(), (std::vector<node_id>{n(2), n(3)}));
}

TEST(raft_roles, a_fetch_with_a_diverging_log_records_no_end) {
  raft_log log(snapshot_id{}, {testing::entry(0, 1, 3), testing::entry(3, 3, 2)});
  leader_progress l;
  l.start(n(1), {n(1), n(2), n(3)}, off(5), 0);
  fetch_response r;
  l.serve_fetch(n(2), fetch_at(4, 2), log, 100, 10, r);
  ASSERT_TRUE(r.diverging_epoch);
  EXPECT_EQ(r.diverging_epoch->end_offset, off(3));
  EXPECT_TRUE(r.entries.empty());
  EXPECT_EQ(l.views(off(5), 10).at(n(2)).end, off(-1));
  EXPECT_EQ(l.views(off(5), 10).at(n(2)).last_fetch_ms, 10) << "a fetch still counts as contact";
}

TEST(raft_roles, check_quorum_counts_voters_heard_within_the_window) {
  raft_log log(snapshot_id{}, {testing::entry(0, 1, 1)});
  leader_progress l;
  l.start(n(1), {n(1), n(2), n(3)}, off(0), 1000);
  EXPECT_TRUE(l.has_quorum(3000, 3000)) << "a new term has the whole window";
  EXPECT_FALSE(l.has_quorum(4000, 3000));
  fetch_response r;
  l.serve_fetch(n(3), fetch_at(1, 1), log, 100, 3500, r);
  EXPECT_TRUE(l.has_quorum(4000, 3000));
  EXPECT_FALSE(l.has_quorum(6600, 3000));
}

TEST(raft_roles, begin_epochs_go_to_voters_not_yet_heard_and_resend_when_due) {
  raft_log log(snapshot_id{}, {testing::entry(0, 1, 1)});
  leader_progress l;
  l.start(n(1), {n(1), n(2), n(3)}, off(0), 100);
  EXPECT_EQ(l.take_begin_epochs_due(100, false, 500), (std::vector<node_id>{n(2), n(3)}));
  EXPECT_TRUE(l.take_begin_epochs_due(300, true, 500).empty()) << "not due yet";
  l.begin_acked(n(2));
  EXPECT_EQ(l.take_begin_epochs_due(600, true, 500), (std::vector<node_id>{n(3)}));
  fetch_response r;
  l.serve_fetch(n(3), fetch_at(0, 0), log, 100, 700, r);
  EXPECT_TRUE(l.take_begin_epochs_due(2000, true, 500).empty()) << "a fetch in the term is as good as an ack";
}

TEST(raft_roles, a_snapshot_copy_assembles_chunks_in_order_and_restarts_on_a_gap) {
  fetch_progress f;
  snapshot_id s{off(10), ep(2)};
  f.start_copy(s);
  fetch_snapshot_response m;
  m.snapshot = s;
  m.size = 5;
  m.position = 0;
  m.bytes = {1, 2, 3};
  EXPECT_EQ(f.add_chunk(m), fetch_progress::chunk::more);
  EXPECT_EQ(f.copied_bytes(), 3);
  fetch_snapshot_response last = m;
  last.position = 3;
  last.bytes = {4, 5};
  EXPECT_EQ(f.add_chunk(last), fetch_progress::chunk::complete);
  auto [id, bytes] = f.finish_copy();
  EXPECT_EQ(id, s);
  EXPECT_EQ(bytes, (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  EXPECT_FALSE(f.copying());

  f.start_copy(s);
  fetch_snapshot_response gap = m;
  gap.position = 2;
  EXPECT_EQ(f.add_chunk(gap), fetch_progress::chunk::restart);
  EXPECT_FALSE(f.copying());
}

TEST(raft_roles, a_fetch_answer_counts_once_and_a_lost_one_expires) {
  fetch_progress f;
  EXPECT_TRUE(f.may_fetch(0));
  f.sent(7, 100);
  EXPECT_FALSE(f.may_fetch(100));
  EXPECT_FALSE(f.take_answer(6));
  EXPECT_FALSE(f.expire(500, 500));
  EXPECT_TRUE(f.expire(600, 500));
  EXPECT_FALSE(f.take_answer(7)) << "given up: a late answer is stale";
  f.back_off(700);
  EXPECT_FALSE(f.may_fetch(650));
  EXPECT_TRUE(f.may_fetch(700));
}

TEST(raft_roles, the_vote_rule) {
  voter_standing me{role::unattached, false, {ep(3), no_node, no_node}, ep(2), off(10), false};
  EXPECT_TRUE(grants_vote(me, n(2), false, ep(2), off(10)));
  EXPECT_FALSE(grants_vote(me, n(2), false, ep(2), off(9))) << "shorter log";
  EXPECT_TRUE(grants_vote(me, n(2), false, ep(3), off(1))) << "a newer last epoch wins over length";
  me.state.voted_id = n(3);
  EXPECT_FALSE(grants_vote(me, n(2), false, ep(2), off(10))) << "one vote per epoch";
  EXPECT_TRUE(grants_vote(me, n(3), false, ep(2), off(10))) << "the same vote again";
  voter_standing follower{role::follower, true, {ep(3), n(1), no_node}, ep(2), off(10), false};
  EXPECT_FALSE(grants_vote(follower, n(2), true, ep(2), off(10))) << "KIP-996: a follower that hears its leader";
  follower.heard_from_leader = false;
  EXPECT_TRUE(grants_vote(follower, n(2), true, ep(2), off(10)));
  EXPECT_FALSE(grants_vote(follower, n(2), false, ep(2), off(10))) << "the epoch has a leader";
}

}  // namespace
}  // namespace hw::controller::raft
