#include <gtest/gtest.h>

#include "storage/io/faulty_file_system.h"
#include "storage/leader_epoch_cache.h"

namespace hw::storage {
namespace {

using entries = std::vector<epoch_entry>;

}  // namespace

// Readable failure messages.
void PrintTo(const epoch_entry& x, std::ostream* os) { *os << "(" << x.epoch << ", " << x.start_offset << ")"; }
void PrintTo(const epoch_end_offset& x, std::ostream* os) { *os << "(" << x.epoch << ", " << x.end_offset << ")"; }

namespace {

epoch_entry e(int32_t epoch, int64_t start) { return {leader_epoch(epoch), offset(start)}; }
epoch_end_offset eo(int32_t epoch, int64_t end) { return {leader_epoch(epoch), offset(end)}; }

class epoch_cache_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(fs.create_directories(dir));
    ASSERT_FALSE(fs.sync_directory("/"));
    ASSERT_FALSE(fs.sync_directory("/logs"));
    cache = open();
  }

  std::unique_ptr<leader_epoch_cache> open() {
    std::unique_ptr<leader_epoch_cache> c;
    auto err = leader_epoch_cache::open(fs, dir, &c);
    EXPECT_FALSE(err) << err.message;
    return c;
  }

  void assign(int32_t epoch, int64_t start) {
    auto err = cache->assign(leader_epoch(epoch), offset(start));
    ASSERT_FALSE(err) << err.message;
  }

  entries on_disk() {
    entries out;
    auto err = read_epoch_checkpoint(fs, dir / "leader-epoch-checkpoint", &out);
    EXPECT_FALSE(err) << err.message;
    return out;
  }

  faulty_file_system fs;
  const std::filesystem::path dir = "/logs/orders-0";
  std::unique_ptr<leader_epoch_cache> cache;
};

// Answers of Apache Kafka 4.3.1's LeaderEpochFileCache for the same calls.
TEST_F(epoch_cache_test, end_offsets_match_kafka) {
  assign(0, 0);
  assign(1, 120);
  assign(3, 200);
  EXPECT_EQ(cache->end_offset_for(leader_epoch(-1), offset(250)), eo(-1, -1));
  EXPECT_EQ(cache->end_offset_for(leader_epoch(0), offset(250)), eo(0, 120));
  EXPECT_EQ(cache->end_offset_for(leader_epoch(1), offset(250)), eo(1, 200));
  EXPECT_EQ(cache->end_offset_for(leader_epoch(2), offset(250)), eo(1, 200));  // not in the cache
  EXPECT_EQ(cache->end_offset_for(leader_epoch(3), offset(250)), eo(3, 250));  // the latest: the log end
  EXPECT_EQ(cache->end_offset_for(leader_epoch(4), offset(250)), eo(-1, -1));  // unknown future epoch
}

TEST_F(epoch_cache_test, end_offset_below_the_first_epoch_is_the_first_start_offset) {
  assign(5, 100);
  assign(7, 300);
  // Kafka 4.3.1 answers (requested epoch, first start offset), not UNDEFINED.
  EXPECT_EQ(cache->end_offset_for(leader_epoch(2), offset(400)), eo(2, 100));
  EXPECT_EQ(cache->end_offset_for(leader_epoch(6), offset(400)), eo(5, 300));
  EXPECT_EQ(cache->end_offset_for(leader_epoch(9), offset(400)), eo(-1, -1));
}

TEST_F(epoch_cache_test, empty_cache) {
  EXPECT_TRUE(cache->empty());
  EXPECT_EQ(cache->latest_epoch(), std::nullopt);
  EXPECT_EQ(cache->latest_entry(), std::nullopt);
  EXPECT_EQ(cache->earliest_entry(), std::nullopt);
  EXPECT_EQ(cache->previous_epoch(), std::nullopt);
  EXPECT_EQ(cache->epoch_for_offset(offset(0)), std::nullopt);
  EXPECT_EQ(cache->end_offset_for(leader_epoch(0), offset(0)), eo(-1, -1));
  EXPECT_EQ(cache->end_offset_for(leader_epoch(-1), offset(0)), eo(-1, -1));
  EXPECT_FALSE(cache->truncate_from_end(offset(7)));
  EXPECT_FALSE(cache->truncate_from_start(offset(7)));
  EXPECT_TRUE(cache->empty());
  EXPECT_FALSE(fs.exists(dir / "leader-epoch-checkpoint"));  // nothing written for no change
}

