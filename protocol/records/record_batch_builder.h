#pragma once
// Writes RecordBatch v2 batches: the producer side of the format, used by
// the broker for control markers, internal topics and recompression, and by
// tests. Records are encoded as they are appended (keys and values are
// copied, so the caller's buffers need not outlive append); finish writes
// the header, compresses the records if asked, and fills in the length and
// the CRC. Not thread-safe; one builder per batch.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/records/compression.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record.h"
#include "protocol/wire/reader.h"

namespace hw::protocol {

struct record_batch_options {
  int64_t base_offset = 0;
  int32_t partition_leader_epoch = -1;
  compression codec = compression::none;
  std::optional<int> compression_level;  // nothing: Kafka's default for the codec
  timestamp_type ts_type = timestamp_type::create_time;
  // Required with log_append_time: the batch's max timestamp.
  std::optional<int64_t> log_append_time_ms;
  bool transactional = false;
  bool control = false;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  // Sets hasDeleteHorizonMs; the base timestamp then holds the horizon.
  std::optional<int64_t> delete_horizon_ms;
  // For batches emptied by compaction: the delta of the last original offset.
  std::optional<int32_t> last_offset_delta;
};

struct record_header {
  std::string_view key;
  std::optional<bytes_view> value;
};

class record_batch_builder {
 public:
  explicit record_batch_builder(const record_batch_options& options);

  // Appends a record at the next offset delta (one past the previous).
  void append(int64_t timestamp_ms, std::optional<bytes_view> key, std::optional<bytes_view> value,
              std::span<const record_header> headers = {});
  // Appends at an explicit offset delta, greater than any before it.
  void append_at(int32_t offset_delta, int64_t timestamp_ms, std::optional<bytes_view> key,
                 std::optional<bytes_view> value, std::span<const record_header> headers = {});

  int32_t record_count() const { return record_count_; }
  // The encoded records so far, before compression.
  size_t records_bytes() const { return records_.size(); }

  // Appends the finished batch to out. The builder is unchanged and can finish again.
  void finish_into(std::vector<uint8_t>& out) const;
  std::vector<uint8_t> finish() const;

 private:
  void write_header(std::vector<uint8_t>& out) const;

  record_batch_options options_;
  std::vector<uint8_t> records_;
  int32_t record_count_ = 0;
  int32_t last_delta_ = -1;
  std::optional<int64_t> base_timestamp_;
  int64_t max_timestamp_ = -1;  // Kafka's NO_TIMESTAMP
};

// A transaction marker as the coordinator writes it to each partition: a
// transactional control batch holding one COMMIT or ABORT record.
struct end_txn_marker_batch {
  int64_t base_offset = 0;
  int32_t partition_leader_epoch = -1;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int64_t timestamp_ms = 0;
  end_txn_marker marker;
};

void append_end_txn_marker_batch(std::vector<uint8_t>& out, const end_txn_marker_batch& batch);

}  // namespace hw::protocol
