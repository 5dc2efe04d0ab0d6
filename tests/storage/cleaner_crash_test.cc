// Crash safety of compaction: a crash injected (faulty file system) at every
// file operation of a cleaning — writing the `.cleaned` files, renaming them
// to `.swap`, renaming the old segments to `.deleted`, the commit's
// directory sync, the final renames — recovers to a log in which each
// swapped range (a group of segments rewritten into one) holds exactly the
// records it held before cleaning or exactly those after it (groups are
// swapped one at a time, as in Kafka), with no leftover
// `.cleaned`/`.swap`/`.deleted` file and nothing lost. A failed write of the cleaned files
// leaves the live log serving the old segments.

#include <gtest/gtest.h>

#include "tests/storage/cleaner_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

// Four segments of overwritten keys, a tombstone and a transaction; synced.
void fill(cleaner_harness& h) {
  for (int i = 0; i < 80; ++i) h.put("k" + std::to_string(i % 7), "v" + std::to_string(i));
  h.put("k3", std::nullopt);
  h.append(keyed_batch({{"t", "aborted"}}, h.now, {50, 0, 0, true}));
  h.append(marker_batch(50, 0, false, h.now), producer_origin::coordinator);
  h.put("last", "1");
  h.roll();
  ASSERT_FALSE(h.plog->mutable_log().flush());
}

// The records after a fault-free cleaning, and the swapped ranges' bounds.
std::vector<stored_record> reference_after(std::vector<int64_t>* bounds) {
  cleaner_harness h;
  fill(h);
  EXPECT_TRUE(h.clean());
  for (const auto& s : h.plog->log().segments()) bounds->push_back(s->base_offset().value);
  bounds->push_back(h.plog->log().log_end_offset().value);
  return h.records();
}

std::vector<stored_record> in_range(const std::vector<stored_record>& all, int64_t from, int64_t to) {
  std::vector<stored_record> out;
  for (const auto& r : all)
    if (r.offset >= from && r.offset < to) out.push_back(r);
  return out;
}

struct crash_point {
  fs_op op;
  fault_action action;
};

std::string name_of(fs_op op) {
  switch (op) {
    case fs_op::open: return "open";
    case fs_op::write: return "write";
    case fs_op::sync: return "sync";
    case fs_op::truncate: return "truncate";
    case fs_op::rename: return "rename";
    case fs_op::remove: return "remove";
    case fs_op::create_directories: return "create_directories";
    case fs_op::sync_directory: return "sync_directory";
  }
  return "?";
}

TEST(CleanerCrash, EveryCrashPointRecoversToBeforeOrAfter) {
  std::vector<int64_t> bounds;
  const auto after = reference_after(&bounds);
  ASSERT_GT(bounds.size(), 3u) << "several swapped ranges";
  std::vector<stored_record> before;
  {
    cleaner_harness h;
    fill(h);
    before = h.records();
  }
  ASSERT_NE(before, after);
  int crashes = 0, saw_before = 0, saw_after = 0;
  for (fs_op op : {fs_op::open, fs_op::write, fs_op::sync, fs_op::rename, fs_op::sync_directory, fs_op::remove}) {
    for (fault_action action : {fault_action::crash_before, fault_action::crash_after}) {
      for (int skip = 0;; ++skip) {
        SCOPED_TRACE(name_of(op) + (action == fault_action::crash_before ? " crash_before" : " crash_after") +
                     " skip " + std::to_string(skip));
        cleaner_harness h;
        fill(h);
        h.fs.inject({.op = op, .action = action, .skip = skip});
        std::optional<cleaning_report> report;
        (void)h.cleaner.clean_dirtiest(&report);
        h.fs.clear_faults();
        if (h.fs.fired_faults().empty()) break;  // the cleaning ran past every such operation
        ++crashes;
        h.fs.restart();
        h.open(false);
        auto got = h.records();
        for (size_t i = 0; i + 1 < bounds.size(); ++i) {
          auto range = in_range(got, bounds[i], bounds[i + 1]);
          if (range == in_range(before, bounds[i], bounds[i + 1])) {
            ++saw_before;
          } else {
            EXPECT_EQ(range, in_range(after, bounds[i], bounds[i + 1]))
                << "range " << bounds[i] << ".." << bounds[i + 1] << ", fired at " << h.fs.fired_faults().front();
            ++saw_after;
          }
        }
        std::vector<std::string> names;
        ASSERT_FALSE(h.fs.list(h.dir(), &names));
        for (const auto& n : names) {
          EXPECT_FALSE(n.ends_with(".cleaned") || n.ends_with(".swap") || n.ends_with(".deleted")) << n;
        }
        // The recovered log keeps working, and cleans to the same result.
        h.host.checkpoints.clear();
        (void)h.clean();
        EXPECT_EQ(latest_by_key(h.records()), latest_by_key(after));
      }
    }
  }
  EXPECT_GT(crashes, 20);
  EXPECT_GT(saw_before, 0);
  EXPECT_GT(saw_after, 0);
}

