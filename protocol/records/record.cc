#include "protocol/records/record.h"

namespace hw::protocol {
namespace {
namespace record_detail {

// Reads a length-prefixed byte field where -1 means null.
bool read_nullable_bytes(reader& r, std::optional<bytes_view>& out) {
  int32_t length = r.read_varint();
  if (length < -1) return false;
  if (length == -1) {
    out.reset();
  } else {
    out = r.read_view(static_cast<size_t>(length));
  }
  return r.ok();
}

// The smallest header: empty key (one byte) and null value (one byte).
constexpr size_t kMinHeaderBytes = 2;

bool check_headers(reader& r, int32_t count) {
  if (count < 0 || !r.plausible_count(static_cast<size_t>(count), kMinHeaderBytes)) return false;
  for (int32_t i = 0; i < count; ++i) {
    int32_t key_length = r.read_varint();
    if (key_length < 0) return false;  // header keys are non-null strings
    r.skip(static_cast<size_t>(key_length));
    int32_t value_length = r.read_varint();
    if (value_length < -1) return false;
    if (value_length > 0) r.skip(static_cast<size_t>(value_length));
  }
  return r.ok();
}

}  // namespace record_detail
}  // namespace

record_header_iterator::record_header_iterator(bytes_view bytes, int32_t count)
    : bytes_(bytes), left_(count) {
  if (left_ > 0) decode();
}

record_header_iterator& record_header_iterator::operator++() {
  if (--left_ > 0) decode();
  return *this;
}

void record_header_iterator::decode() {
  reader r(bytes_.subspan(pos_));
  int32_t key_length = r.read_varint();
  current_.key = r.read_string_view(static_cast<size_t>(key_length));
  record_detail::read_nullable_bytes(r, current_.value);
  pos_ += r.position();
}

batch_error decode_record(reader& r, record_view& out) {
  size_t start = r.position();
  int32_t length = r.read_varint();
  if (!r.ok() || length < 0 || static_cast<size_t>(length) > r.remaining()) {
    return batch_error::invalid_record;
  }
  bytes_view body = r.read_view(static_cast<size_t>(length));
  out.encoded_bytes = r.position() - start;
  reader b(body);
  out.attributes = b.read_int8();
  out.timestamp_delta = b.read_varlong();
  out.offset_delta = b.read_varint();
  out.offset = out.offset_delta;
  out.timestamp = out.timestamp_delta;
  if (!record_detail::read_nullable_bytes(b, out.key)) return batch_error::invalid_record;
  if (!record_detail::read_nullable_bytes(b, out.value)) return batch_error::invalid_record;
  out.header_count = b.read_varint();
  size_t headers_start = b.position();
  if (!record_detail::check_headers(b, out.header_count)) return batch_error::invalid_record;
  // Kafka refuses a record whose declared length leaves bytes unread.
  if (b.remaining() != 0) return batch_error::invalid_record;
  out.header_bytes = body.subspan(headers_start);
  return batch_error::none;
}

record_iterator::record_iterator(bytes_view records, const record_batch_context& context)
    : reader_(records), context_(context) {}

bool record_iterator::fail(batch_error e) {
  error_ = e;
  return false;
}

bool record_iterator::next(record_view& out) {
  if (error_ != batch_error::none) return false;
  if (read_ >= context_.record_count) {
    if (reader_.remaining() != 0) return fail(batch_error::record_count_mismatch);
    return false;
  }
  if (reader_.remaining() == 0) return fail(batch_error::record_count_mismatch);
  batch_error e = decode_record(reader_, out);
  if (e != batch_error::none) return fail(e);
  if (out.offset_delta <= previous_delta_ || out.offset_delta > context_.last_offset_delta) {
    return fail(batch_error::invalid_offset_delta);
  }
  previous_delta_ = out.offset_delta;
  ++read_;
  // Wrapping arithmetic: a hostile header cannot make this undefined.
  out.offset = static_cast<int64_t>(static_cast<uint64_t>(context_.base_offset) +
                                    static_cast<uint64_t>(out.offset_delta));
  out.timestamp = context_.ts_type == timestamp_type::log_append_time
                      ? context_.max_timestamp
                      : static_cast<int64_t>(static_cast<uint64_t>(context_.base_timestamp) +
                                             static_cast<uint64_t>(out.timestamp_delta));
  return true;
}

}  // namespace hw::protocol
