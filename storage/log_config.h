#pragma once
// The per-log settings a partition's log reads: Kafka's topic-level configs
// (with the broker's log.* defaults), names and defaults as in Kafka 4.x.
// A plain value: the log keeps its own copy; a config change replaces it
// through log::set_config on the partition strand.

#include <cstdint>

namespace hw::storage {

enum class message_timestamp_type : int8_t {
  create_time,      // the producer's timestamps are kept
  log_append_time,  // the leader stamps each batch with its clock on append
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
};

}  // namespace hw::storage