TEST_F(epoch_cache_test, epoch_for_offset_matches_kafka) {
  assign(0, 0);
  assign(1, 120);
  assign(3, 200);
  EXPECT_EQ(cache->epoch_for_offset(offset(0)), leader_epoch(0));
  EXPECT_EQ(cache->epoch_for_offset(offset(119)), leader_epoch(0));
  EXPECT_EQ(cache->epoch_for_offset(offset(120)), leader_epoch(1));
  EXPECT_EQ(cache->epoch_for_offset(offset(199)), leader_epoch(1));
  EXPECT_EQ(cache->epoch_for_offset(offset(200)), leader_epoch(3));
  EXPECT_EQ(cache->epoch_for_offset(offset(500)), leader_epoch(3));
  cache->truncate_from_start(offset(50));
  EXPECT_EQ(cache->epoch_for_offset(offset(49)), std::nullopt);
}

// The sequence run against Kafka 4.3.1 (see the report); each step's result is Kafka's.
TEST_F(epoch_cache_test, assign_and_truncation_sequence_matches_kafka) {
  assign(5, 100);
  assign(7, 300);
  bool changed = true;
  ASSERT_FALSE(cache->assign(leader_epoch(7), offset(350), persist::now, &changed));
  EXPECT_FALSE(changed);  // the current epoch does not move forward
  EXPECT_EQ(cache->entries(), (entries{e(5, 100), e(7, 300)}));
  assign(7, 250);  // ... but may start earlier
  EXPECT_EQ(cache->entries(), (entries{e(5, 100), e(7, 250)}));
  assign(6, 260);  // an older epoch removes the newer ones
  EXPECT_EQ(cache->entries(), (entries{e(5, 100), e(6, 260)}));
  assign(8, 100);  // a start offset at or below others removes them
  EXPECT_EQ(cache->entries(), (entries{e(8, 100)}));
  assign(9, 400);
  assign(10, 500);
  assign(9, 450);
  EXPECT_EQ(cache->entries(), (entries{e(8, 100), e(9, 450)}));
  ASSERT_FALSE(cache->truncate_from_start(offset(420)));
  EXPECT_EQ(cache->entries(), (entries{e(8, 420), e(9, 450)}));
  ASSERT_FALSE(cache->truncate_from_start(offset(400)));
  EXPECT_EQ(cache->entries(), (entries{e(8, 420), e(9, 450)}));
  assign(11, 600);
  ASSERT_FALSE(cache->truncate_from_end(offset(600)));
  EXPECT_EQ(cache->entries(), (entries{e(8, 420), e(9, 450)}));
  ASSERT_FALSE(cache->truncate_from_end(offset(450)));
  EXPECT_EQ(cache->entries(), (entries{e(8, 420)}));
  ASSERT_FALSE(cache->truncate_from_start(offset(500)));
  EXPECT_EQ(cache->entries(), (entries{e(8, 500)}));
  EXPECT_EQ(on_disk(), cache->entries());
}

TEST_F(epoch_cache_test, truncate_from_start_keeps_the_epoch_of_the_new_start) {
  assign(0, 0);
  assign(1, 10);
  assign(2, 20);
  ASSERT_FALSE(cache->truncate_from_start(offset(0)));  // at the first start: nothing to drop
  EXPECT_EQ(cache->entries(), (entries{e(0, 0), e(1, 10), e(2, 20)}));
  ASSERT_FALSE(cache->truncate_from_start(offset(10)));  // exactly on a boundary
  EXPECT_EQ(cache->entries(), (entries{e(1, 10), e(2, 20)}));
  ASSERT_FALSE(cache->truncate_from_start(offset(25)));  // past the last start: it moves up
  EXPECT_EQ(cache->entries(), (entries{e(2, 25)}));
  ASSERT_FALSE(cache->truncate_from_start(offset(-1)));  // undefined: nothing
  ASSERT_FALSE(cache->truncate_from_end(offset(-1)));
  EXPECT_EQ(cache->entries(), (entries{e(2, 25)}));
}

