// storage/log_manager: several log dirs, restart (clean and unclean),
// identity checks, deletion, and a full disk taking one dir offline while
// the other keeps serving.

#include "storage/log_manager.h"

#include <gtest/gtest.h>

#include <map>

#include "storage/checkpoint_file.h"
#include "storage/clean_shutdown.h"
#include "storage/io/faulty_file_system.h"
#include "storage/meta_properties.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

protocol::uuid topic_id() { return *protocol::uuid::parse("MRFQ1kJc60ikgupOdlqn1w"); }

TEST(PartitionDirName, ParsesAtTheLastDash) {
  EXPECT_EQ(parse_partition_dir_name("orders-3"), (topic_partition{"orders", 3}));
  EXPECT_EQ(parse_partition_dir_name("my-topic.v2-12"), (topic_partition{"my-topic.v2", 12}));
  EXPECT_EQ(parse_partition_dir_name("orders-"), std::nullopt);
  EXPECT_EQ(parse_partition_dir_name("-3"), std::nullopt);
  EXPECT_EQ(parse_partition_dir_name("orders-x"), std::nullopt);
  EXPECT_EQ(parse_partition_dir_name("orders"), std::nullopt);
  EXPECT_EQ(partition_dir_name({"a.b-c", 7}), "a.b-c-7");
}

class LogManagerTest : public ::testing::Test {
 protected:
  log_manager_config config() {
    log_manager_config c;
    c.log_dirs = {root() / "d1", root() / "d2"};
    c.node = node_id(1);
    c.cluster_id = "MkU3OEVBNTcwNTJENDM2Qk";
    c.default_log_config = {.segment_bytes = 1200, .index_interval_bytes = 200};
    c.random_seed = 42;
    return c;
  }
  virtual std::filesystem::path root() const { return tmp_.path(); }
  virtual file_system& fs() { return *posix_; }

  void start(log_manager_config c) {
    mgr_.reset();
    storage_error err = log_manager::start(fs(), c, 1000, &mgr_);
    ASSERT_FALSE(err) << err.message;
  }
  void start() { start(config()); }

  static std::vector<topic_partition> many() {
    std::vector<topic_partition> out;
    for (int i = 0; i < 6; ++i) out.push_back({"orders", i});
    for (int i = 0; i < 3; ++i) out.push_back({"my-topic.v2", i});
    return out;
  }
  // Appends `batches` producer-less batches of 3 records to tp.
  std::error_code append(const topic_partition& tp, int batches, int32_t epoch = 0) {
    std::shared_ptr<partition_log> p = mgr_->find(tp);
    if (!p) return std::make_error_code(std::errc::no_such_file_or_directory);
    for (int i = 0; i < batches; ++i) {
      bytes b = make_batch({.records = 3, .value_bytes = 30, .tag = tp.topic + std::to_string(tp.partition)});
      partition_append_result r;
      if (auto ec = mgr_->note_error(tp, p->append_as_leader(b, {.epoch = leader_epoch(epoch), .now_ms = 5}, &r))) {
        return ec;
      }
    }
    return {};
  }

  temp_dir tmp_;
  std::unique_ptr<file_system> posix_ = make_posix_file_system();
  std::unique_ptr<log_manager> mgr_;
};

