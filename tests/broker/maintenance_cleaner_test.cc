// The log cleaner against the replica manager: compacted logs are found
// with their settings and min(LSO, HW), cleaned, and installed on the
// partition strand; logs not compacted are left alone.

#include <gtest/gtest.h>

#include "broker/maintenance/cleaner_service.h"
#include "tests/broker/maintenance_support.h"

namespace hw::broker::testing {
namespace {

storage::log_config compacted() {
  storage::log_config c;
  c.segment_bytes = 400;
  c.cleanup = {.delete_enabled = false, .compact = true};
  c.min_cleanable_dirty_ratio = 0.01;
  c.file_delete_delay_ms = 0;
  return c;
}

storage::cleaner_config small_cleaner() {
  storage::cleaner_config c;
  c.dedupe_buffer_bytes = 1 << 20;
  c.io_buffer_bytes = 64 * 1024;
  c.backoff_ms = 10;
  return c;
}

// Three keys, each written ten times, one record per batch.
void produce_repeated_keys(maintenance_env& env, const std::shared_ptr<partition>& p) {
  for (int round = 0; round < 10; ++round)
    for (const char* key : {"a", "b", "c"}) {
      auto r = env.produce(p, storage::testing::keyed_batch({{key, std::string(key) + std::to_string(round)}}));
      ASSERT_EQ(r.error, protocol::error_code::none) << r.error_message;
    }
}

std::vector<storage::testing::stored_record> records_below(const storage::log& l, int64_t end) {
  std::vector<storage::testing::stored_record> all, out;
  storage::testing::read_log(l, &all);
  for (auto& r : storage::testing::data_records(all))
    if (r.offset < end) out.push_back(r);
  return out;
}

TEST(MaintenanceCleaner, CleansACompactedPartitionOnItsStrand) {
  maintenance_env env;
  auto p = env.add_partition({"state", 0}, compacted());
  produce_repeated_keys(env, p);
  ASSERT_GT(p->log().log().segment_count(), 3u);
  cleaner_service cleaner(*env.replicas, *env.fs, small_cleaner(), env.clock());

  auto report = cleaner.run_once();
  ASSERT_TRUE(report);
  EXPECT_FALSE(report->abandoned);
  EXPECT_EQ(report->tp, (storage::topic_partition{"state", 0}));
  const int64_t cleaned_to = report->end_offset.value;
  EXPECT_GT(cleaned_to, 3);
  // In the cleaned part each key appears once, with its latest value there.
  auto cleaned = records_below(p->log().log(), cleaned_to);
  std::map<std::string, int> seen;
  for (const auto& r : cleaned) ++seen[r.key];
  for (const auto& [key, n] : seen) EXPECT_EQ(n, 1) << key;
  EXPECT_EQ(env.logs->cleaner_checkpoints().at({"state", 0}), report->end_offset);
  // The whole log still reads the latest value of every key.
  std::vector<storage::testing::stored_record> all;
  storage::testing::read_log(p->log().log(), &all);
  auto latest = storage::testing::latest_by_key(storage::testing::data_records(all));
  EXPECT_EQ(latest.at("a"), "a9");
  EXPECT_EQ(latest.at("c"), "c9");
}

TEST(MaintenanceCleaner, LeavesDeletePolicyLogsAlone) {
  maintenance_env env;
  auto config = compacted();
  config.cleanup = {.delete_enabled = true, .compact = false};
  auto p = env.add_partition({"events", 0}, config);
  produce_repeated_keys(env, p);
  cleaner_service cleaner(*env.replicas, *env.fs, small_cleaner(), env.clock());
  EXPECT_FALSE(cleaner.run_once());
  EXPECT_TRUE(env.logs->cleaner_checkpoints().empty());
}

TEST(MaintenanceCleaner, APartitionBeingRemovedIsSkipped) {
  maintenance_env env;
  auto p = env.add_partition({"state", 0}, compacted());
  produce_repeated_keys(env, p);
  cleaner_service cleaner(*env.replicas, *env.fs, small_cleaner(), env.clock());
  cleaner.begin_log_removal({"state", 0});  // no pass running: returns at once
  EXPECT_FALSE(cleaner.run_once());
  cleaner.end_log_removal({"state", 0});
  EXPECT_TRUE(cleaner.run_once());
}

TEST(MaintenanceCleaner, TheThreadCleansUntilStopped) {
  maintenance_env env;
  auto p = env.add_partition({"state", 0}, compacted());
  produce_repeated_keys(env, p);
  cleaner_service cleaner(*env.replicas, *env.fs, small_cleaner(), env.clock());
  cleaner.start();
  EXPECT_TRUE(wait_until([&] { return env.logs->cleaner_checkpoints().count({"state", 0}) == 1; },
                         std::chrono::seconds(10)));
  cleaner.stop();
}

}  // namespace
}  // namespace hw::broker::testing