TEST_F(epoch_cache_test, truncate_from_end_drops_entries_starting_at_or_after) {
  assign(0, 0);
  assign(1, 10);
  assign(2, 20);
  ASSERT_FALSE(cache->truncate_from_end(offset(21)));
  EXPECT_EQ(cache->entries().size(), 3u);
  ASSERT_FALSE(cache->truncate_from_end(offset(10)));
  EXPECT_EQ(cache->entries(), (entries{e(0, 0)}));
  ASSERT_FALSE(cache->truncate_from_end(offset(0)));
  EXPECT_TRUE(cache->empty());
}

TEST_F(epoch_cache_test, lookups) {
  assign(2, 5);
  assign(4, 10);
  assign(7, 30);
  EXPECT_EQ(cache->latest_epoch(), leader_epoch(7));
  EXPECT_EQ(cache->previous_epoch(), leader_epoch(4));
  EXPECT_EQ(cache->earliest_entry(), e(2, 5));
  EXPECT_EQ(cache->latest_entry(), e(7, 30));
  EXPECT_EQ(cache->entry_for(leader_epoch(4)), e(4, 10));
  EXPECT_EQ(cache->entry_for(leader_epoch(3)), std::nullopt);
}

TEST_F(epoch_cache_test, persists_every_change_and_reloads) {
  assign(0, 0);
  assign(1, 120);
  EXPECT_EQ(fs.durable_content(dir / "leader-epoch-checkpoint"), "0\n2\n0 0\n1 120\n");
  fs.crash();
  cache = open();
  EXPECT_EQ(cache->entries(), (entries{e(0, 0), e(1, 120)}));
  EXPECT_FALSE(cache->dirty());
  ASSERT_FALSE(cache->clear());
  EXPECT_EQ(fs.durable_content(dir / "leader-epoch-checkpoint"), "0\n0\n");
}

TEST_F(epoch_cache_test, batched_changes_reach_disk_on_flush) {
  assign(0, 0);
  assign(1, 10);
  assign(2, 20);
  ASSERT_FALSE(cache->truncate_from_end(offset(15), persist::later));
  ASSERT_FALSE(cache->truncate_from_start(offset(5), persist::later));
  EXPECT_TRUE(cache->dirty());
  EXPECT_EQ(on_disk(), (entries{e(0, 0), e(1, 10), e(2, 20)}));
  uint64_t writes = fs.stats().renames;
  ASSERT_FALSE(cache->flush());
  EXPECT_EQ(fs.stats().renames, writes + 1);  // two changes, one rewrite
  EXPECT_FALSE(cache->dirty());
  EXPECT_EQ(on_disk(), (entries{e(0, 5), e(1, 10)}));
  ASSERT_FALSE(cache->flush());  // clean: no write
  EXPECT_EQ(fs.stats().renames, writes + 1);

  entries more{e(3, 30), e(4, 40)};
  ASSERT_FALSE(cache->assign(more));
  EXPECT_EQ(on_disk(), (entries{e(0, 5), e(1, 10), e(3, 30), e(4, 40)}));
}

// A new leader's entry written off the strand first: the assign that
// follows writes nothing, and the file holds the entry durably.
TEST_F(epoch_cache_test, a_prepared_leader_entry_written_elsewhere_is_not_written_again) {
  assign(0, 0);
  auto prepared = cache->prepare_assign(leader_epoch(1), offset(50));
  ASSERT_TRUE(prepared);
  EXPECT_EQ(prepared->entries, (entries{e(0, 0), e(1, 50)}));
  EXPECT_EQ(cache->entries(), (entries{e(0, 0)})) << "preparing changes nothing";
  ASSERT_FALSE(leader_epoch_cache::write_prepared(*prepared));
  EXPECT_EQ(fs.durable_content(dir / "leader-epoch-checkpoint"), "0\n2\n0 0\n1 50\n");
  cache->note_written(*prepared);
  const uint64_t renames = fs.stats().renames;
  assign(1, 50);
  EXPECT_EQ(fs.stats().renames, renames) << "already on disk";
  EXPECT_FALSE(cache->dirty());
  EXPECT_EQ(cache->entries(), (entries{e(0, 0), e(1, 50)}));
  // An assign that would change nothing prepares nothing.
  EXPECT_FALSE(cache->prepare_assign(leader_epoch(1), offset(60)));
  fs.crash();
  cache = open();
  EXPECT_EQ(cache->entries(), (entries{e(0, 0), e(1, 50)}));
}

