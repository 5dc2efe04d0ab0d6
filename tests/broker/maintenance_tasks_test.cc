// Flushes, checkpoints and producer expiry as the storage scheduler runs
// them, and the storage event lines reaching the broker log.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "broker/maintenance/high_watermark_checkpoint.h"
#include "broker/maintenance/storage_scheduler.h"
#include "storage/checkpoint_file.h"
#include "tests/broker/maintenance_support.h"

namespace hw::broker::testing {
namespace {

maintenance_options no_cleaner() {
  maintenance_options o;
  o.cleaner_enabled = false;
  return o;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MaintenanceTasks, FlushByMessageCountAdvancesTheRecoveryPoint) {
  storage::log_manager_config lm;
  lm.flush_interval_messages = 3;
  maintenance_env env(lm);
  auto p = env.add_partition({"t", 0}, {});
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, no_cleaner(), env.clock());
  env.produce(p, storage::testing::keyed_batch({{"a", "1"}, {"b", "2"}}));
  env.await(s.run_flush());
  EXPECT_EQ(p->log().log().recovery_point(), storage::offset(0)) << "2 unflushed messages are below the bound";
  env.produce(p, storage::testing::keyed_batch({{"c", "3"}}));
  env.await(s.run_flush());
  EXPECT_EQ(p->log().log().recovery_point(), storage::offset(3));
}

TEST(MaintenanceTasks, FlushByTimeAdvancesTheRecoveryPoint) {
  storage::log_manager_config lm;
  lm.flush_interval_ms = 1000;
  maintenance_env env(lm);
  auto p = env.add_partition({"t", 0}, {});
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, no_cleaner(), env.clock());
  env.produce(p, storage::testing::keyed_batch({{"a", "1"}}));
  env.now = t0 + 999;
  env.await(s.run_flush());
  EXPECT_EQ(p->log().log().recovery_point(), storage::offset(0));
  env.now = t0 + 1000;
  env.await(s.run_flush());
  EXPECT_EQ(p->log().log().recovery_point(), storage::offset(1));
}

// With no log.flush.* setting (the default: never), a roll alone has the
// log flushed below the new segment soon after, off the partition strand.
TEST(MaintenanceTasks, ARollFlushesTheLogBelowTheNewSegment) {
  maintenance_env env;
  storage::log_config c;
  c.segment_bytes = 300;
  auto p = env.add_partition({"t", 0}, c);
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, no_cleaner(), env.clock());
  s.start();
  env.produce(p, storage::testing::keyed_batch({{"k", std::string(100, 'x')}}));
  EXPECT_EQ(p->log().log().segment_count(), 1u);
  EXPECT_EQ(p->log().log().recovery_point(), storage::offset(0)) << "nothing asks for a flush before a roll";
  env.produce(p, storage::testing::keyed_batch({{"k", std::string(100, 'y')}}));
  ASSERT_EQ(p->log().log().segment_count(), 2u);
  const auto base = p->log().log().segment_infos().back().base_offset;
  EXPECT_TRUE(wait_until([&] { return p->log().log().recovery_point() == base; }, std::chrono::seconds(10)))
      << "recovery point " << p->log().log().recovery_point().value << ", new segment at " << base.value;
  s.stop();
}

TEST(MaintenanceTasks, CheckpointsNameEveryPartition) {
  storage::log_manager_config lm;
  lm.flush_interval_messages = 1;
  maintenance_env env(lm);
  auto p = env.add_partition({"orders", 2}, {});
  env.produce(p, storage::testing::keyed_batch({{"a", "1"}, {"b", "2"}}));
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, no_cleaner(), env.clock());
  env.await(s.run_flush());
  env.await(s.run_offset_checkpoints());
  env.await(s.run_high_watermark_checkpoint());

  EXPECT_EQ(read_text(env.log_dir() / storage::recovery_point_checkpoint_name), "0\n1\norders 2 2\n");
  EXPECT_EQ(read_text(env.log_dir() / storage::log_start_offset_checkpoint_name), "0\n1\norders 2 0\n");
  EXPECT_EQ(read_text(env.log_dir() / storage::replication_offset_checkpoint_name), "0\n1\norders 2 2\n");
  auto hws = read_high_watermark_checkpoints(*env.fs, {env.log_dir()});
  ASSERT_EQ(hws.size(), 1u);
  EXPECT_EQ(hws.at({"orders", 2}), storage::offset(2));
}

TEST(MaintenanceTasks, IdleProducersExpire) {
  storage::log_manager_config lm;
  lm.producer_id_expiration_ms = 1000;
  maintenance_env env(lm);
  auto p = env.add_partition({"t", 0}, {});
  auto r = env.produce(p, storage::testing::keyed_batch({{"a", "1"}}, env.now.load(), {.id = 42, .epoch = 0, .base_sequence = 0}));
  ASSERT_EQ(r.error, protocol::error_code::none) << r.error_message;
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, no_cleaner(), env.clock());
  env.now = t0 + 500;
  EXPECT_EQ(env.await(s.run_producer_expiry()), 0u);
  env.now = t0 + 5000;
  EXPECT_EQ(env.await(s.run_producer_expiry()), 1u);
}

TEST(MaintenanceTasks, RollsAndTruncationsReachTheEventSink) {
  maintenance_env env;
  storage::log_config c;
  c.segment_bytes = 300;
  auto p = env.add_partition({"t", 0}, c);
  for (int i = 0; i < 4; ++i) env.produce(p, storage::testing::keyed_batch({{"k", std::string(100, 'x')}}));
  const std::string where = " partition=t-0, dir=" + env.log_dir().string() + "] ";
  EXPECT_TRUE(env.saw_event("[LocalLog" + where + "Rolled new log segment at offset 1 in "))
      << ::testing::PrintToString(env.events);
  env.await(run_on(p->strand(), [&] { return p->log().truncate_to(storage::offset(2), env.now.load()); }));
  EXPECT_TRUE(env.saw_event("[UnifiedLog" + where + "Truncating to offset 2")) << ::testing::PrintToString(env.events);
}

}  // namespace
}  // namespace hw::broker::testing
