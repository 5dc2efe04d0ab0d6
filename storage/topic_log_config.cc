#include "storage/topic_log_config.h"

#include <algorithm>

namespace hw::storage {

log_config make_log_config(const config::topic_config_values& topic) {
  log_config c;
  c.segment_bytes = static_cast<int32_t>(topic.get_int("segment.bytes"));
  c.segment_ms = topic.get_int("segment.ms");
  c.segment_jitter_ms = topic.get_int("segment.jitter.ms");
  c.index_interval_bytes = static_cast<int32_t>(topic.get_int("index.interval.bytes"));
  c.segment_index_bytes = static_cast<int32_t>(topic.get_int("segment.index.bytes"));
  c.timestamp_type = topic.get_string("message.timestamp.type") == "LogAppendTime"
                         ? message_timestamp_type::log_append_time
                         : message_timestamp_type::create_time;
  c.retention_ms = topic.get_int("retention.ms");
  c.retention_bytes = topic.get_int("retention.bytes");
  c.file_delete_delay_ms = topic.get_int("file.delete.delay.ms");
  const auto& policy = topic.get_list("cleanup.policy");
  auto has = [&](std::string_view p) { return std::find(policy.begin(), policy.end(), p) != policy.end(); };
  c.cleanup.delete_enabled = has("delete");
  c.cleanup.compact = has("compact");
  c.min_cleanable_dirty_ratio = topic.get_double("min.cleanable.dirty.ratio");
  c.min_compaction_lag_ms = topic.get_int("min.compaction.lag.ms");
  c.max_compaction_lag_ms = topic.get_int("max.compaction.lag.ms");
  c.delete_retention_ms = topic.get_int("delete.retention.ms");
  c.max_message_bytes = static_cast<int32_t>(topic.get_int("max.message.bytes"));
  return c;
}

log_config make_log_config(const config::config_map& overrides, const config::broker_config_layers& broker) {
  return make_log_config(config::effective_topic_configs(overrides, broker));
}

}  // namespace hw::storage
