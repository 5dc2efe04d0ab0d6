// Retention, deleted files and deleted partitions as the storage scheduler
// runs them on a real log manager, with an injected clock.

#include <gtest/gtest.h>

#include "broker/maintenance/storage_scheduler.h"
#include "tests/broker/maintenance_support.h"

namespace hw::broker::testing {
namespace {

storage::log_config small_segments() {
  storage::log_config c;
  c.segment_bytes = 600;  // a few batches per segment
  c.retention_ms = 1000;
  c.file_delete_delay_ms = 5000;
  return c;
}

maintenance_options fast_options() {
  maintenance_options o;
  o.cleaner_enabled = false;
  return o;
}

void produce_batches(maintenance_env& env, const std::shared_ptr<partition>& p, int n, int64_t ts) {
  for (int i = 0; i < n; ++i) {
    auto r = env.produce(p, storage::testing::keyed_batch({{"k" + std::to_string(i), std::string(100, 'v')}}, ts));
    ASSERT_EQ(r.error, protocol::error_code::none) << r.error_message;
  }
}

TEST(MaintenanceRetention, DeletesExpiredSegmentsAndMovesTheLogStart) {
  maintenance_env env;
  auto p = env.add_partition({"events", 0}, small_segments());
  produce_batches(env, p, 12, t0);
  ASSERT_GT(p->log().log().segment_count(), 2u);
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, fast_options(), env.clock());

  // Not yet old enough: nothing goes.
  env.now = t0 + 1000;
  EXPECT_EQ(env.await(s.run_retention()), 0u);
  EXPECT_EQ(p->log_start_offset(), storage::offset(0));

  // Past retention.ms and with the HW at the log end, every segment goes
  // (the active one rolled first), as Kafka 4.x does.
  env.now = t0 + 1001 + 10;
  const auto end = p->log_end_offset();
  EXPECT_GT(env.await(s.run_retention()), 2u);
  EXPECT_EQ(p->log_start_offset(), end);
  EXPECT_TRUE(env.saw_event("Rolled new log segment at offset " + std::to_string(end.value)));
  const auto part_dir = p->log().dir();
  EXPECT_GT(count_files(part_dir, ".log.deleted"), 2u);

  // The files stay for file.delete.delay.ms, then go.
  env.now = env.now + 4000;
  env.await(s.run_segment_deletions());
  EXPECT_GT(count_files(part_dir, ".log.deleted"), 2u);
  env.now = env.now + 1000;
  env.await(s.run_segment_deletions());
  EXPECT_EQ(count_files(part_dir, ".log.deleted"), 0u);
  EXPECT_EQ(s.retention().pending_files(), 0u);
}

TEST(MaintenanceRetention, CompactOnlyLogsKeepOldSegments) {
  maintenance_env env;
  auto config = small_segments();
  config.cleanup = {.delete_enabled = false, .compact = true};
  auto p = env.add_partition({"state", 0}, config);
  produce_batches(env, p, 12, t0);
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, fast_options(), env.clock());
  env.now = t0 + 100'000;
  EXPECT_EQ(env.await(s.run_retention()), 0u);
  EXPECT_EQ(p->log_start_offset(), storage::offset(0));
}

TEST(MaintenanceRetention, CompactDeleteLogsAlsoExpireByTime) {
  maintenance_env env;
  auto config = small_segments();
  config.cleanup = {.delete_enabled = true, .compact = true};
  auto p = env.add_partition({"state", 0}, config);
  produce_batches(env, p, 12, t0);
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, fast_options(), env.clock());
  env.now = t0 + 100'000;
  EXPECT_GT(env.await(s.run_retention()), 0u);
  EXPECT_EQ(p->log_start_offset(), p->log_end_offset());
}

TEST(MaintenanceRetention, DeletedPartitionDirectoriesAreRemoved) {
  maintenance_env env;
  auto p = env.add_partition({"gone", 0}, small_segments());
  produce_batches(env, p, 3, t0);
  p.reset();
  env.remove_partition({"gone", 0});
  EXPECT_EQ(count_files(env.log_dir(), "-delete"), 1u);
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, fast_options(), env.clock());
  env.await(s.run_deleted_dirs_cleanup());
  EXPECT_EQ(count_files(env.log_dir(), "-delete"), 0u);
}

TEST(MaintenanceRetention, TheLoopRunsRetentionOnItsInterval) {
  maintenance_env env;
  auto p = env.add_partition({"events", 0}, small_segments());
  produce_batches(env, p, 12, t0);
  env.now = t0 + 10'000;
  auto o = fast_options();
  o.retention_check_interval_ms = 20;
  storage_scheduler s(env.io.get_executor(), *env.replicas, *env.fs, {env.log_dir()}, o, env.clock());
  s.start();
  const auto end = p->log_end_offset();
  EXPECT_TRUE(wait_until([&] { return p->log_start_offset() == end; }, std::chrono::seconds(10)));
  s.stop();
}

}  // namespace
}  // namespace hw::broker::testing