TEST_F(LogManagerTest, CleanRestartRestoresEveryPartitionAndCheckpoint) {
  start();
  std::map<topic_partition, int64_t> ends;
  for (const auto& tp : many()) {
    std::shared_ptr<partition_log> p;
    ASSERT_FALSE(mgr_->create(tp, topic_id(), 1000, &p));
    ASSERT_FALSE(append(tp, 5 + tp.partition, 1));
    ends[tp] = p->log().log_end_offset().value;
  }
  // Spread over both dirs.
  size_t in_d1 = 0;
  for (const auto& tp : many()) in_d1 += mgr_->find(tp)->dir().parent_path() == root() / "d1";
  EXPECT_EQ(in_d1, 5u);
  ASSERT_FALSE(mgr_->shutdown(broker_epoch(42)));
  for (auto d : {"d1", "d2"}) {
    EXPECT_TRUE(has_clean_shutdown_marker(fs(), root() / d));
    std::vector<topic_partition_offset> rp;
    ASSERT_FALSE(read_offset_checkpoint(fs(), root() / d / recovery_point_checkpoint_name, &rp));
    for (const auto& e : rp) EXPECT_EQ(e.value.value, (ends[topic_partition{e.topic, e.partition}]));
  }

  start();
  EXPECT_EQ(mgr_->previous_broker_epoch(), broker_epoch(42));
  EXPECT_FALSE(has_clean_shutdown_marker(fs(), root() / "d1"));
  EXPECT_FALSE(has_clean_shutdown_marker(fs(), root() / "d2"));
  EXPECT_EQ(mgr_->partitions().size(), many().size());
  for (const auto& tp : many()) {
    std::shared_ptr<partition_log> p = mgr_->find(tp);
    ASSERT_NE(p, nullptr) << partition_dir_name(tp);
    EXPECT_EQ(p->log().log_end_offset().value, ends[tp]);
    EXPECT_EQ(p->log().recovery_point().value, ends[tp]);
    EXPECT_EQ(p->topic_id(), topic_id());
    EXPECT_EQ(p->epoch_cache().latest_epoch(), leader_epoch(1));
    EXPECT_EQ(read_all(p->log(), 0).size(), static_cast<size_t>(ends[tp]));
  }
  // Appends continue after the restart.
  ASSERT_FALSE(append({"orders", 0}, 1, 2));
}

TEST_F(LogManagerTest, UncleanRestartRecovers) {
  start();
  std::map<topic_partition, int64_t> ends;
  for (const auto& tp : many()) {
    std::shared_ptr<partition_log> p;
    ASSERT_FALSE(mgr_->create(tp, topic_id(), 1000, &p));
    ASSERT_FALSE(append(tp, 8));
    ends[tp] = p->log().log_end_offset().value;
  }
  ASSERT_FALSE(mgr_->checkpoint_all());
  // Half-written tail on one partition, as a crash mid-append leaves it.
  {
    std::shared_ptr<partition_log> p = mgr_->find({"orders", 2});
    auto seg = p->dir() / segment_file_name(p->log().segment_infos().back().base_offset, log_file_suffix);
    std::unique_ptr<file> f;
    ASSERT_FALSE(fs().open(seg, open_mode::read_write, &f));
    uint64_t size = 0;
    ASSERT_FALSE(f->size(&size));
    bytes junk(40, 0x7f);
    ASSERT_FALSE(f->write_at(size, junk));
  }
  mgr_.reset();  // no shutdown: no marker

  start();
  bool recovered = false;
  for (const auto& line : mgr_->events()) recovered |= line.find("recovered orders-2") != std::string::npos;
  EXPECT_TRUE(recovered);
  for (const auto& tp : many()) {
    std::shared_ptr<partition_log> p = mgr_->find(tp);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->log().log_end_offset().value, ends[tp]);
    EXPECT_EQ(read_all(p->log(), 0).size(), static_cast<size_t>(ends[tp]));
  }
}

TEST_F(LogManagerTest, NodeIdMismatchIsRefused) {
  start();
  ASSERT_FALSE(mgr_->shutdown(broker_epoch(1)));
  mgr_.reset();
  auto c = config();
  c.node = node_id(2);
  std::unique_ptr<log_manager> m;
  storage_error err = log_manager::start(fs(), c, 1000, &m);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message.find((root() / "d1").string()), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("node.id"), std::string::npos) << err.message;
  c = config();
  c.cluster_id = "other";
  err = log_manager::start(fs(), c, 1000, &m);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message.find("cluster.id"), std::string::npos) << err.message;
}

