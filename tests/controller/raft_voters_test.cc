// The voter sets a node counts at each offset of its log (raft_voters.h):
// a static quorum's never changes; a dynamic quorum's newest set wins,
// committed or not, and a truncation or a new snapshot brings back the set
// in force where the log now ends or starts.

#include <gtest/gtest.h>

#include "controller/raft/raft_voters.h"

namespace hw::controller::raft {
namespace {

voter v(int32_t id, uint8_t dir) {
  voter out;
  out.id = node_id{id};
  out.directory_id.bytes[15] = dir;
  out.endpoints.push_back({"CONTROLLER", "127.0.0.1", static_cast<uint16_t>(9000 + id)});
  return out;
}

voter_set set_of(std::vector<voter> vs) {
  voter_set s;
  for (auto& x : vs) s = s.with(std::move(x));
  return s;
}

TEST(VoterSet, SortedByIdAndMatchedByDirectory) {
  voter_set s = set_of({v(3, 3), v(1, 1), v(2, 2)});
  EXPECT_EQ(s.ids(), (std::vector<node_id>{node_id{1}, node_id{2}, node_id{3}}));
  EXPECT_EQ(s.majority(), 2u);
  protocol::uuid one, other;
  one.bytes[15] = 1;
  other.bytes[15] = 9;
  EXPECT_TRUE(s.contains(node_id{1}, one));
  EXPECT_FALSE(s.contains(node_id{1}, other));   // the same id on another disk is another voter
  EXPECT_TRUE(s.contains(node_id{1}, protocol::uuid{}));  // unknown directory: the id decides
  EXPECT_FALSE(s.contains(node_id{4}));
  EXPECT_EQ(s.without(node_id{2}).ids(), (std::vector<node_id>{node_id{1}, node_id{3}}));
  EXPECT_EQ(voter_set::of_ids({node_id{2}, node_id{1}}).ids(), (std::vector<node_id>{node_id{1}, node_id{2}}));
}

TEST(VoterHistory, AStaticSetNeverChanges) {
  auto h = voter_history::fixed(voter_set::of_ids({node_id{1}, node_id{2}, node_id{3}}));
  EXPECT_FALSE(h.is_dynamic());
  h.reset(offset{10}, voter_set{});
  h.compact_to(offset{10});
  EXPECT_EQ(h.latest().size(), 3u);
  EXPECT_EQ(h.at(offset{5}).size(), 3u);
}

TEST(VoterHistory, TheNewestSetHoldsAndTruncationRevertsIt) {
  auto h = voter_history::dynamic(set_of({v(1, 1)}));
  h.record(offset{5}, set_of({v(1, 1), v(2, 2)}));
  h.record(offset{9}, set_of({v(2, 2)}));
  EXPECT_EQ(h.latest().ids(), std::vector<node_id>{node_id{2}});
  EXPECT_EQ(h.latest_offset(), offset{9});
  EXPECT_EQ(h.at(offset{4}).size(), 1u);
  EXPECT_EQ(h.at(offset{5}).size(), 2u);
  EXPECT_EQ(h.at(offset{8}).size(), 2u);
  // Cut at 9: the entry at 9 is gone, the one at 5 holds again.
  h.truncate_to(offset{9});
  EXPECT_EQ(h.latest().size(), 2u);
  EXPECT_EQ(h.latest_offset(), offset{5});
  h.truncate_to(offset{3});
  EXPECT_EQ(h.latest().ids(), std::vector<node_id>{node_id{1}});
  EXPECT_EQ(h.latest_offset(), offset{-1});
}

TEST(VoterHistory, CompactionKeepsTheSetInForceAtTheSnapshot) {
  auto h = voter_history::dynamic(set_of({v(1, 1)}));
  h.record(offset{5}, set_of({v(1, 1), v(2, 2)}));
  h.record(offset{9}, set_of({v(1, 1), v(2, 2), v(3, 3)}));
  h.compact_to(offset{7});  // the snapshot covers 0..6: the set written at 5 starts the log
  EXPECT_EQ(h.at(offset{7}).size(), 2u);
  EXPECT_EQ(h.latest().size(), 3u);
  EXPECT_EQ(h.latest_offset(), offset{9});
  h.truncate_to(offset{8});
  EXPECT_EQ(h.latest().size(), 2u);  // back to the snapshot's set, not the format's
  EXPECT_EQ(h.latest_offset(), offset{6});  // written inside the snapshot, as Kafka counts it
}

TEST(VoterHistory, AnObserverKnowsNoSetUntilOneArrives) {
  auto h = voter_history::dynamic(std::nullopt);
  EXPECT_EQ(h.latest().size(), 0u);
  EXPECT_EQ(h.latest_offset(), offset{-1});
  EXPECT_FALSE(h.latest().contains(node_id{1}));
  h.reset(offset{20}, set_of({v(1, 1), v(2, 2)}));  // a snapshot copied from the leader
  EXPECT_EQ(h.latest_offset(), offset{19});
  EXPECT_EQ(h.latest().size(), 2u);
}

}  // namespace
}  // namespace hw::controller::raft
