#include <gtest/gtest.h>

#include "storage/io/faulty_file_system.h"

namespace hw::storage {
namespace {

std::span<const uint8_t> bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::string read_all(file_system& fs, const std::filesystem::path& p) {
  std::string out;
  EXPECT_FALSE(read_whole_file(fs, p, &out)) << p;
  return out;
}

void write_file(file_system& fs, const std::filesystem::path& p, std::string_view content, bool sync) {
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open(p, open_mode::read_write, &f));
  ASSERT_FALSE(f->write_at(0, bytes(content)));
  if (sync) {
    ASSERT_FALSE(f->sync());
  }
}

class faultyfs_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(fs.create_directories("/data/t-0"));
    ASSERT_FALSE(fs.sync_directory("/"));
    ASSERT_FALSE(fs.sync_directory("/data"));
  }
  faulty_file_system fs;
};

TEST_F(faultyfs_test, behaves_like_a_file_system) {
  write_file(fs, "/data/t-0/a", "hello", false);
  EXPECT_EQ(read_all(fs, "/data/t-0/a"), "hello");
  EXPECT_TRUE(fs.exists("/data/t-0/a"));
  EXPECT_FALSE(fs.is_directory("/data/t-0/a"));
  EXPECT_TRUE(fs.is_directory("/data/t-0"));

  std::unique_ptr<file> f;
  EXPECT_EQ(fs.open("/data/t-0/a", open_mode::create_exclusive, &f), std::errc::file_exists);
  EXPECT_EQ(fs.open("/data/t-0/missing", open_mode::read_only, &f), std::errc::no_such_file_or_directory);
  EXPECT_EQ(fs.open("/nodir/x", open_mode::read_write, &f), std::errc::no_such_file_or_directory);
  EXPECT_EQ(fs.open("/data/t-0", open_mode::read_only, &f), std::errc::is_a_directory);

  ASSERT_FALSE(fs.open("/data/t-0/a", open_mode::read_only, &f));
  EXPECT_EQ(f->write_at(0, bytes("x")), std::errc::bad_file_descriptor);
  uint8_t buf[10];
  size_t n = 0;
  ASSERT_FALSE(f->read_at(3, buf, &n));
  EXPECT_EQ(n, 2u);  // short only at end of file
  EXPECT_EQ(f->native_handle(), -1);

  write_file(fs, "/data/t-0/b", "", false);
  std::vector<std::string> names;
  ASSERT_FALSE(fs.list("/data/t-0", &names));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));

  ASSERT_FALSE(fs.rename("/data/t-0/a", "/data/t-0/c"));
  EXPECT_FALSE(fs.exists("/data/t-0/a"));
  EXPECT_EQ(read_all(fs, "/data/t-0/c"), "hello");
  EXPECT_EQ(fs.rename("/data/t-0/a", "/data/t-0/d"), std::errc::no_such_file_or_directory);

  ASSERT_FALSE(fs.remove("/data/t-0/c"));
  EXPECT_FALSE(fs.remove("/data/t-0/c"));  // already gone: not an error, as on posix
  EXPECT_EQ(fs.remove("/data/t-0"), std::errc::is_a_directory);
  ASSERT_FALSE(fs.remove_all("/data/t-0"));
  EXPECT_FALSE(fs.exists("/data/t-0"));
}

TEST_F(faultyfs_test, open_handle_reads_an_unlinked_file) {
  write_file(fs, "/data/t-0/seg", "records", false);
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open("/data/t-0/seg", open_mode::read_only, &f));
  ASSERT_FALSE(fs.remove("/data/t-0/seg"));
  std::string out(7, '\0');
  size_t n = 0;
  ASSERT_FALSE(f->read_at(0, {reinterpret_cast<uint8_t*>(out.data()), out.size()}, &n));
  EXPECT_EQ(out, "records");
}

TEST_F(faultyfs_test, crash_drops_unsynced_data) {
  write_file(fs, "/data/t-0/f", "durable", true);
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open("/data/t-0/f", open_mode::read_write, &f));
  ASSERT_FALSE(f->write_at(7, bytes("+lost")));
  EXPECT_EQ(read_all(fs, "/data/t-0/f"), "durable+lost");
  EXPECT_EQ(fs.durable_content("/data/t-0/f"), "durable");

  fs.crash();
  EXPECT_EQ(read_all(fs, "/data/t-0/f"), "durable");
  // The old handle belongs to the dead process.
  EXPECT_EQ(f->write_at(0, bytes("x")), std::errc::io_error);
  uint64_t size = 0;
  EXPECT_EQ(f->size(&size), std::errc::io_error);
}