TEST_F(LogManagerTest, ALogHeldAcrossItsRemovalStaysReadableAndTakesNoWrites) {
  // A fetch that waited across a topic deletion still holds the log.
  start();
  std::shared_ptr<partition_log> p;
  ASSERT_FALSE(mgr_->create({"orders", 0}, topic_id(), 1000, &p));
  ASSERT_FALSE(append({"orders", 0}, 5));
  const auto before = read_all(p->log(), 0);
  ASSERT_EQ(before.size(), 15u);
  ASSERT_FALSE(mgr_->remove({"orders", 0}));
  mgr_->cleanup_deleted();  // the files are unlinked; the holder's stay open
  EXPECT_EQ(mgr_->find({"orders", 0}), nullptr);
  EXPECT_EQ(p->log().log_start_offset().value, 0);
  EXPECT_EQ(p->log().log_end_offset().value, 15);
  EXPECT_EQ(read_all(p->log(), 0), before);
  bytes b = make_batch({.records = 1, .value_bytes = 10, .tag = "late"});
  partition_append_result r;
  EXPECT_TRUE(p->append_as_leader(b, {.epoch = leader_epoch(0), .now_ms = 5}, &r));
  EXPECT_EQ(p->log().log_end_offset().value, 15);
}

TEST_F(LogManagerTest, RemovedPartitionIsDeletedAfterCleanup) {
  start();
  std::shared_ptr<partition_log> p;
  ASSERT_FALSE(mgr_->create({"orders", 0}, topic_id(), 1000, &p));
  ASSERT_FALSE(mgr_->create({"orders", 1}, topic_id(), 1000, &p));
  ASSERT_FALSE(append({"orders", 0}, 3));
  const auto dir = mgr_->find({"orders", 0})->dir();
  ASSERT_FALSE(mgr_->remove({"orders", 0}));
  EXPECT_EQ(mgr_->find({"orders", 0}), nullptr);
  EXPECT_FALSE(fs().exists(dir));
  std::vector<std::string> names;
  ASSERT_FALSE(fs().list(dir.parent_path(), &names));
  size_t deleting = 0;
  for (const auto& n : names) {
    if (!n.ends_with("-delete")) continue;
    ++deleting;
    EXPECT_TRUE(n.starts_with("orders-0.")) << n;
    EXPECT_EQ(n.size(), std::string("orders-0.").size() + 32 + std::string("-delete").size()) << n;
  }
  EXPECT_EQ(deleting, 1u);
  // A restart before the cleanup still does not load it, and cleans it up.
  ASSERT_FALSE(mgr_->shutdown(broker_epoch(1)));
  start();
  EXPECT_EQ(mgr_->find({"orders", 0}), nullptr);
  EXPECT_NE(mgr_->find({"orders", 1}), nullptr);
  mgr_->cleanup_deleted();
  names.clear();
  ASSERT_FALSE(fs().list(dir.parent_path(), &names));
  for (const auto& n : names) EXPECT_FALSE(n.ends_with("-delete")) << n;
}

TEST_F(LogManagerTest, PartitionInTwoDirsIsRefused) {
  start();
  std::shared_ptr<partition_log> p;
  ASSERT_FALSE(mgr_->create({"orders", 0}, topic_id(), 1000, &p));
  ASSERT_FALSE(mgr_->shutdown(broker_epoch(1)));
  ASSERT_FALSE(fs().create_directories(root() / "d2" / "orders-0"));
  std::unique_ptr<log_manager> m;
  storage_error err = log_manager::start(fs(), config(), 1000, &m);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message.find("duplicate"), std::string::npos) << err.message;
}

TEST_F(LogManagerTest, StrayAndFutureDirsAreIgnored) {
  start();
  ASSERT_FALSE(mgr_->shutdown(broker_epoch(1)));
  ASSERT_FALSE(fs().create_directories(root() / "d1" / "lost+found"));
  ASSERT_FALSE(fs().create_directories(root() / "d1" / "orders-0.abc-future"));
  start();
  EXPECT_TRUE(mgr_->partitions().empty());
  std::string all;
  for (const auto& l : mgr_->events()) all += l + "\n";
  EXPECT_NE(all.find("stray"), std::string::npos) << all;
  EXPECT_NE(all.find("future"), std::string::npos) << all;
}

