// The raft core's in-memory log: epoch ends (divergence), truncation at
// batch granularity, reads bounded by record count, compaction.
#include <gtest/gtest.h>

#include "controller/raft/raft_log.h"
#include "tests/controller/raft_core_harness.h"

namespace hw::controller::raft {
namespace {

using namespace testing;

// Epoch 1 [0,3), epoch 1 [3,4), epoch 3 [4,6), epoch 5 [6,7).
raft_log sample() { return raft_log({}, {entry(0, 1, 3), entry(3, 1), entry(4, 3, 2), entry(6, 5)}); }

TEST(raft_core_log, end_offset_for_epoch_names_the_largest_epoch_not_above) {
  raft_log l = sample();
  EXPECT_EQ(l.end_offset_for_epoch(ep(1)), (epoch_end_offset{ep(1), off(4)}));
  EXPECT_EQ(l.end_offset_for_epoch(ep(2)), (epoch_end_offset{ep(1), off(4)}));
  EXPECT_EQ(l.end_offset_for_epoch(ep(3)), (epoch_end_offset{ep(3), off(6)}));
  EXPECT_EQ(l.end_offset_for_epoch(ep(5)), (epoch_end_offset{ep(5), off(7)}));
  EXPECT_EQ(l.end_offset_for_epoch(ep(9)), (epoch_end_offset{ep(5), off(7)}));
  EXPECT_EQ(l.end_offset_for_epoch(ep(0)), (epoch_end_offset{ep(0), off(0)}));
  EXPECT_EQ(l.last_epoch(), ep(5));
  EXPECT_EQ(l.epoch_at(off(5)), ep(3));
}

TEST(raft_core_log, truncation_drops_whole_batches) {
  raft_log l = sample();
  EXPECT_EQ(l.truncate_to(off(5)), off(4));  // inside [4,6): the batch goes
  EXPECT_EQ(l.last_epoch(), ep(1));
  EXPECT_EQ(l.truncate_to(off(4)), off(4));
  EXPECT_EQ(l.truncate_to(off(0)), off(0));
  EXPECT_EQ(l.last_epoch(), ep(0));
}

TEST(raft_core_log, reads_stop_at_the_record_limit_but_return_at_least_one_batch) {
  raft_log l = sample();
  EXPECT_EQ(l.read(off(0), 1).size(), 1u);  // 3 records, over the limit, still sent
  EXPECT_EQ(l.read(off(0), 4).size(), 2u);
  EXPECT_EQ(l.read(off(4), 100).size(), 2u);
  EXPECT_TRUE(l.read(off(7), 100).empty());
}

TEST(raft_core_log, compaction_moves_the_start_and_answers_below_it_with_the_snapshot) {
  raft_log l = sample();
  EXPECT_FALSE(l.is_batch_boundary(off(2)));
  EXPECT_TRUE(l.is_batch_boundary(off(4)));
  l.compact_to({off(4), ep(1)});
  EXPECT_EQ(l.start_offset(), off(4));
  EXPECT_EQ(l.entries().size(), 2u);
  EXPECT_EQ(l.end_offset_for_epoch(ep(0)), (epoch_end_offset{ep(1), off(4)}));
  EXPECT_EQ(l.end_offset_for_epoch(ep(2)), (epoch_end_offset{ep(1), off(4)}));
  EXPECT_EQ(l.truncate_to(off(1)), off(4));  // never below the snapshot
  l.reset_to_snapshot({off(20), ep(7)});
  EXPECT_EQ(l.end_offset(), off(20));
  EXPECT_EQ(l.last_epoch(), ep(7));
}

}  // namespace
}  // namespace hw::controller::raft
