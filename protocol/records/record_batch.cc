#include "protocol/records/record_batch.h"

#include <cassert>

#include "protocol/records/big_endian.h"
#include "protocol/records/control_record.h"
#include "protocol/records/crc32c.h"

namespace hw::protocol {
namespace {
namespace batch_detail {

namespace layout = batch_layout;

int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// How the bytes at the start of a buffer frame a batch.
enum class framing { complete, partial, malformed };

// Checks the length and (when present) the magic of the batch at the start
// of buf. The magic sits at byte 16 in all three formats, so a legacy
// message set is told apart before its smaller minimum size matters.
framing frame(bytes_view buf, size_t& batch_bytes, batch_error& error) {
  if (buf.size() < layout::log_overhead) return framing::partial;
  int32_t length = load_big_endian<int32_t>(buf.data() + layout::batch_length);
  if (length < 0) {
    error = batch_error::invalid_length;
    return framing::malformed;
  }
  if (buf.size() > layout::magic) {
    auto magic = static_cast<int8_t>(buf[layout::magic]);
    if (magic == 0 || magic == 1) error = batch_error::legacy_magic;
    if (magic < 0 || magic > layout::current_magic) error = batch_error::unknown_magic;
    if (error != batch_error::none) return framing::malformed;
  }
  if (length < layout::min_batch_length) {
    error = batch_error::invalid_length;
    return framing::malformed;
  }
  batch_bytes = layout::log_overhead + static_cast<size_t>(length);
  return batch_bytes > buf.size() ? framing::partial : framing::complete;
}

// Every record of a control batch has a readable control key. KRaft puts
// several in one batch (snapshot header, kraft version, voters); a
// transaction marker is always alone, and consumers read only the first.
batch_error check_control_records(record_iterator& it) {
  record_view record;
  int32_t records = 0;
  bool has_marker = false;
  while (it.next(record)) {
    std::optional<control_record_key> key = parse_control_key(record);
    if (!key) return batch_error::invalid_control_record;
    auto type = static_cast<control_record_type>(key->type);
    if (type == control_record_type::abort || type == control_record_type::commit) {
      if (!parse_end_txn_marker(record)) return batch_error::invalid_control_record;
      has_marker = true;
    }
    ++records;
  }
  if (it.error() != batch_error::none) return it.error();
  if (has_marker && records != 1) return batch_error::invalid_control_record;
  return batch_error::none;
}

}  // namespace batch_detail
}  // namespace

int64_t record_batch_view::base_offset() const {
  return load_big_endian<int64_t>(bytes_.data() + batch_layout::base_offset);
}
int32_t record_batch_view::batch_length() const {
  return load_big_endian<int32_t>(bytes_.data() + batch_layout::batch_length);
}
int32_t record_batch_view::partition_leader_epoch() const {
  return load_big_endian<int32_t>(bytes_.data() + batch_layout::partition_leader_epoch);
}
int8_t record_batch_view::magic() const { return static_cast<int8_t>(bytes_[batch_layout::magic]); }
uint32_t record_batch_view::crc() const {
  return load_big_endian<uint32_t>(bytes_.data() + batch_layout::crc);
}
int16_t record_batch_view::attributes() const {
  return load_big_endian<int16_t>(bytes_.data() + batch_layout::attributes);
}
timestamp_type record_batch_view::ts_type() const {
  return (attributes() & batch_attributes::timestamp_type) != 0 ? timestamp_type::log_append_time
                                                                 : timestamp_type::create_time;
}
int32_t record_batch_view::last_offset_delta() const {
  return load_big_endian<int32_t>(bytes_.data() + batch_layout::last_offset_delta);
}
int64_t record_batch_view::base_timestamp() const {
  return load_big_endian<int64_t>(bytes_.data() + batch_layout::base_timestamp);
}
int64_t record_batch_view::max_timestamp() const {
  return load_big_endian<int64_t>(bytes_.data() + batch_layout::max_timestamp);
}
int64_t record_batch_view::producer_id() const {
  return load_big_endian<int64_t>(bytes_.data() + batch_layout::producer_id);
}
int16_t record_batch_view::producer_epoch() const {
  return load_big_endian<int16_t>(bytes_.data() + batch_layout::producer_epoch);
}
int32_t record_batch_view::base_sequence() const {
  return load_big_endian<int32_t>(bytes_.data() + batch_layout::base_sequence);
}
int32_t record_batch_view::record_count() const {
  return load_big_endian<int32_t>(bytes_.data() + batch_layout::record_count);
}

int64_t record_batch_view::last_offset() const {
  return batch_detail::wrapping_add(base_offset(), last_offset_delta());
}
int64_t record_batch_view::next_offset() const {
  return batch_detail::wrapping_add(last_offset(), 1);
}

std::optional<int64_t> record_batch_view::delete_horizon_ms() const {
  if (!has_delete_horizon()) return std::nullopt;
  return base_timestamp();
}

uint32_t record_batch_view::compute_crc() const {
  return crc32c(bytes_.subspan(batch_layout::attributes));
}

batch_error record_batch_view::validate() const {
  if (!crc_ok()) return batch_error::crc_mismatch;
  return validate_header();
}

batch_error record_batch_view::validate_header() const {
  if (magic() != batch_layout::current_magic) return batch_error::unknown_magic;
  if (!codec()) return batch_error::unsupported_compression;
  int32_t count = record_count();
  int32_t last_delta = last_offset_delta();
  if (count < 0) return batch_error::invalid_record_count;
  // Offset deltas start at 0 and strictly increase; compaction may remove
  // records (and leave empty batches) but keeps last_offset_delta.
  if (last_delta < 0 || (count > 0 && last_delta < count - 1)) return batch_error::invalid_offset_delta;
  if (codec() == compression::none &&
      static_cast<size_t>(count) > records_bytes().size() / batch_layout::min_record_bytes) {
    return batch_error::invalid_record_count;
  }
  return batch_error::none;
}

batch_error record_batch_view::validate_records(std::vector<uint8_t>& scratch,
                                                size_t max_records_bytes) const {
  batch_error e = validate();
  if (e != batch_error::none) return e;
  record_iterator it;
  e = open_records(scratch, max_records_bytes, it);
  if (e != batch_error::none) return e;
  if (is_control()) return batch_detail::check_control_records(it);
  record_view record;
  while (it.next(record)) {
  }
  return it.error();
}

record_batch_context record_batch_view::context() const {
  return {base_offset(), base_timestamp(), max_timestamp(), ts_type(), record_count(),
          last_offset_delta()};
}

batch_error record_batch_view::decompress_records(std::vector<uint8_t>& out,
                                                  size_t max_records_bytes) const {
  std::optional<compression> c = codec();
  if (!c) return batch_error::unsupported_compression;
  codec_status status = decompress_into(*c, records_bytes(), max_records_bytes, out);
  switch (status.error) {
    case codec_error::none: return batch_error::none;
    case codec_error::output_too_large: return batch_error::records_too_large;
    case codec_error::unknown_codec: return batch_error::unsupported_compression;
    default: return batch_error::decompression_failed;
  }
}

record_iterator record_batch_view::iterate(bytes_view uncompressed_records) const {
  return record_iterator(uncompressed_records, context());
}

batch_error record_batch_view::open_records(std::vector<uint8_t>& scratch, size_t max_records_bytes,
                                            record_iterator& out) const {
  std::optional<compression> c = codec();
  if (!c) return batch_error::unsupported_compression;
  // Empty batches left by compaction are written uncompressed, but an empty
  // payload means no records whatever the codec says.
  if (*c == compression::none || (record_count() == 0 && records_bytes().empty())) {
    out = iterate(records_bytes());
    return batch_error::none;
  }
  batch_error e = decompress_records(scratch, max_records_bytes);
  if (e != batch_error::none) return e;
  out = iterate(scratch);
  return batch_error::none;
}

batch_parse_result parse_record_batch(bytes_view buf) {
  batch_parse_result result;
  size_t batch_bytes = 0;
  switch (batch_detail::frame(buf, batch_bytes, result.error)) {
    case batch_detail::framing::complete:
      result.batch = record_batch_view(buf.first(batch_bytes));
      break;
    case batch_detail::framing::partial: result.error = batch_error::truncated; break;
    case batch_detail::framing::malformed: break;
  }
  return result;
}

bool record_batch_walker::next(record_batch_view& out) {
  if (error_ != batch_error::none || partial_tail_bytes_ != 0) return false;
  bytes_view rest = records_.subspan(position_);
  if (rest.empty()) return false;
  size_t batch_bytes = 0;
  switch (batch_detail::frame(rest, batch_bytes, error_)) {
    case batch_detail::framing::complete:
      out = record_batch_view(rest.first(batch_bytes));
      position_ += batch_bytes;
      return true;
    case batch_detail::framing::partial: partial_tail_bytes_ = rest.size(); return false;
    case batch_detail::framing::malformed: return false;
  }
  return false;
}

mutable_record_batch_view::mutable_record_batch_view(std::span<uint8_t> batch) : bytes_(batch) {
  assert(batch.size() >= batch_layout::header_bytes);
}

mutable_record_batch_view mutable_record_batch_view::within(std::span<uint8_t> buffer,
                                                            const record_batch_view& view) {
  auto begin = reinterpret_cast<uintptr_t>(buffer.data());
  auto at = reinterpret_cast<uintptr_t>(view.data());
  assert(at >= begin && at - begin + view.size_bytes() <= buffer.size());
  return mutable_record_batch_view(buffer.subspan(at - begin, view.size_bytes()));
}

void mutable_record_batch_view::set_base_offset(int64_t base_offset) {
  store_big_endian<int64_t>(bytes_.data() + batch_layout::base_offset, base_offset);
}
void mutable_record_batch_view::set_partition_leader_epoch(int32_t epoch) {
  store_big_endian<int32_t>(bytes_.data() + batch_layout::partition_leader_epoch, epoch);
}
void mutable_record_batch_view::set_attributes(int16_t attributes) {
  store_big_endian<int16_t>(bytes_.data() + batch_layout::attributes, attributes);
}
void mutable_record_batch_view::set_max_timestamp(int64_t max_timestamp) {
  store_big_endian<int64_t>(bytes_.data() + batch_layout::max_timestamp, max_timestamp);
}
void mutable_record_batch_view::update_crc() {
  store_big_endian<uint32_t>(bytes_.data() + batch_layout::crc, view().compute_crc());
}

void mutable_record_batch_view::set_log_append_time(int64_t timestamp_ms) {
  record_batch_view v = view();
  if (v.ts_type() == timestamp_type::log_append_time && v.max_timestamp() == timestamp_ms) return;
  set_attributes(static_cast<int16_t>(v.attributes() | batch_attributes::timestamp_type));
  set_max_timestamp(timestamp_ms);
  update_crc();
}

}  // namespace hw::protocol