TEST_F(LogManagerTest, FlushHonoursMessageAndTimeIntervals) {
  auto c = config();
  c.flush_interval_messages = 10;
  start(c);
  std::shared_ptr<partition_log> p;
  ASSERT_FALSE(mgr_->create({"orders", 0}, topic_id(), 1000, &p));
  ASSERT_FALSE(append({"orders", 0}, 3));  // 9 messages
  ASSERT_FALSE(mgr_->flush_dirty(2000));
  EXPECT_EQ(p->log().recovery_point(), offset(0));
  ASSERT_FALSE(append({"orders", 0}, 1));  // 12
  ASSERT_FALSE(mgr_->flush_dirty(2000));
  EXPECT_EQ(p->log().recovery_point(), offset(12));

  c = config();  // the default: never
  c.log_dirs = {root() / "d3"};
  start(c);
  ASSERT_FALSE(mgr_->create({"orders", 0}, topic_id(), 1000, &p));
  ASSERT_FALSE(append({"orders", 0}, 50));
  ASSERT_FALSE(mgr_->flush_dirty(1'000'000'000));
  EXPECT_EQ(p->log().recovery_point(), offset(0));

  c.flush_interval_ms = 500;
  start(c);
  p = mgr_->find({"orders", 0});
  offset after_load = p->log().recovery_point();
  ASSERT_FALSE(append({"orders", 0}, 1));
  ASSERT_FALSE(mgr_->flush_dirty(1200));  // loaded at 1000
  EXPECT_EQ(p->log().recovery_point(), after_load);
  ASSERT_FALSE(mgr_->flush_dirty(1500));
  EXPECT_EQ(p->log().recovery_point(), offset(153));
}

// KIP-858: each dir's directory id (kept across restarts), and a new log
// placed in the dir the controller assigned when it is online.
TEST_F(LogManagerTest, DirectoryIdsAndAssignedPlacement) {
  start();
  const auto d1 = mgr_->directory_id(root() / "d1");
  const auto d2 = mgr_->directory_id(root() / "d2");
  ASSERT_TRUE(d1 && d2);
  EXPECT_NE(*d1, *d2);
  EXPECT_FALSE(d1->is_reserved());
  EXPECT_EQ(mgr_->online_directory_ids(), (std::vector<protocol::uuid>{*d1, *d2}));
  EXPECT_TRUE(mgr_->offline_directory_ids().empty());
  std::shared_ptr<partition_log> p;
  // Both to d2 as assigned, though d1 holds fewer.
  ASSERT_FALSE(mgr_->create({"x", 0}, topic_id(), 1000, &p, *d2));
  ASSERT_FALSE(mgr_->create({"x", 1}, topic_id(), 1000, &p, *d2));
  EXPECT_EQ(mgr_->directory_of({"x", 1}), d2);
  // UNASSIGNED (or any id not of this broker): the dir with the fewest.
  protocol::uuid unassigned;
  unassigned.bytes[15] = 1;
  ASSERT_FALSE(mgr_->create({"x", 2}, topic_id(), 1000, &p, unassigned));
  EXPECT_EQ(mgr_->directory_of({"x", 2}), d1);
  EXPECT_EQ(mgr_->directory_of({"nope", 0}), std::nullopt);
  ASSERT_FALSE(mgr_->shutdown(broker_epoch(1)));
  start();
  EXPECT_EQ(mgr_->directory_id(root() / "d1"), d1) << "read back from meta.properties";
  EXPECT_EQ(mgr_->directory_of({"x", 0}), d2);
}

// AlterReplicaLogDirs' storage side: a future log in the other dir, filled
// with the current log's batches as they are, takes its place; the old copy
// goes; a restart finds the partition in its new dir, and deletes the future
// log of a move it interrupted.
TEST_F(LogManagerTest, FutureLogTakesThePlaceOfTheCurrentOne) {
  start();
  const auto d2 = mgr_->directory_id(root() / "d2");
  std::shared_ptr<partition_log> current;
  ASSERT_FALSE(mgr_->create({"m", 0}, topic_id(), 1000, &current, *mgr_->directory_id(root() / "d1")));
  ASSERT_FALSE(append({"m", 0}, 40, 3));
  const auto before = read_all(current->log(), 0);
  const int64_t end = current->log().log_end_offset().value;
  ASSERT_GT(current->log().segment_count(), 1u);

  std::shared_ptr<partition_log> future;
  EXPECT_TRUE(mgr_->create_future({"m", 0}, topic_id(), root() / "d1", 1000, &future)) << "its current dir";
  EXPECT_TRUE(mgr_->create_future({"m", 0}, topic_id(), root() / "d9", 1000, &future)) << "not a log dir";
  EXPECT_TRUE(mgr_->create_future({"none", 0}, topic_id(), root() / "d2", 1000, &future)) << "no such log";
  ASSERT_FALSE(mgr_->create_future({"m", 0}, topic_id(), root() / "d2", 1000, &future));
  EXPECT_EQ(mgr_->find_future({"m", 0}), future);
  EXPECT_EQ(future->dir().parent_path(), root() / "d2");
  EXPECT_TRUE(future->dir().filename().string().ends_with("-future"));
  // Copied batch by batch, offsets and epochs kept.
  for (int64_t at = 0; at < end;) {
    log_read_result r;
    ASSERT_FALSE(current->log().read(offset(at), 4096, offset(end), true, &r));
    std::vector<uint8_t> buf(r.length);
    size_t n = 0;
    ASSERT_FALSE(r.log_file->read_at(r.position, buf, &n));
    partition_append_result appended;
    ASSERT_FALSE(future->append_as_follower(buf, 1000, &appended));
    at = future->log().log_end_offset().value;
  }
  std::shared_ptr<partition_log> promoted;
  ASSERT_FALSE(mgr_->promote_future({"m", 0}, 1000, &promoted));
  EXPECT_EQ(mgr_->find({"m", 0}), promoted);
  EXPECT_EQ(mgr_->find_future({"m", 0}), nullptr);
  EXPECT_EQ(promoted->dir(), root() / "d2" / "m-0");
  EXPECT_EQ(mgr_->directory_of({"m", 0}), d2);
  EXPECT_EQ(read_all(promoted->log(), 0), before);
  EXPECT_EQ(promoted->epoch_cache().latest_epoch(), leader_epoch(3));
  EXPECT_FALSE(fs().exists(root() / "d1" / "m-0"));
  EXPECT_EQ(read_all(current->log(), 0), before) << "a holder of the old log still reads it";
  // Writes go on in the new dir.
  ASSERT_FALSE(append({"m", 0}, 1, 3));

  // An unfinished move: its future log does not survive a restart.
  std::shared_ptr<partition_log> other;
  ASSERT_FALSE(mgr_->create({"n", 0}, topic_id(), 1000, &other, *mgr_->directory_id(root() / "d1")));
  ASSERT_FALSE(append({"n", 0}, 2));
  std::shared_ptr<partition_log> unfinished;
  ASSERT_FALSE(mgr_->create_future({"n", 0}, topic_id(), root() / "d2", 1000, &unfinished));
  const auto unfinished_dir = unfinished->dir();
  ASSERT_FALSE(mgr_->shutdown(broker_epoch(1)));
  current.reset();
  future.reset();
  promoted.reset();
  other.reset();
  unfinished.reset();
  start();
  EXPECT_EQ(mgr_->find_future({"n", 0}), nullptr);
  EXPECT_EQ(mgr_->find({"n", 0})->dir().parent_path(), root() / "d1");
  EXPECT_EQ(mgr_->find({"m", 0})->dir(), root() / "d2" / "m-0");
  EXPECT_EQ(read_all(mgr_->find({"m", 0})->log(), 0).size(), before.size() + 3);
  mgr_->cleanup_deleted();
  EXPECT_FALSE(fs().exists(unfinished_dir));
}

class LogManagerFaultTest : public LogManagerTest {
 protected:
  std::filesystem::path root() const override { return "/data"; }
  file_system& fs() override { return faulty_; }
  faulty_file_system faulty_;
};

TEST_F(LogManagerFaultTest, DiskFullTakesOneDirOffline) {
  start();
  std::vector<std::filesystem::path> failures;
  mgr_->set_dir_failure_listener([&](const std::filesystem::path& dir) { failures.push_back(dir); });
  const auto d1 = mgr_->directory_id(root() / "d1");
  const auto d2 = mgr_->directory_id(root() / "d2");
  ASSERT_TRUE(d1 && d2);
  std::map<topic_partition, int64_t> acked;
  std::vector<topic_partition> tps{{"a", 0}, {"b", 0}, {"a", 1}, {"b", 1}};
  for (const auto& tp : tps) {
    std::shared_ptr<partition_log> p;
    ASSERT_FALSE(mgr_->create(tp, topic_id(), 1000, &p));
    ASSERT_FALSE(append(tp, 4));
  }
  ASSERT_EQ(mgr_->find({"a", 0})->dir().parent_path(), root() / "d1");
  ASSERT_EQ(mgr_->find({"b", 0})->dir().parent_path(), root() / "d2");
  ASSERT_FALSE(mgr_->checkpoint_all());

  faulty_.inject({.op = fs_op::write,
                  .action = fault_action::fail_before,
                  .path_contains = "/data/d1/",
                  .times = -1,
                  .error = std::make_error_code(std::errc::no_space_on_device)});
  std::error_code ec = append({"a", 0}, 1);
  EXPECT_EQ(ec, std::errc::no_space_on_device);
  EXPECT_TRUE(mgr_->is_dir_offline(root() / "d1"));
  EXPECT_TRUE(mgr_->is_offline({"a", 0}));
  EXPECT_TRUE(mgr_->is_offline({"a", 1}));
  EXPECT_FALSE(mgr_->is_offline({"b", 0}));
  EXPECT_TRUE(append({"a", 1}, 1));
  EXPECT_EQ(failures, std::vector<std::filesystem::path>{root() / "d1"}) << "told once";
  EXPECT_EQ(mgr_->online_directory_ids(), std::vector<protocol::uuid>{*d2});
  EXPECT_EQ(mgr_->offline_directory_ids(), std::vector<protocol::uuid>{*d1});
  EXPECT_EQ(mgr_->directory_of({"a", 0}), d1);
  ASSERT_FALSE(append({"b", 0}, 3));
  ASSERT_FALSE(append({"b", 1}, 2));
  for (const auto& tp : tps) acked[tp] = mgr_->find(tp)->log().log_end_offset().value;
  auto records_a0 = read_all(mgr_->find({"a", 0})->log(), 0);
  // New partitions go to the online dir.
  std::shared_ptr<partition_log> c;
  ASSERT_FALSE(mgr_->create({"c", 0}, topic_id(), 1000, &c));
  EXPECT_EQ(c->dir().parent_path(), root() / "d2");
  EXPECT_FALSE(mgr_->checkpoint_all());  // d1 is skipped
  EXPECT_FALSE(mgr_->shutdown(broker_epoch(3)));
  EXPECT_FALSE(has_clean_shutdown_marker(fs(), root() / "d1"));
  EXPECT_TRUE(has_clean_shutdown_marker(fs(), root() / "d2"));

  // Space again; restart: every acknowledged record is there.
  faulty_.clear_faults();
  start();
  EXPECT_FALSE(mgr_->is_dir_offline(root() / "d1"));
  for (const auto& tp : tps) {
    std::shared_ptr<partition_log> p = mgr_->find(tp);
    ASSERT_NE(p, nullptr) << partition_dir_name(tp);
    EXPECT_EQ(p->log().log_end_offset().value, acked[tp]) << partition_dir_name(tp);
    EXPECT_EQ(read_all(p->log(), 0).size(), static_cast<size_t>(acked[tp]));
  }
  EXPECT_EQ(read_all(mgr_->find({"a", 0})->log(), 0), records_a0);
  ASSERT_FALSE(append({"a", 0}, 1));
}

}  // namespace
}  // namespace hw::storage