// The cache wrote the file itself between preparing and noting (a
// truncation on the strand): the prepared content may have lost the race
// to the rename, so the assign writes again and the file ends right.
TEST_F(epoch_cache_test, a_write_of_the_cache_between_prepare_and_note_makes_the_assign_write_again) {
  assign(0, 0);
  assign(1, 10);
  auto prepared = cache->prepare_assign(leader_epoch(2), offset(30));
  ASSERT_TRUE(prepared);
  ASSERT_FALSE(leader_epoch_cache::write_prepared(*prepared));
  ASSERT_FALSE(cache->truncate_from_start(offset(5)));  // renamed after the prepared write
  cache->note_written(*prepared);
  const uint64_t renames = fs.stats().renames;
  assign(2, 30);
  EXPECT_EQ(fs.stats().renames, renames + 1);
  EXPECT_EQ(on_disk(), (entries{e(0, 5), e(1, 10), e(2, 30)}));
}

// A prepared write that never completed (a crash mid-way) leaves the old
// file and a temp file that loading ignores.
TEST_F(epoch_cache_test, a_prepared_write_cut_by_a_crash_leaves_the_previous_checkpoint) {
  assign(0, 0);
  auto prepared = cache->prepare_assign(leader_epoch(1), offset(50));
  ASSERT_TRUE(prepared);
  fs.inject({.op = fs_op::rename, .action = fault_action::crash_before, .path_contains = "leader-epoch-checkpoint"});
  EXPECT_TRUE(leader_epoch_cache::write_prepared(*prepared));
  fs.restart();
  cache = open();
  EXPECT_EQ(cache->entries(), (entries{e(0, 0)}));
}

TEST_F(epoch_cache_test, unflushed_truncation_is_lost_in_a_crash_like_kafkas_async_flush) {
  assign(0, 0);
  assign(1, 10);
  ASSERT_FALSE(cache->truncate_from_end(offset(10), persist::later));
  fs.crash();
  cache = open();
  // Stale, not missing: log recovery truncates the cache again on load.
  EXPECT_EQ(cache->entries(), (entries{e(0, 0), e(1, 10)}));
}

TEST_F(epoch_cache_test, load_repairs_a_non_monotonic_file_like_kafka) {
  ASSERT_FALSE(write_file_atomically(fs, dir / "leader-epoch-checkpoint", "0\n3\n0 0\n2 100\n1 50\n"));
  cache = open();
  EXPECT_EQ(cache->entries(), (entries{e(0, 0), e(1, 50)}));
  EXPECT_TRUE(cache->dirty());
  ASSERT_FALSE(cache->flush());
  EXPECT_EQ(on_disk(), (entries{e(0, 0), e(1, 50)}));
}