TEST(CleanerCrash, AFailedCleanedWriteLeavesTheLogServingTheOldSegments) {
  cleaner_harness h;
  fill(h);
  auto before = h.records();
  h.fs.inject({.op = fs_op::write, .action = fault_action::fail_before, .path_contains = ".cleaned",
               .error = std::make_error_code(std::errc::no_space_on_device)});
  std::optional<cleaning_report> report;
  EXPECT_TRUE(h.cleaner.clean_dirtiest(&report));
  EXPECT_FALSE(h.plog->offline());
  EXPECT_EQ(h.records(), before);
  EXPECT_TRUE(h.cleaner.uncleanable().empty());  // an I/O error is the dir's, not the log's
  std::vector<std::string> names;
  ASSERT_FALSE(h.fs.list(h.dir(), &names));
  for (const auto& n : names) EXPECT_FALSE(n.ends_with(".cleaned")) << n;
  // Appends go on.
  h.put("more", "1");
  EXPECT_EQ(latest_by_key(h.records())["more"], "1");
}

TEST(CleanerCrash, AReaderHoldingTheOldSegmentsKeepsReadingThem) {
  cleaner_harness h;
  fill(h);
  auto before = h.records();
  auto old_segments = h.plog->log().segments();
  ASSERT_TRUE(h.clean());
  ASSERT_NE(h.records(), before);
  // Read the old segments through the snapshot taken before the swap.
  std::vector<stored_record> old;
  for (const auto& s : old_segments) {
    bytes data(s->end().size);
    size_t got = 0;
    ASSERT_FALSE(s->log_file()->read_at(0, data, &got));
    ASSERT_EQ(got, data.size());
    std::vector<read_record> recs;
    decode_records(data, 0, &recs);
    for (const auto& r : recs) old.push_back({r.offset, "", r.value, false, false});
  }
  ASSERT_EQ(old.size(), before.size());
  for (size_t i = 0; i < old.size(); ++i) EXPECT_EQ(old[i].offset, before[i].offset);
}

TEST(CleanerCrash, SegmentsChangedUnderTheCleanerAbandonTheSwap) {
  cleaner_harness h;
  fill(h);
  offset cut = h.plog->log().segments()[1]->base_offset() + 2;
  h.host.before_install = [&](partition_log& p) { ASSERT_FALSE(p.truncate_to(cut, h.now)); };
  auto report = h.clean();
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->abandoned);
  EXPECT_FALSE(h.plog->offline());
  EXPECT_EQ(h.plog->log().log_end_offset(), cut);
  EXPECT_FALSE(h.host.checkpoints.contains(h.host.tp));
  std::vector<std::string> names;
  ASSERT_FALSE(h.fs.list(h.dir(), &names));
  for (const auto& n : names) EXPECT_FALSE(n.ends_with(".cleaned")) << n;
  auto recs = h.records();
  ASSERT_FALSE(recs.empty());
  EXPECT_EQ(recs.back().offset, cut.value - 1);
}

TEST(CleanerCrash, UnreadableDataMakesTheLogUncleanableNotOffline) {
  cleaner_harness h;
  fill(h);
  // Break the framing of the second batch of the first segment.
  auto first = h.plog->log().segments().front();
  std::unique_ptr<file> f;
  ASSERT_FALSE(h.fs.open(first->log_path(), open_mode::read_write, &f));
  bytes header(protocol::batch_layout::header_bytes);
  size_t got = 0;
  ASSERT_FALSE(f->read_at(0, header, &got));
  uint64_t second = protocol::batch_layout::log_overhead +
                    static_cast<uint32_t>(header[8] << 24 | header[9] << 16 | header[10] << 8 | header[11]);
  const uint8_t bad_length[4] = {0, 0, 0, 3};
  ASSERT_FALSE(f->write_at(second + protocol::batch_layout::batch_length, bad_length));
  std::optional<cleaning_report> report;
  EXPECT_EQ(h.cleaner.clean_dirtiest(&report), make_error_code(log_errc::invalid_records));
  EXPECT_EQ(h.cleaner.uncleanable().count(h.host.tp), 1u);
  EXPECT_FALSE(h.plog->offline());
  // Skipped from now on.
  report.reset();
  EXPECT_FALSE(h.cleaner.clean_dirtiest(&report));
  EXPECT_FALSE(report);
  std::vector<std::string> names;
  ASSERT_FALSE(h.fs.list(h.dir(), &names));
  for (const auto& n : names) EXPECT_FALSE(n.ends_with(".cleaned")) << n;
}

}  // namespace
}  // namespace hw::storage
