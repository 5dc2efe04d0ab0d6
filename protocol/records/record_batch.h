#pragma once
// RecordBatch v2 (magic 2), read in place.
//
// A record_batch_view points into the caller's buffer (a Produce request
// frame, a segment read, a Fetch response) and copies nothing; it is valid
// while that buffer is. parse_record_batch() frames one batch (length and
// magic); validate() checks the CRC and the header; the records are then
// iterated directly (uncompressed) or after decompressing into a
// caller-owned, bounded buffer. mutable_record_batch_view patches the fields
// the broker assigns (base offset, leader epoch, log-append time) without
// copying the batch. The legacy formats (magic 0/1) are recognised and refused.
// Views are plain values; use them from one thread at a time.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/records/batch_error.h"
#include "protocol/records/compression.h"
#include "protocol/records/record.h"
#include "protocol/wire/reader.h"

namespace hw::protocol {

// Byte offsets of the v2 header fields, from the start of the batch.
namespace batch_layout {
inline constexpr size_t base_offset = 0;             // int64
inline constexpr size_t batch_length = 8;            // int32: bytes after this field
inline constexpr size_t partition_leader_epoch = 12; // int32, not covered by the CRC
inline constexpr size_t magic = 16;                  // int8 (same place in every format)
inline constexpr size_t crc = 17;                    // uint32 over attributes..end
inline constexpr size_t attributes = 21;             // int16
inline constexpr size_t last_offset_delta = 23;      // int32
inline constexpr size_t base_timestamp = 27;         // int64
inline constexpr size_t max_timestamp = 35;          // int64
inline constexpr size_t producer_id = 43;            // int64
inline constexpr size_t producer_epoch = 51;         // int16
inline constexpr size_t base_sequence = 53;          // int32
inline constexpr size_t record_count = 57;           // int32
inline constexpr size_t records = 61;

inline constexpr size_t log_overhead = 12;  // base offset + batch length
inline constexpr size_t header_bytes = records;
inline constexpr int32_t min_batch_length = static_cast<int32_t>(header_bytes - log_overhead);
inline constexpr int8_t current_magic = 2;
// The smallest record: a length byte and six one-byte fields.
inline constexpr size_t min_record_bytes = 7;
}  // namespace batch_layout

// Bits of the attributes field.
namespace batch_attributes {
inline constexpr int16_t compression_mask = 0x07;
inline constexpr int16_t timestamp_type = 0x08;     // 1 = LOG_APPEND_TIME
inline constexpr int16_t transactional = 0x10;
inline constexpr int16_t control = 0x20;
inline constexpr int16_t delete_horizon = 0x40;     // base timestamp is the delete horizon
}  // namespace batch_attributes

class record_batch_view {
 public:
  record_batch_view() = default;
  // No checks: the bytes of one batch as framed by parse_record_batch or
  // record_batch_walker (at least header_bytes long).
  explicit record_batch_view(bytes_view batch) : bytes_(batch) {}

  // CRC, then the header (validate_header). What every batch must pass
  // before it is trusted.
  batch_error validate() const;
  // The header without the CRC: known codec, record count, last offset delta.
  batch_error validate_header() const;
  // validate(), then every record decoded and checked (decompressing into
  // scratch, at most max_records_bytes): count, offsets deltas, and for a
  // control batch readable control keys, a transaction marker alone.
  batch_error validate_records(std::vector<uint8_t>& scratch, size_t max_records_bytes) const;

  uint32_t compute_crc() const;
  bool crc_ok() const { return compute_crc() == crc(); }

  int64_t base_offset() const;
  int32_t batch_length() const;
  int32_t partition_leader_epoch() const;
  int8_t magic() const;
  uint32_t crc() const;
  int16_t attributes() const;
  int compression_id() const { return attributes() & batch_attributes::compression_mask; }
  // The codec, or nothing for ids 5..7.
  std::optional<compression> codec() const { return compression_from_id(compression_id()); }
  timestamp_type ts_type() const;
  bool is_transactional() const { return (attributes() & batch_attributes::transactional) != 0; }
  bool is_control() const { return (attributes() & batch_attributes::control) != 0; }
  bool has_delete_horizon() const { return (attributes() & batch_attributes::delete_horizon) != 0; }
  int32_t last_offset_delta() const;
  int64_t base_timestamp() const;
  int64_t max_timestamp() const;
  int64_t producer_id() const;
  int16_t producer_epoch() const;
  int32_t base_sequence() const;
  int32_t record_count() const;