TEST_F(epoch_cache_test, a_malformed_checkpoint_is_an_error_not_a_crash) {
  ASSERT_FALSE(write_file_atomically(fs, dir / "leader-epoch-checkpoint", "0\n2\n0 0\n1 x\n"));
  std::unique_ptr<leader_epoch_cache> c;
  auto err = leader_epoch_cache::open(fs, dir, &c);
  EXPECT_EQ(err.code, storage_errc::malformed);
  EXPECT_NE(err.message.find("line 4"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("/logs/orders-0/leader-epoch-checkpoint"), std::string::npos) << err.message;
  EXPECT_EQ(c, nullptr);
}

TEST_F(epoch_cache_test, crash_before_rename_leaves_the_previous_checkpoint) {
  assign(0, 0);
  assign(1, 120);
  fs.inject({.op = fs_op::rename, .action = fault_action::crash_before, .path_contains = "leader-epoch-checkpoint"});
  auto err = cache->assign(leader_epoch(2), offset(200));
  EXPECT_EQ(err.code, std::errc::io_error);
  EXPECT_NE(err.message.find("leader-epoch-checkpoint"), std::string::npos) << err.message;
  EXPECT_TRUE(cache->dirty());
  fs.restart();
  cache = open();
  EXPECT_EQ(cache->entries(), (entries{e(0, 0), e(1, 120)}));
  EXPECT_FALSE(fs.exists(dir / "leader-epoch-checkpoint.tmp"));
}

TEST_F(epoch_cache_test, every_crash_point_of_a_checkpoint_write_leaves_a_consistent_file) {
  const entries before{e(0, 0), e(1, 120)};
  const entries after{e(0, 0), e(1, 120), e(2, 200)};
  for (fs_op op : {fs_op::open, fs_op::truncate, fs_op::write, fs_op::sync, fs_op::rename, fs_op::sync_directory}) {
    for (fault_action action : {fault_action::crash_before, fault_action::crash_after}) {
      SCOPED_TRACE(fault_point_name(op, action));
      SetUp();  // a fresh cache; the directories are already durable
      ASSERT_FALSE(cache->clear());
      assign(0, 0);
      assign(1, 120);
      fs.clear_faults();
      // The directory sync names the partition directory, not the file.
      fs.inject({.op = op, .action = action,
                 .path_contains = op == fs_op::sync_directory ? "orders-0" : "leader-epoch-checkpoint"});
      EXPECT_TRUE(cache->assign(leader_epoch(2), offset(200)));
      fs.restart();
      cache = open();
      ASSERT_NE(cache, nullptr);
      bool committed = op == fs_op::sync_directory && action == fault_action::crash_after;
      EXPECT_EQ(cache->entries(), committed ? after : before);
    }
  }
}

TEST_F(epoch_cache_test, disk_full_keeps_the_change_dirty_until_a_flush_succeeds) {
  assign(0, 0);
  fs.set_space_left(2);
  auto err = cache->assign(leader_epoch(1), offset(10));
  EXPECT_EQ(err.code, std::errc::no_space_on_device);
  EXPECT_EQ(cache->latest_epoch(), leader_epoch(1));  // changed in memory
  EXPECT_TRUE(cache->dirty());
  EXPECT_EQ(on_disk(), (entries{e(0, 0)}));
  fs.clear_space_limit();
  ASSERT_FALSE(cache->flush());
  EXPECT_EQ(on_disk(), (entries{e(0, 0), e(1, 10)}));
}

// --- Scenarios from the seed article on leader epochs (shared/seeds/000_*) ---

// What a follower does with a leader's answer: truncate to
// min(leader's end offset, its own end offset for the epoch the leader named).
offset follower_truncation_point(const leader_epoch_cache& follower, offset follower_leo,
                                 const leader_epoch_cache& leader, offset leader_leo) {
  leader_epoch last = *follower.latest_epoch();
  epoch_end_offset answer = leader.end_offset_for(last, leader_leo);
  epoch_end_offset own = follower.end_offset_for(answer.epoch, follower_leo);
  return std::min({answer.end_offset, own.end_offset, follower_leo});
}

class seed_scenarios : public ::testing::Test {
 protected:
  std::unique_ptr<leader_epoch_cache> replica(const std::string& name, const entries& history) {
    std::filesystem::path d = "/logs/" + name;
    EXPECT_FALSE(fs.create_directories(d));
    std::unique_ptr<leader_epoch_cache> c;
    EXPECT_FALSE(leader_epoch_cache::open(fs, d, &c));
    for (const auto& x : history) EXPECT_FALSE(c->assign(x.epoch, x.start_offset));
    return c;
  }
  faulty_file_system fs;
};

// §3.2: A led epoch 1 and died; B leads epoch 2 from its LEO 100. C holds
// offset 100 from epoch 1 (LEO 101): it must drop exactly that record.
TEST_F(seed_scenarios, follower_with_an_extra_record_from_the_old_epoch_truncates_to_the_new_epoch_start) {
  auto b = replica("b", {e(1, 0), e(2, 100)});
  auto c = replica("c", {e(1, 0)});
  EXPECT_EQ(b->end_offset_for(leader_epoch(1), offset(130)), eo(1, 100));
  EXPECT_EQ(follower_truncation_point(*c, offset(101), *b, offset(130)), offset(100));
  // A follower at exactly LEO 100 keeps everything.
  EXPECT_EQ(follower_truncation_point(*c, offset(100), *b, offset(130)), offset(100));
  // After truncating and fetching epoch 2, C's history is B's.
  ASSERT_FALSE(c->truncate_from_end(offset(100)));
  ASSERT_FALSE(c->assign(leader_epoch(2), offset(100)));
  EXPECT_EQ(c->entries(), b->entries());
}

// §4.3: the new leader had only 95 records when elected; the old leader
// wrote up to 100. Offsets 95..99 were never committed and are dropped.
TEST_F(seed_scenarios, new_leader_shorter_than_old_leader) {
  auto new_leader = replica("new", {e(0, 0), e(1, 95)});
  auto old_leader = replica("old", {e(0, 0)});
  EXPECT_EQ(follower_truncation_point(*old_leader, offset(100), *new_leader, offset(95)), offset(95));
}

// A follower with epochs [(0,0),(1,120)] whose epoch-1 records (it led epoch
// 1 briefly, nothing was committed) the new leader never saw: the leader,
// which has [(0,0),(2,100)], answers epoch 1 with (0, 100) - the largest
// smaller epoch and the start of the next - and the follower drops both its
// epoch-1 records and its epoch-0 tail past 100.
TEST_F(seed_scenarios, follower_epoch_unknown_to_the_leader) {
  auto leader = replica("leader", {e(0, 0), e(2, 100)});
  auto follower = replica("follower", {e(0, 0), e(1, 120)});
  EXPECT_EQ(leader->end_offset_for(leader_epoch(1), offset(180)), eo(0, 100));
  offset cut = follower_truncation_point(*follower, offset(150), *leader, offset(180));
  EXPECT_EQ(cut, offset(100));
  ASSERT_FALSE(follower->truncate_from_end(cut));
  EXPECT_EQ(follower->entries(), (entries{e(0, 0)}));
}

// A leader of epoch 1 (LEO 100, HW 90) crashes and loses its unflushed tail
// 90..99; recovery truncates its log to 90. Re-elected (epoch 2), its new
// epoch starts at 90, so a follower that had replicated up to 100 in epoch 1
// truncates to 90 instead of keeping records the leader no longer has.
TEST_F(seed_scenarios, leader_lost_uncommitted_data_then_led_again) {
  auto leader = replica("leader", {e(1, 0)});
  ASSERT_FALSE(leader->truncate_from_end(offset(90)));  // recovery: nothing starts at or after 90
  ASSERT_FALSE(leader->assign(leader_epoch(2), offset(90)));
  auto follower = replica("follower", {e(1, 0)});
  EXPECT_EQ(follower_truncation_point(*follower, offset(100), *leader, offset(90)), offset(90));
}

// The same, when the lost tail held the start of a later epoch: recovery
// removes that epoch, and the next election starts from the recovered end.
TEST_F(seed_scenarios, leader_lost_an_epoch_boundary_then_led_again) {
  auto leader = replica("leader", {e(1, 0), e(2, 100)});
  ASSERT_FALSE(leader->truncate_from_end(offset(95)));
  EXPECT_EQ(leader->entries(), (entries{e(1, 0)}));
  ASSERT_FALSE(leader->assign(leader_epoch(3), offset(95)));
  // A follower that replicated epoch 2 (100..119) learns epoch 2 is unknown:
  // the answer is epoch 1 ending at 95.
  auto follower = replica("follower", {e(1, 0), e(2, 100)});
  EXPECT_EQ(leader->end_offset_for(leader_epoch(2), offset(95)), eo(1, 95));
  EXPECT_EQ(follower_truncation_point(*follower, offset(120), *leader, offset(95)), offset(95));
}

}  // namespace
}  // namespace hw::storage