TEST_F(faultyfs_test, crash_reverts_truncation_that_was_not_synced) {
  write_file(fs, "/data/t-0/f", "0123456789", true);
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open("/data/t-0/f", open_mode::read_write, &f));
  ASSERT_FALSE(f->truncate(4));
  fs.crash();
  EXPECT_EQ(read_all(fs, "/data/t-0/f"), "0123456789");
}

TEST_F(faultyfs_test, crash_forgets_a_synced_file_whose_directory_was_not_synced) {
  write_file(fs, "/data/t-0/new", "data", true);
  EXPECT_EQ(fs.durable_content("/data/t-0/new"), std::nullopt);
  fs.crash();
  EXPECT_FALSE(fs.exists("/data/t-0/new"));
  EXPECT_TRUE(fs.exists("/data/t-0"));
}

TEST_F(faultyfs_test, crash_forgets_directories_whose_parent_was_not_synced) {
  ASSERT_FALSE(fs.create_directories("/data/t-1/sub"));
  ASSERT_FALSE(fs.sync_directory("/data/t-1"));  // sub is durable in t-1, but t-1 is not in /data
  fs.crash();
  EXPECT_FALSE(fs.exists("/data/t-1"));
}

TEST_F(faultyfs_test, crash_undoes_a_rename_without_directory_sync) {
  write_file(fs, "/data/t-0/cp", "old", true);
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  write_file(fs, "/data/t-0/cp.tmp", "new", true);
  ASSERT_FALSE(fs.rename("/data/t-0/cp.tmp", "/data/t-0/cp"));
  EXPECT_EQ(read_all(fs, "/data/t-0/cp"), "new");

  fs.crash();
  EXPECT_EQ(read_all(fs, "/data/t-0/cp"), "old");
  EXPECT_FALSE(fs.exists("/data/t-0/cp.tmp"));
}

TEST_F(faultyfs_test, rename_then_directory_sync_survives) {
  write_file(fs, "/data/t-0/cp", "old", true);
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  write_file(fs, "/data/t-0/cp.tmp", "new", true);
  ASSERT_FALSE(fs.rename("/data/t-0/cp.tmp", "/data/t-0/cp"));
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  fs.crash();
  EXPECT_EQ(read_all(fs, "/data/t-0/cp"), "new");
  EXPECT_FALSE(fs.exists("/data/t-0/cp.tmp"));
}

TEST_F(faultyfs_test, crash_resurrects_a_removed_file_until_the_directory_is_synced) {
  write_file(fs, "/data/t-0/seg", "x", true);
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  ASSERT_FALSE(fs.remove("/data/t-0/seg"));
  fs.crash();
  EXPECT_TRUE(fs.exists("/data/t-0/seg"));
  ASSERT_FALSE(fs.remove("/data/t-0/seg"));
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  fs.crash();
  EXPECT_FALSE(fs.exists("/data/t-0/seg"));
}

TEST_F(faultyfs_test, directory_rename_moves_the_subtree) {
  write_file(fs, "/data/t-0/seg", "x", false);
  ASSERT_FALSE(fs.rename("/data/t-0", "/data/t-0.abc-delete"));
  EXPECT_EQ(read_all(fs, "/data/t-0.abc-delete/seg"), "x");
  EXPECT_EQ(fs.rename("/data", "/data/inside"), std::errc::invalid_argument);
}

TEST_F(faultyfs_test, disk_full_fails_the_write_that_crosses_the_budget) {
  fs.set_space_left(10);
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open("/data/t-0/log", open_mode::read_write, &f));
  ASSERT_FALSE(f->write_at(0, bytes("123456")));
  EXPECT_EQ(f->write_at(6, bytes("789abc")), std::errc::no_space_on_device);
  // Like a short pwrite: what fitted landed.
  EXPECT_EQ(read_all(fs, "/data/t-0/log"), "123456789a");
  EXPECT_EQ(f->write_at(10, bytes("z")), std::errc::no_space_on_device);
  fs.clear_space_limit();
  EXPECT_FALSE(f->write_at(10, bytes("z")));
  EXPECT_EQ(fs.stats().bytes_written, 11u);
}

TEST_F(faultyfs_test, failing_syncs_make_nothing_durable) {
  fs.fail_syncs(true);
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open("/data/t-0/f", open_mode::read_write, &f));
  ASSERT_FALSE(f->write_at(0, bytes("abc")));
  EXPECT_EQ(f->sync(), std::errc::io_error);
  fs.fail_syncs(false);
  fs.fail_directory_syncs(true);
  EXPECT_EQ(fs.sync_directory("/data/t-0"), std::errc::io_error);
  fs.fail_directory_syncs(false);
  fs.crash();
  EXPECT_FALSE(fs.exists("/data/t-0/f"));
}

