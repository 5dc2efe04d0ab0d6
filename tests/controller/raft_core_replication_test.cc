// The raft core's replication rules: fetch from the durable end, divergence
// and truncation, the high watermark (majority of voters, own epoch first),
// observers, snapshots, stale answers.
#include <gtest/gtest.h>

#include "controller/raft/raft_core.h"
#include "tests/controller/raft_core_harness.h"

namespace hw::controller::raft {
namespace {

using namespace testing;

// A leader of epoch `e` over {1,2,3} whose log is `entries`; returned with
// its first ready (state, LeaderChange, BeginQuorumEpoch) taken and
// persisted.
raft_core leader_of(int32_t e, std::vector<log_entry> entries, int32_t self = 1) {
  raft_disk_state d;
  d.state = {ep(e - 1), no_node, no_node};
  d.entries = std::move(entries);
  raft_options o = options_for(self, {1, 2, 3});
  raft_core c(o, std::move(d), 0);
  c.tick(1000);  // prospective
  c.take_ready();
  for (int32_t v : {2, 3}) {
    c.receive(n(v), vote_response{1, protocol::error_code::none, {no_node, ep(e - 1)}, true, true});
  }
  EXPECT_EQ(c.current_role(), role::candidate);
  c.receive(n(2), vote_response{2, protocol::error_code::none, {no_node, ep(e)}, true, false});
  EXPECT_EQ(c.current_role(), role::leader);
  EXPECT_EQ(c.current_epoch(), ep(e));
  c.take_ready();
  c.persisted(c.log().end_offset());
  c.take_ready();
  return c;
}

fetch_response fetch(raft_core& leader, int32_t from, int64_t offset, int32_t last_epoch) {
  leader.receive(n(from), fetch_request{42, n(from), leader.current_epoch(), off(offset), ep(last_epoch), 0});
  auto r = messages_of<fetch_response>(leader.take_ready());
  EXPECT_EQ(r.size(), 1u);
  return r.empty() ? fetch_response{} : r[0].second;
}

TEST(raft_core_replication, leader_answers_a_diverged_fetch_with_the_epoch_end) {
  // Leader: epoch 1 [0,2), epoch 3 [2,3), then its LeaderChange at 3 (epoch 4).
  raft_core l = leader_of(4, {entry(0, 1, 2), entry(2, 3)});
  // A follower that holds epoch 2 entries [2,4) the leader never had.
  fetch_response r = fetch(l, 2, 4, 2);
  ASSERT_TRUE(r.diverging_epoch);
  EXPECT_EQ(*r.diverging_epoch, (epoch_end_offset{ep(1), off(2)}));
  EXPECT_TRUE(r.entries.empty());
  // Same epoch, but further than the leader's end of it.
  r = fetch(l, 3, 5, 3);
  ASSERT_TRUE(r.diverging_epoch);
  EXPECT_EQ(*r.diverging_epoch, (epoch_end_offset{ep(3), off(3)}));
  // A matching fetch gets batches.
  r = fetch(l, 2, 2, 1);
  EXPECT_FALSE(r.diverging_epoch);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0], entry(2, 3));
  EXPECT_TRUE(r.entries[1].control);
}

TEST(raft_core_replication, follower_truncates_to_the_divergence_and_refetches) {
  raft_disk_state d;
  d.state = {ep(4), n(1), no_node};
  d.entries = {entry(0, 1, 2), entry(2, 2, 2)};
  raft_core f(options_for(2, {1, 2, 3}), std::move(d), 0);
  ready r = f.take_ready();
  auto fr = messages_of<fetch_request>(r);
  ASSERT_EQ(fr.size(), 1u);
  EXPECT_EQ(fr[0].first, n(1));
  EXPECT_EQ(fr[0].second.fetch_offset, off(4));
  EXPECT_EQ(fr[0].second.last_fetched_epoch, ep(2));
  fetch_response resp;
  resp.correlation = fr[0].second.correlation;
  resp.current = {n(1), ep(4)};
  resp.diverging_epoch = epoch_end_offset{ep(1), off(2)};
  f.receive(n(1), resp);
  r = f.take_ready();
  EXPECT_EQ(r.truncate_to, off(2));
  EXPECT_EQ(f.log().end_offset(), off(2));
  fr = messages_of<fetch_request>(r);
  ASSERT_EQ(fr.size(), 1u);
  EXPECT_EQ(fr[0].second.fetch_offset, off(2));
  EXPECT_EQ(fr[0].second.last_fetched_epoch, ep(1));
  // A duplicate of the old answer is ignored (its correlation is stale).
  f.receive(n(1), resp);
  EXPECT_FALSE(f.take_ready().truncate_to);
}

