#pragma once
// One record of a v2 batch, decoded without copying: keys, values and
// headers are spans into the buffer the records were read from (the batch
// itself, or the caller's decompression buffer), so they live exactly as
// long as that buffer. A null key or value is nullopt; an empty one is an
// engaged empty span.
//
// Record layout (all varints zig-zag): length varint, attributes int8,
// timestampDelta varlong, offsetDelta varint, keyLength varint (-1 null),
// key, valueLength varint (-1 null), value, headerCount varint, then per
// header keyLength varint, key, valueLength varint (-1 null), value.

#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>

#include "protocol/records/batch_error.h"
#include "protocol/wire/reader.h"

namespace hw::protocol {

enum class timestamp_type : int8_t { create_time = 0, log_append_time = 1 };

struct record_header_view {
  std::string_view key;
  std::optional<bytes_view> value;
};

// Walks headers that decode_record has already checked, so it cannot fail.
class record_header_iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = record_header_view;
  using difference_type = std::ptrdiff_t;

  record_header_iterator() = default;
  record_header_iterator(bytes_view bytes, int32_t count);

  const record_header_view& operator*() const { return current_; }
  const record_header_view* operator->() const { return &current_; }
  record_header_iterator& operator++();
  void operator++(int) { ++*this; }
  bool operator==(const record_header_iterator& o) const { return left_ == o.left_; }

 private:
  void decode();

  bytes_view bytes_;
  size_t pos_ = 0;
  int32_t left_ = 0;  // headers not yet passed, counting the current one
  record_header_view current_;
};

struct record_header_range {
  bytes_view bytes;
  int32_t count = 0;

  record_header_iterator begin() const { return {bytes, count}; }
  record_header_iterator end() const { return {}; }
  size_t size() const { return static_cast<size_t>(count); }
};

struct record_view {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  // Absolute values from the batch header: base offset + delta, and the
  // create time (base timestamp + delta) or, under LOG_APPEND_TIME, the
  // batch's max timestamp as Kafka reports it.
  int64_t offset = 0;
  int64_t timestamp = 0;
  std::optional<bytes_view> key;
  std::optional<bytes_view> value;
  int32_t header_count = 0;
  bytes_view header_bytes;  // the encoded headers, already checked
  size_t encoded_bytes = 0;  // the whole record, length prefix included

  record_header_range headers() const { return {header_bytes, header_count}; }
};

// Decodes the record at r's position and advances past it. Returns
// invalid_record for a bad length, varint, key/value/header size or a length
// that does not match the fields; offset/timestamp are left as the deltas.
batch_error decode_record(reader& r, record_view& out);

// What a record iterator needs from its batch header.
struct record_batch_context {
  int64_t base_offset = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  timestamp_type ts_type = timestamp_type::create_time;
  int32_t record_count = 0;
  int32_t last_offset_delta = 0;
};

// Iterates the records of an uncompressed records payload (the bytes after
// the batch header, or the output of decompressing them). Checks that
// exactly record_count records fill the payload and that offset deltas
// increase and stay within last_offset_delta. Not thread-safe.
class record_iterator {
 public:
  record_iterator() = default;
  record_iterator(bytes_view records, const record_batch_context& context);

  // The next record, or false at the end or on error (see error()).
  bool next(record_view& out);
  batch_error error() const { return error_; }
  int32_t records_read() const { return read_; }

 private:
  bool fail(batch_error e);

  reader reader_{bytes_view{}};
  record_batch_context context_;
  int32_t read_ = 0;
  int64_t previous_delta_ = -1;
  batch_error error_ = batch_error::none;
};

}  // namespace hw::protocol
