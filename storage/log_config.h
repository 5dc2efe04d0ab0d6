#pragma once
// The per-log settings a partition's log reads: Kafka's topic-level configs
// (with the broker's log.* defaults), names and defaults as in Kafka 4.x.
// A plain value: the log keeps its own copy; a config change replaces it
// through log::set_config on the partition strand.

#include <cstdint>
#include <limits>

namespace hw::storage {

enum class message_timestamp_type : int8_t {
  create_time,      // the producer's timestamps are kept
  log_append_time,  // the leader stamps each batch with its clock on append
};

// cleanup.policy: a list of "delete" and "compact" (empty is allowed: no
// time or size retention, only the log start offset deletes segments).
struct cleanup_policy {
  bool delete_enabled = true;  // "delete": retention.ms and retention.bytes apply
  bool compact = false;        // "compact": the cleaner compacts the log
  bool operator==(const cleanup_policy&) const = default;
};

struct log_config {
  // segment.bytes: a segment rolls before it would grow past this. Positions
  // in the index are int32, so it is an int32 as in Kafka.
  int32_t segment_bytes = 1024 * 1024 * 1024;
  // segment.ms: a segment rolls once the newest batch's timestamp is this far
  // past the first batch's (wall clock since creation when there is none).
  int64_t segment_ms = 7LL * 24 * 60 * 60 * 1000;
  // segment.jitter.ms: each segment rolls up to this much earlier than
  // segment_ms, chosen at random when it is created, so that partitions
  // created together do not all roll together.
  int64_t segment_jitter_ms = 0;
  // index.interval.bytes: bytes of appended data between index entries.
  int32_t index_interval_bytes = 4096;
  // segment.index.bytes: the size an index may reach (offset index entries
  // are 8 bytes, time index entries 12); a full index rolls the segment.
  int32_t segment_index_bytes = 10 * 1024 * 1024;
  // message.timestamp.type.
  message_timestamp_type timestamp_type = message_timestamp_type::create_time;
  // retention.ms: a segment is deleted once its largest timestamp is more
  // than this old; -1 keeps segments forever.
  int64_t retention_ms = 7LL * 24 * 60 * 60 * 1000;
  // retention.bytes: the oldest segments are deleted while the log would
  // still hold at least this many bytes without them; -1 is no limit.
  int64_t retention_bytes = -1;
  // file.delete.delay.ms: how long a deleted segment's `.deleted` files stay.
  int64_t file_delete_delay_ms = 60000;
  // cleanup.policy.
  cleanup_policy cleanup = {};

  // --- compaction (cleanup.policy=compact; read by the cleaner) ---
  // min.cleanable.dirty.ratio: a log is cleaned once its dirty bytes (from
  // the cleaner checkpoint to the first uncleanable segment) are more than
  // this fraction of the cleanable part of the log.
  double min_cleanable_dirty_ratio = 0.5;
  // min.compaction.lag.ms: a segment stays uncleaned until its largest
  // timestamp is at least this old.
  int64_t min_compaction_lag_ms = 0;
  // max.compaction.lag.ms: a dirty segment whose first batch is older than
  // this is cleaned whatever the dirty ratio.
  int64_t max_compaction_lag_ms = std::numeric_limits<int64_t>::max();
  // delete.retention.ms: how long a tombstone (and an empty transaction's
  // marker) survives after the cleaning pass that first kept it.
  int64_t delete_retention_ms = 86'400'000;
  // max.message.bytes: the largest batch; the cleaner's buffers grow to it.
  int32_t max_message_bytes = 1024 * 1024 + 12;
};

}  // namespace hw::storage