TEST(raft_core_replication, follower_fetches_again_only_once_its_log_is_durable) {
  raft_disk_state d;
  d.state = {ep(1), n(1), no_node};
  raft_core f(options_for(2, {1, 2, 3}), std::move(d), 0);
  auto fr = messages_of<fetch_request>(f.take_ready());
  ASSERT_EQ(fr.size(), 1u);
  fetch_response resp;
  resp.correlation = fr[0].second.correlation;
  resp.current = {n(1), ep(1)};
  resp.entries = {entry(0, 1, 3)};
  resp.high_watermark = off(2);
  f.receive(n(1), resp);
  ready r = f.take_ready();
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.high_watermark, off(2));
  EXPECT_TRUE(messages_of<fetch_request>(r).empty());
  f.persisted(off(3));
  fr = messages_of<fetch_request>(f.take_ready());
  ASSERT_EQ(fr.size(), 1u);
  EXPECT_EQ(fr[0].second.fetch_offset, off(3));
}

TEST(raft_core_replication, high_watermark_waits_for_an_entry_of_the_leaders_epoch) {
  // Entries of epoch 1 at [0,3); the new leader's LeaderChange lands at 3.
  raft_core l = leader_of(2, {entry(0, 1, 3)});
  EXPECT_EQ(l.high_watermark(), off(0));
  // Follower 2 holds [0,3) (all the old entries) but not the LeaderChange:
  // a majority holds them, yet they are not committed by this epoch.
  fetch(l, 2, 3, 1);
  EXPECT_EQ(l.high_watermark(), off(0));
  // Once the follower holds the LeaderChange too, everything commits.
  fetch(l, 2, 4, 2);
  EXPECT_EQ(l.high_watermark(), off(4));
}

TEST(raft_core_replication, high_watermark_counts_the_leader_only_up_to_its_durable_end) {
  raft_core l = leader_of(1, {});
  EXPECT_EQ(l.propose({{1}, {2}}).base_offset, off(1));
  fetch(l, 2, 3, 1);  // the follower has everything
  EXPECT_EQ(l.high_watermark(), off(1));  // the leader's own copy of [1,3) is not durable
  l.persisted(off(3));
  EXPECT_EQ(l.high_watermark(), off(3));
  EXPECT_EQ(l.take_ready().high_watermark, off(3));
}

TEST(raft_core_replication, observers_learn_the_high_watermark_but_never_count) {
  raft_core l = leader_of(1, {});
  l.propose({{1}});
  l.persisted(off(2));
  fetch(l, 9, 2, 1);  // an observer with everything
  EXPECT_EQ(l.high_watermark(), off(0));
  fetch_response r = fetch(l, 3, 2, 1);  // a voter: now a majority
  EXPECT_EQ(l.high_watermark(), off(2));
  EXPECT_EQ(r.high_watermark, off(2));
  EXPECT_EQ(fetch(l, 9, 2, 1).high_watermark, off(2));
  EXPECT_EQ(l.replica_views().at(n(9)).end, off(2));
}

TEST(raft_core_replication, an_observer_finds_the_leader_through_any_voter) {
  raft_core o(options_for(9, {1, 2, 3}), {}, 0);
  o.tick(0);
  auto fr = messages_of<fetch_request>(o.take_ready());
  ASSERT_EQ(fr.size(), 1u);
  fetch_response resp;
  resp.correlation = fr[0].second.correlation;
  resp.error = protocol::error_code::not_leader_or_follower;
  resp.current = {n(2), ep(5)};
  o.receive(fr[0].first, resp);
  EXPECT_EQ(o.current_role(), role::follower);
  EXPECT_EQ(o.leader_id(), n(2));
  fr = messages_of<fetch_request>(o.take_ready());
  ASSERT_EQ(fr.size(), 1u);
  EXPECT_EQ(fr[0].first, n(2));
}