  // base_offset + last_offset_delta (+ 1), wrapping rather than overflowing
  // on a hostile header.
  int64_t last_offset() const;
  int64_t next_offset() const;
  std::optional<int64_t> delete_horizon_ms() const;

  bytes_view bytes() const { return bytes_; }
  const uint8_t* data() const { return bytes_.data(); }
  size_t size_bytes() const { return bytes_.size(); }
  // The records payload after the header, compressed when codec() is not none.
  bytes_view records_bytes() const { return bytes_.subspan(batch_layout::records); }

  record_batch_context context() const;

  // Iterates the records. An uncompressed batch is read in place; a
  // compressed one is first decompressed into scratch (bounded by
  // max_records_bytes), which must then outlive the iterator and the
  // record views. Call after validate().
  batch_error open_records(std::vector<uint8_t>& scratch, size_t max_records_bytes,
                           record_iterator& out) const;
  // The two steps of open_records, for callers that keep the payload.
  batch_error decompress_records(std::vector<uint8_t>& out, size_t max_records_bytes) const;
  record_iterator iterate(bytes_view uncompressed_records) const;

 private:
  bytes_view bytes_;
};

struct batch_parse_result {
  batch_error error = batch_error::none;
  record_batch_view batch;  // meaningful only when ok()

  bool ok() const { return error == batch_error::none; }
};

// Frames the batch at the start of buf: reads batch_length, checks it
// against the header size and the buffer, and checks the magic. The view
// covers exactly the batch; bytes after it are ignored.
batch_parse_result parse_record_batch(bytes_view buf);

// Walks a records field: batches back to back, where the last may be cut
// short (Fetch responses end at a byte limit, not a batch boundary). Yields
// each complete batch framed as parse_record_batch does, but does not
// validate it. Stops at the end, at a partial trailing batch (reported by
// partial_tail_bytes, not as an error; Produce callers treat it as corrupt),
// or at a malformed batch (error()).
class record_batch_walker {
 public:
  explicit record_batch_walker(bytes_view records) : records_(records) {}

  bool next(record_batch_view& out);
  batch_error error() const { return error_; }
  // Bytes of complete batches yielded so far.
  size_t position() const { return position_; }
  size_t partial_tail_bytes() const { return partial_tail_bytes_; }

 private:
  bytes_view records_;
  size_t position_ = 0;
  size_t partial_tail_bytes_ = 0;
  batch_error error_ = batch_error::none;
};

// A batch in a buffer the caller may write, for the fields the broker
// assigns on append. base offset and leader epoch lie outside the CRC;
// anything else changed here needs update_crc() (set_log_append_time does it).
class mutable_record_batch_view {
 public:
  // batch must be one framed batch, at least header_bytes long.
  explicit mutable_record_batch_view(std::span<uint8_t> batch);
  // The same bytes as view, found inside buffer (which must contain them).
  static mutable_record_batch_view within(std::span<uint8_t> buffer, const record_batch_view& view);

  record_batch_view view() const { return record_batch_view(bytes_); }

  void set_base_offset(int64_t base_offset);
  void set_partition_leader_epoch(int32_t epoch);
  // CRC-covered fields: follow with update_crc().
  void set_attributes(int16_t attributes);
  void set_max_timestamp(int64_t max_timestamp);
  void update_crc();
  // LOG_APPEND_TIME: timestamp type bit and max timestamp, then the CRC;
  // a no-op when both already hold (saves a CRC pass on retries).
  void set_log_append_time(int64_t timestamp_ms);

 private:
  std::span<uint8_t> bytes_;
};

}  // namespace hw::protocol
