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

class LogManagerFaultTest : public LogManagerTest {
 protected:
  std::filesystem::path root() const override { return "/data"; }
  file_system& fs() override { return faulty_; }
  faulty_file_system faulty_;
};

TEST_F(LogManagerFaultTest, DiskFullTakesOneDirOffline) {
  start();
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