TEST(raft_core_replication, a_follower_below_the_log_start_copies_the_snapshot_then_fetches_after_it) {
  raft_disk_state d;
  d.state = {ep(2), no_node, no_node};
  d.snapshot = {off(10), ep(2)};
  d.snapshot_bytes = std::make_shared<const std::vector<uint8_t>>(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  d.entries = {entry(10, 2)};
  raft_core l(options_for(1, {1}), std::move(d), 0);
  l.tick(1000);
  ASSERT_EQ(l.current_role(), role::leader);
  l.take_ready();
  l.persisted(off(12));
  l.take_ready();

  raft_disk_state fd;
  fd.state = {ep(3), n(1), no_node};
  raft_options fo = options_for(2, {1});  // an observer
  fo.fetch_snapshot_max_bytes = 4;
  raft_core f(fo, std::move(fd), 0);
  std::vector<ready> follower_readies;
  int snapshot_requests = 0;
  for (int round = 0; round < 20 && f.has_ready(); ++round) {
    follower_readies.push_back(f.take_ready());
    for (auto& m : follower_readies.back().messages) {
      ASSERT_EQ(m.to, n(1));
      if (std::holds_alternative<fetch_snapshot_request>(m.body)) ++snapshot_requests;
      l.receive(n(2), m.body);
    }
    for (auto& m : l.take_ready().messages) f.receive(n(1), m.body);
    if (f.log().end_offset() > off(10)) break;
  }
  EXPECT_EQ(snapshot_requests, 3);  // 9 bytes, 4 at a time
  const ready* installed = nullptr;
  for (const auto& r : follower_readies) {
    if (r.install_snapshot) installed = &r;
  }
  ASSERT_NE(installed, nullptr);
  EXPECT_EQ(installed->install_snapshot->first, (snapshot_id{off(10), ep(2)}));
  EXPECT_EQ(*installed->install_snapshot->second, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  auto fr = messages_of<fetch_request>(*installed);
  ASSERT_EQ(fr.size(), 1u);  // the fetch after it goes out with it
  EXPECT_EQ(fr[0].second.fetch_offset, off(10));
  EXPECT_EQ(fr[0].second.last_fetched_epoch, ep(2));
  EXPECT_EQ(f.log().start_offset(), off(10));
  EXPECT_EQ(f.log().end_offset(), off(12));  // then the entries after it
  EXPECT_GE(f.high_watermark(), off(10));
}

TEST(raft_core_replication, compaction_only_behind_the_high_watermark_at_a_batch_end) {
  raft_core l = leader_of(1, {});
  l.propose({{1}, {2}});
  l.propose({{3}});
  auto bytes = std::make_shared<const std::vector<uint8_t>>(std::vector<uint8_t>{7});
  EXPECT_FALSE(l.compact({off(3), ep(1)}, bytes));  // not committed yet
  l.persisted(off(4));
  fetch(l, 2, 4, 1);
  ASSERT_EQ(l.high_watermark(), off(4));
  EXPECT_FALSE(l.compact({off(2), ep(1)}, bytes));  // inside a batch
  EXPECT_FALSE(l.compact({off(3), ep(0)}, bytes));  // wrong epoch
  EXPECT_TRUE(l.compact({off(3), ep(1)}, bytes));
  EXPECT_EQ(l.log().start_offset(), off(3));
  fetch_response r = fetch(l, 3, 1, 1);
  ASSERT_TRUE(r.snapshot);
  EXPECT_EQ(*r.snapshot, (snapshot_id{off(3), ep(1)}));
  EXPECT_EQ(r.log_start_offset, off(3));
}

TEST(raft_core_replication, proposals_need_a_leader_and_records) {
  raft_core f(options_for(2, {1, 2, 3}), {}, 0);
  EXPECT_EQ(f.propose({{1}}).error, propose_error::not_leader);
  raft_core l = leader_of(1, {});
  EXPECT_EQ(l.propose({}).error, propose_error::empty_batch);
  propose_result p = l.propose({{1}, {2}, {3}});
  EXPECT_EQ(p.error, propose_error::none);
  EXPECT_EQ(p.base_offset, off(1));  // after the LeaderChange
  EXPECT_EQ(l.propose({{4}}).base_offset, off(4));
}

TEST(raft_core_replication, a_stale_leader_is_fenced_by_a_newer_epoch) {
  raft_core l = leader_of(1, {});
  fetch_response r;
  l.receive(n(2), fetch_request{5, n(2), ep(0), off(0), ep(0), 0});
  auto out = messages_of<fetch_response>(l.take_ready());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].second.error, protocol::error_code::fenced_leader_epoch);
  l.receive(n(3), begin_quorum_epoch_request{1, n(3), ep(2)});
  EXPECT_EQ(l.current_role(), role::follower);
  EXPECT_EQ(l.leader_id(), n(3));
  EXPECT_EQ(l.current_epoch(), ep(2));
}

}  // namespace
}  // namespace hw::controller::raft
