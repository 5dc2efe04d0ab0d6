// Snapshot files on a file system: written durably (a crash at any step
// leaves no snapshot or the whole one, never a torn one), listed oldest
// first with leftovers cleaned up, read back, and deleted behind a newer one.

#include <gtest/gtest.h>

#include "controller/raft/snapshot_file.h"
#include "storage/io/faulty_file_system.h"

namespace hw::controller::raft {
namespace {

const std::filesystem::path dir = "/meta/__cluster_metadata-0";

snapshot_id sid(int64_t offset, int32_t e) { return {raft::offset(offset), epoch(e)}; }

std::vector<uint8_t> snapshot_bytes(size_t records) {
  std::vector<std::vector<uint8_t>> values;
  for (size_t i = 0; i < records; ++i) values.emplace_back(20, static_cast<uint8_t>(i));
  return encode_snapshot(sid(static_cast<int64_t>(records), 1), values, {});
}

void touch(storage::file_system& fs, const std::string& name) {
  std::unique_ptr<storage::file> f;
  ASSERT_FALSE(fs.open(dir / name, storage::open_mode::read_write, &f));
  ASSERT_FALSE(f->sync());
  ASSERT_FALSE(fs.sync_directory(dir));
}

// The directory, durably (a crash keeps it).
void make_dir(storage::faulty_file_system& fs) {
  ASSERT_FALSE(fs.create_directories(dir));
  ASSERT_FALSE(fs.sync_directory("/meta"));
  ASSERT_FALSE(fs.sync_directory("/"));
}

class SnapshotStore : public ::testing::Test {
 protected:
  void SetUp() override { make_dir(fs); }
  std::vector<snapshot_id> list() {
    std::vector<snapshot_id> ids;
    auto ec = list_snapshot_files(fs, dir, &ids);
    EXPECT_FALSE(ec) << ec.message();
    return ids;
  }
  storage::faulty_file_system fs;
};

TEST_F(SnapshotStore, WriteListReadDelete) {
  auto a = snapshot_bytes(3);
  auto b = snapshot_bytes(7);
  ASSERT_FALSE(write_snapshot_file(fs, dir, sid(10, 1), a));
  ASSERT_FALSE(write_snapshot_file(fs, dir, sid(200, 2), b));
  ASSERT_FALSE(write_snapshot_file(fs, dir, sid(30, 1), a));
  EXPECT_TRUE(fs.exists(dir / "00000000000000000010-0000000001.checkpoint"));
  EXPECT_EQ(list(), (std::vector<snapshot_id>{sid(10, 1), sid(30, 1), sid(200, 2)}));

  std::vector<uint8_t> read;
  ASSERT_FALSE(read_snapshot_file(fs, dir, sid(200, 2), &read));
  EXPECT_EQ(read, b);
  EXPECT_TRUE(read_snapshot_file(fs, dir, sid(201, 2), &read)) << "no such snapshot";

  // Rewriting an id replaces it.
  ASSERT_FALSE(write_snapshot_file(fs, dir, sid(200, 2), a));
  ASSERT_FALSE(read_snapshot_file(fs, dir, sid(200, 2), &read));
  EXPECT_EQ(read, a);

  ASSERT_FALSE(delete_snapshot_files_before(fs, dir, sid(30, 1)));
  EXPECT_EQ(list(), (std::vector<snapshot_id>{sid(30, 1), sid(200, 2)}));
  ASSERT_FALSE(delete_snapshot_files_before(fs, dir, sid(1000, 5)));
  EXPECT_TRUE(list().empty());
  // Durable: nothing comes back after a crash.
  fs.crash();
  EXPECT_TRUE(list().empty());
}

TEST_F(SnapshotStore, LeftoversAreRemovedOtherFilesKept) {
  ASSERT_FALSE(write_snapshot_file(fs, dir, sid(10, 1), snapshot_bytes(1)));
  touch(fs, "00000000000000000020-0000000001.checkpoint.part");
  touch(fs, "00000000000000000020-0000000001-123456.checkpoint.part");
  touch(fs, "00000000000000000005-0000000001.checkpoint.deleted");
  touch(fs, "00000000000000000000.log");
  touch(fs, "quorum-state");
  EXPECT_EQ(list(), std::vector<snapshot_id>{sid(10, 1)});
  std::vector<std::string> names;
  ASSERT_FALSE(fs.list(dir, &names));
  EXPECT_EQ(names, (std::vector<std::string>{"00000000000000000000.log", "00000000000000000010-0000000001.checkpoint",
                                             "quorum-state"}));
  fs.crash();  // the removals were made durable
  ASSERT_FALSE(fs.list(dir, &names));
  EXPECT_EQ(names.size(), 3u);
}

// A crash before or after any step of the write: afterwards the snapshot is
// either absent or whole, and listing cleans up what the write left behind.
TEST_F(SnapshotStore, CrashAtAnyStepLeavesNoneOrAWholeSnapshot) {
  const auto bytes = snapshot_bytes(50);
  for (auto op : {storage::fs_op::open, storage::fs_op::truncate, storage::fs_op::write, storage::fs_op::sync,
                  storage::fs_op::rename, storage::fs_op::sync_directory}) {
    for (auto action : {storage::fault_action::crash_before, storage::fault_action::crash_after}) {
      SCOPED_TRACE(storage::fault_point_name(op, action));
      storage::faulty_file_system crashing;
      make_dir(crashing);
      crashing.inject({op, action, "", 0, 1, {}});  // only the write runs from here
      EXPECT_TRUE(write_snapshot_file(crashing, dir, sid(50, 1), bytes));
      crashing.crash();
      crashing.restart();
      std::vector<snapshot_id> ids;
      ASSERT_FALSE(list_snapshot_files(crashing, dir, &ids));
      std::vector<std::string> names;
      ASSERT_FALSE(crashing.list(dir, &names));
      for (const auto& n : names) EXPECT_EQ(n.find(".part"), std::string::npos) << n;
      const bool durable = op == storage::fs_op::sync_directory && action == storage::fault_action::crash_after;
      EXPECT_EQ(!ids.empty(), durable) << "whole exactly once the directory is synced";
      if (ids.empty()) continue;
      ASSERT_EQ(ids, std::vector<snapshot_id>{sid(50, 1)});
      std::vector<uint8_t> read;
      ASSERT_FALSE(read_snapshot_file(crashing, dir, sid(50, 1), &read));
      EXPECT_EQ(read, bytes);
      EXPECT_TRUE(decode_snapshot(protocol::bytes_view(read.data(), read.size())).ok());
    }
  }
}

TEST_F(SnapshotStore, FailuresAreReported) {
  fs.inject({storage::fs_op::sync, storage::fault_action::fail_before, "checkpoint", 0, 1,
             std::make_error_code(std::errc::io_error)});
  EXPECT_EQ(write_snapshot_file(fs, dir, sid(1, 1), snapshot_bytes(1)), std::make_error_code(std::errc::io_error));
  EXPECT_TRUE(list().empty()) << "the failed write is not a snapshot";
  fs.set_space_left(100);
  EXPECT_TRUE(write_snapshot_file(fs, dir, sid(2, 1), snapshot_bytes(40)));
  fs.clear_space_limit();
  EXPECT_TRUE(list().empty());
  std::vector<snapshot_id> ids;
  EXPECT_TRUE(list_snapshot_files(fs, "/nowhere", &ids));
}

}  // namespace
}  // namespace hw::controller::raft
