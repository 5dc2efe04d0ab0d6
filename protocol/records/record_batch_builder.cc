#include "protocol/records/record_batch_builder.h"

#include <cassert>

#include "protocol/records/big_endian.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/record_batch.h"
#include "protocol/wire/writer.h"

namespace hw::protocol {
namespace {
namespace builder_detail {

size_t nullable_bytes_size(const std::optional<bytes_view>& b) {
  return b ? varint_size(static_cast<int32_t>(b->size())) + b->size() : varint_size(-1);
}

void write_nullable_bytes(writer& w, const std::optional<bytes_view>& b) {
  if (!b) {
    w.write_varint(-1);
    return;
  }
  w.write_varint(static_cast<int32_t>(b->size()));
  w.write_raw(*b);
}

// The record's size after its length prefix, as the prefix must state it.
size_t record_body_size(int64_t timestamp_delta, int32_t offset_delta,
                        const std::optional<bytes_view>& key, const std::optional<bytes_view>& value,
                        std::span<const record_header> headers) {
  size_t size = 1 + varlong_size(timestamp_delta) + varint_size(offset_delta) +
                nullable_bytes_size(key) + nullable_bytes_size(value) +
                varint_size(static_cast<int32_t>(headers.size()));
  for (const record_header& h : headers) {
    size += varint_size(static_cast<int32_t>(h.key.size())) + h.key.size() +
            nullable_bytes_size(h.value);
  }
  return size;
}

int16_t attributes_of(const record_batch_options& o) {
  int16_t a = static_cast<int16_t>(o.codec) & batch_attributes::compression_mask;
  if (o.ts_type == timestamp_type::log_append_time) a |= batch_attributes::timestamp_type;
  if (o.transactional) a |= batch_attributes::transactional;
  if (o.control) a |= batch_attributes::control;
  if (o.delete_horizon_ms) a |= batch_attributes::delete_horizon;
  return a;
}

}  // namespace builder_detail
}  // namespace

record_batch_builder::record_batch_builder(const record_batch_options& options)
    : options_(options) {
  assert(options.ts_type == timestamp_type::create_time || options.log_append_time_ms);
  if (options.delete_horizon_ms) base_timestamp_ = options.delete_horizon_ms;
}

void record_batch_builder::append(int64_t timestamp_ms, std::optional<bytes_view> key,
                                  std::optional<bytes_view> value,
                                  std::span<const record_header> headers) {
  append_at(last_delta_ + 1, timestamp_ms, key, value, headers);
}

void record_batch_builder::append_at(int32_t offset_delta, int64_t timestamp_ms,
                                     std::optional<bytes_view> key, std::optional<bytes_view> value,
                                     std::span<const record_header> headers) {
  using namespace builder_detail;
  assert(offset_delta > last_delta_);
  // Like the Java client: the first record's timestamp is the base.
  if (!base_timestamp_) base_timestamp_ = timestamp_ms;
  // Wrapping, as readers add it back: any pair of timestamps round-trips.
  auto base = static_cast<uint64_t>(*base_timestamp_);
  auto timestamp_delta = static_cast<int64_t>(static_cast<uint64_t>(timestamp_ms) - base);
  size_t body = record_body_size(timestamp_delta, offset_delta, key, value, headers);
  records_.reserve(records_.size() + varint_size(static_cast<int32_t>(body)) + body);
  writer w(records_);
  w.write_varint(static_cast<int32_t>(body));
  w.write_int8(0);  // record attributes: unused
  w.write_varlong(timestamp_delta);
  w.write_varint(offset_delta);
  write_nullable_bytes(w, key);
  write_nullable_bytes(w, value);
  w.write_varint(static_cast<int32_t>(headers.size()));
  for (const record_header& h : headers) {
    w.write_varint(static_cast<int32_t>(h.key.size()));
    w.write_raw(h.key);
    write_nullable_bytes(w, h.value);
  }
  last_delta_ = offset_delta;
  ++record_count_;
  if (timestamp_ms > max_timestamp_) max_timestamp_ = timestamp_ms;
}

void record_batch_builder::write_header(std::vector<uint8_t>& out) const {
  const record_batch_options& o = options_;
  int64_t max_timestamp =
      o.ts_type == timestamp_type::log_append_time ? *o.log_append_time_ms : max_timestamp_;
  int32_t last_delta = o.last_offset_delta.value_or(last_delta_ < 0 ? 0 : last_delta_);
  writer w(out);
  w.write_int64(o.base_offset);
  w.write_int32(0);  // batch length, patched in finish_into
  w.write_int32(o.partition_leader_epoch);
  w.write_int8(batch_layout::current_magic);
  w.write_uint32(0);  // CRC, patched in finish_into
  w.write_int16(builder_detail::attributes_of(o));
  w.write_int32(last_delta);
  w.write_int64(base_timestamp_.value_or(-1));
  w.write_int64(max_timestamp);
  w.write_int64(o.producer_id);
  w.write_int16(o.producer_epoch);
  w.write_int32(o.base_sequence);
  w.write_int32(record_count_);
}

void record_batch_builder::finish_into(std::vector<uint8_t>& out) const {
  size_t start = out.size();
  out.reserve(start + batch_layout::header_bytes + records_.size());
  write_header(out);
  compress_into(options_.codec, records_, out, options_.compression_level);
  size_t batch_bytes = out.size() - start;
  assert(batch_bytes - batch_layout::log_overhead <= static_cast<size_t>(INT32_MAX));
  uint8_t* batch = out.data() + start;
  store_big_endian<int32_t>(batch + batch_layout::batch_length,
                            static_cast<int32_t>(batch_bytes - batch_layout::log_overhead));
  uint32_t crc = crc32c(std::span<const uint8_t>(batch + batch_layout::attributes,
                                                 batch_bytes - batch_layout::attributes));
  store_big_endian<uint32_t>(batch + batch_layout::crc, crc);
}

std::vector<uint8_t> record_batch_builder::finish() const {
  std::vector<uint8_t> out;
  finish_into(out);
  return out;
}

void append_end_txn_marker_batch(std::vector<uint8_t>& out, const end_txn_marker_batch& batch) {
  assert(batch.marker.type == control_record_type::commit ||
         batch.marker.type == control_record_type::abort);
  record_batch_options options;
  options.base_offset = batch.base_offset;
  options.partition_leader_epoch = batch.partition_leader_epoch;
  options.transactional = true;
  options.control = true;
  options.producer_id = batch.producer_id;
  options.producer_epoch = batch.producer_epoch;
  record_batch_builder builder(options);
  auto key = encode_control_key(batch.marker.type);
  auto value = encode_end_txn_marker_value(batch.marker.coordinator_epoch);
  builder.append(batch.timestamp_ms, bytes_view(key), bytes_view(value));
  builder.finish_into(out);
}

}  // namespace hw::protocol
