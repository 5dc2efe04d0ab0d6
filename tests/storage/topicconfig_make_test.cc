#include <gtest/gtest.h>

#include "storage/topic_log_config.h"

namespace hw::storage {
namespace {

config::broker_config broker(std::vector<config::config_entry> entries) {
  auto r = config::build_broker_config(entries);
  for (auto& e : r.errors) ADD_FAILURE() << e;
  return r.config ? *r.config : config::broker_config{};
}

TEST(TopicLogConfig, KafkaDefaultsAreLogConfigDefaults) {
  config::broker_config_layers b(broker({}));
  log_config c = make_log_config({}, b);
  log_config d;
  EXPECT_EQ(c.segment_bytes, d.segment_bytes);
  EXPECT_EQ(c.segment_ms, d.segment_ms);
  EXPECT_EQ(c.segment_jitter_ms, d.segment_jitter_ms);
  EXPECT_EQ(c.index_interval_bytes, d.index_interval_bytes);
  EXPECT_EQ(c.segment_index_bytes, d.segment_index_bytes);
  EXPECT_EQ(c.timestamp_type, d.timestamp_type);
  EXPECT_EQ(c.retention_ms, d.retention_ms);
  EXPECT_EQ(c.retention_bytes, d.retention_bytes);
  EXPECT_EQ(c.file_delete_delay_ms, d.file_delete_delay_ms);
  EXPECT_EQ(c.cleanup, d.cleanup);
  EXPECT_EQ(c.min_cleanable_dirty_ratio, d.min_cleanable_dirty_ratio);
  EXPECT_EQ(c.min_compaction_lag_ms, d.min_compaction_lag_ms);
  EXPECT_EQ(c.max_compaction_lag_ms, d.max_compaction_lag_ms);
  EXPECT_EQ(c.delete_retention_ms, d.delete_retention_ms);
  EXPECT_EQ(c.max_message_bytes, d.max_message_bytes);
}

TEST(TopicLogConfig, OverridesReachEveryField) {
  config::broker_config_layers b(broker({}));
  log_config c = make_log_config({{"segment.bytes", "2000000"},
                                  {"segment.ms", "5000"},
                                  {"segment.jitter.ms", "100"},
                                  {"index.interval.bytes", "10"},
                                  {"segment.index.bytes", "4096"},
                                  {"message.timestamp.type", "LogAppendTime"},
                                  {"retention.ms", "-1"},
                                  {"retention.bytes", "123456"},
                                  {"file.delete.delay.ms", "7"},
                                  {"cleanup.policy", "compact"},
                                  {"min.cleanable.dirty.ratio", "0.1"},
                                  {"min.compaction.lag.ms", "11"},
                                  {"max.compaction.lag.ms", "22"},
                                  {"delete.retention.ms", "33"},
                                  {"max.message.bytes", "44"}},
                                 b);
  EXPECT_EQ(c.segment_bytes, 2000000);
  EXPECT_EQ(c.segment_ms, 5000);
  EXPECT_EQ(c.segment_jitter_ms, 100);
  EXPECT_EQ(c.index_interval_bytes, 10);
  EXPECT_EQ(c.segment_index_bytes, 4096);
  EXPECT_EQ(c.timestamp_type, message_timestamp_type::log_append_time);
  EXPECT_EQ(c.retention_ms, -1);
  EXPECT_EQ(c.retention_bytes, 123456);
  EXPECT_EQ(c.file_delete_delay_ms, 7);
  EXPECT_EQ(c.cleanup, (cleanup_policy{false, true}));
  EXPECT_DOUBLE_EQ(c.min_cleanable_dirty_ratio, 0.1);
  EXPECT_EQ(c.min_compaction_lag_ms, 11);
  EXPECT_EQ(c.max_compaction_lag_ms, 22);
  EXPECT_EQ(c.delete_retention_ms, 33);
  EXPECT_EQ(c.max_message_bytes, 44);
}

TEST(TopicLogConfig, CleanupPolicyLists) {
  config::broker_config_layers b(broker({}));
  EXPECT_EQ(make_log_config({{"cleanup.policy", ""}}, b).cleanup, (cleanup_policy{false, false}));
  EXPECT_EQ(make_log_config({{"cleanup.policy", "delete,compact"}}, b).cleanup, (cleanup_policy{true, true}));
  EXPECT_EQ(make_log_config({{"cleanup.policy", "delete"}}, b).cleanup, (cleanup_policy{true, false}));
}

TEST(TopicLogConfig, BrokerValuesFillWhatTheTopicLeavesOpen) {
  config::broker_config_layers b(broker({{"log.retention.hours", "1", "t"},
                                         {"log.roll.ms", "60000", "t"},
                                         {"log.cleanup.policy", "compact", "t"},
                                         {"message.max.bytes", "5000", "t"}}),
                                 {{"log.segment.bytes", "3145728"}});
  log_config c = make_log_config({{"max.message.bytes", "6000"}}, b);
  EXPECT_EQ(c.retention_ms, 3'600'000);
  EXPECT_EQ(c.segment_ms, 60'000);
  EXPECT_EQ(c.segment_bytes, 3145728);
  EXPECT_EQ(c.cleanup, (cleanup_policy{false, true}));
  EXPECT_EQ(c.max_message_bytes, 6000);
}

}  // namespace
}  // namespace hw::storage
