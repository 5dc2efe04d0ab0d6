#pragma once
// Options of the classic group coordinator, with Kafka 4.3's keys and
// defaults. Plain values; the broker fills them from its configuration.

#include <cstdint>
#include <limits>

namespace hw::broker::group {

struct group_config {
  // group.min.session.timeout.ms / group.max.session.timeout.ms
  int32_t min_session_timeout_ms = 6000;
  int32_t max_session_timeout_ms = 1800000;
  // group.max.size
  int32_t max_size = std::numeric_limits<int32_t>::max();
  // group.initial.rebalance.delay.ms
  int32_t initial_rebalance_delay_ms = 3000;
  // How long a new member's parked JoinGroup may wait (Kafka's fixed 5 min).
  int32_t new_member_join_timeout_ms = 5 * 60 * 1000;
  // offsets.retention.minutes (7 days) and offsets.retention.check.interval.ms
  int64_t offsets_retention_ms = 7LL * 24 * 60 * 60 * 1000;
  int64_t offsets_retention_check_interval_ms = 600000;
  // offset.metadata.max.bytes
  int32_t offset_metadata_max_bytes = 4096;
};

}  // namespace hw::broker::group