TEST_F(faultyfs_test, write_file_atomically_is_durable_on_success) {
  ASSERT_FALSE(write_file_atomically(fs, "/data/t-0/cp", "v1"));
  fs.crash();
  EXPECT_EQ(read_all(fs, "/data/t-0/cp"), "v1");
}

TEST_F(faultyfs_test, injected_failure_before_rename_keeps_the_old_file) {
  ASSERT_FALSE(write_file_atomically(fs, "/data/t-0/cp", "v1"));
  fs.inject({.op = fs_op::rename, .action = fault_action::fail_before, .path_contains = "cp.tmp"});
  EXPECT_EQ(write_file_atomically(fs, "/data/t-0/cp", "v2"), std::errc::io_error);
  EXPECT_EQ(read_all(fs, "/data/t-0/cp"), "v1");
  EXPECT_EQ(fs.fired_faults(), (std::vector<std::string>{"before rename: /data/t-0/cp.tmp"}));
  // Fired once; the retry goes through.
  EXPECT_FALSE(write_file_atomically(fs, "/data/t-0/cp", "v2"));
  EXPECT_EQ(read_all(fs, "/data/t-0/cp"), "v2");
}

TEST_F(faultyfs_test, every_crash_point_of_an_atomic_write_leaves_old_or_new) {
  const fs_op ops[] = {fs_op::open, fs_op::truncate, fs_op::write, fs_op::sync, fs_op::rename, fs_op::sync_directory};
  for (fs_op op : ops) {
    for (fault_action action : {fault_action::crash_before, fault_action::crash_after}) {
      SCOPED_TRACE(fault_point_name(op, action));
      faulty_file_system disk;
      ASSERT_FALSE(disk.create_directories("/d"));
      ASSERT_FALSE(disk.sync_directory("/"));
      ASSERT_FALSE(write_file_atomically(disk, "/d/cp", "old content"));
      disk.inject({.op = op, .action = action, .path_contains = ""});
      EXPECT_EQ(write_file_atomically(disk, "/d/cp", "new"), std::errc::io_error);
      EXPECT_TRUE(disk.halted());
      std::unique_ptr<file> f;
      EXPECT_EQ(disk.open("/d/cp", open_mode::read_only, &f), std::errc::io_error);
      disk.restart();
      std::string content = read_all(disk, "/d/cp");
      bool committed = op == fs_op::sync_directory && action == fault_action::crash_after;
      EXPECT_EQ(content, committed ? "new" : "old content");
    }
  }
}

TEST_F(faultyfs_test, faults_skip_and_repeat) {
  fs.inject({.op = fs_op::write, .action = fault_action::fail_before, .path_contains = "", .skip = 1, .times = 2,
             .error = std::make_error_code(std::errc::no_space_on_device)});
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open("/data/t-0/f", open_mode::read_write, &f));
  EXPECT_FALSE(f->write_at(0, bytes("a")));
  EXPECT_EQ(f->write_at(1, bytes("b")), std::errc::no_space_on_device);
  EXPECT_EQ(f->write_at(1, bytes("b")), std::errc::no_space_on_device);
  EXPECT_FALSE(f->write_at(1, bytes("b")));
  EXPECT_EQ(read_all(fs, "/data/t-0/f"), "ab");
}

TEST_F(faultyfs_test, fail_after_does_the_operation) {
  fs.inject({.op = fs_op::sync, .action = fault_action::fail_after, .path_contains = ""});
  write_file(fs, "/data/t-0/f", "x", false);
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs.open("/data/t-0/f", open_mode::read_write, &f));
  EXPECT_EQ(f->sync(), std::errc::io_error);
  ASSERT_FALSE(fs.sync_directory("/data/t-0"));
  fs.crash();
  EXPECT_EQ(read_all(fs, "/data/t-0/f"), "x");
  EXPECT_EQ(fault_point_name(fs_op::sync, fault_action::fail_after), "after sync");
}

TEST_F(faultyfs_test, counts_syncs_and_renames) {
  ASSERT_FALSE(write_file_atomically(fs, "/data/t-0/cp", "v1"));
  auto s = fs.stats();
  EXPECT_EQ(s.file_syncs, 1u);
  EXPECT_EQ(s.renames, 1u);
  EXPECT_EQ(s.directory_syncs, 3u);  // two in SetUp
}

}  // namespace
}  // namespace hw::storage
