// snapshot_file: the bytes of a snapshot (encode_snapshot, decode_snapshot).

#include <cassert>

#include "controller/raft/snapshot_file.h"
#include "protocol/messages/kraft_control_records.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/writer.h"

namespace hw::controller::raft {

namespace {

using protocol::control_record_type;

// The bytes a data record takes in a batch at offset delta d: length varint,
// then attributes, timestamp delta 0, offset delta, null key, the value,
// no headers (what Kafka's BatchBuilder counts when it decides to cut).
size_t data_record_bytes(int64_t offset_delta, size_t value_bytes) {
  const size_t body = 1 + protocol::varlong_size(0) + protocol::varint_size(static_cast<int32_t>(offset_delta)) +
                      protocol::varint_size(-1) + protocol::varint_size(static_cast<int32_t>(value_bytes)) +
                      value_bytes + protocol::varint_size(0);
  return protocol::varint_size(static_cast<int32_t>(body)) + body;
}

template <class Message>
std::vector<uint8_t> control_value(const Message& m) {
  std::vector<uint8_t> out;
  protocol::writer w(out);
  m.encode(w, 0);
  return out;
}

// One control batch of one record at base_offset.
void append_control_batch(std::vector<uint8_t>& out, int64_t base_offset, const snapshot_id& id, int64_t time_ms,
                          control_record_type type, const std::vector<uint8_t>& value) {
  protocol::record_batch_options o;
  o.base_offset = base_offset;
  o.partition_leader_epoch = id.leader_epoch.value;
  o.control = true;
  protocol::record_batch_builder builder(o);
  const auto key = protocol::encode_control_key(type);
  builder.append(time_ms, protocol::bytes_view(key.data(), key.size()), protocol::bytes_view(value.data(), value.size()));
  builder.finish_into(out);
}

// Cuts the values into Kafka's batches: whole groups of records_per_append
// while they fit in max_batch_bytes.
class batch_cutter {
 public:
  batch_cutter(const snapshot_id& id, const snapshot_write_options& o, std::vector<uint8_t>& out)
      : id_(id), options_(o), out_(out) {}

  int64_t next_offset() const { return next_offset_; }
  void set_next_offset(int64_t offset) { next_offset_ = offset; }

  void add_group(std::span<const std::vector<uint8_t>> group) {
    if (!fits(group)) {
      finish();
      if (!fits(group)) {  // too big for any batch: Kafka would refuse it
        for (size_t i = 0; i < group.size(); ++i) add_group(group.subspan(i, 1));
        return;
      }
    }
    if (!builder_) start();
    for (const auto& v : group) {
      builder_->append(options_.write_time_ms, std::nullopt, protocol::bytes_view(v.data(), v.size()));
      batch_bytes_ += data_record_bytes(next_offset_ - batch_base_, v.size());
      ++next_offset_;
    }
  }

  void finish() {
    if (!builder_) return;
    builder_->finish_into(out_);
    builder_.reset();
  }

 private:
  void start() {
    protocol::record_batch_options o;
    o.base_offset = next_offset_;
    o.partition_leader_epoch = id_.leader_epoch.value;
    builder_.emplace(o);
    batch_base_ = next_offset_;
    batch_bytes_ = protocol::batch_layout::header_bytes;
  }

  // Whether the group fits in the open batch (or in a new one when none is
  // open). A single record always fits an empty batch.
  bool fits(std::span<const std::vector<uint8_t>> group) const {
    const int64_t base = builder_ ? batch_base_ : next_offset_;
    size_t bytes = builder_ ? batch_bytes_ : protocol::batch_layout::header_bytes;
    int64_t offset = next_offset_;
    for (const auto& v : group) bytes += data_record_bytes(offset++ - base, v.size());
    if (bytes <= options_.max_batch_bytes) return true;
    return !builder_ && group.size() == 1;
  }

  const snapshot_id& id_;
  const snapshot_write_options& options_;
  std::vector<uint8_t>& out_;
  std::optional<protocol::record_batch_builder> builder_;
  int64_t next_offset_ = 0;
  int64_t batch_base_ = 0;
  size_t batch_bytes_ = 0;
};

}  // namespace

std::vector<uint8_t> encode_snapshot(snapshot_id id, std::span<const std::vector<uint8_t>> record_values,
                                     const snapshot_write_options& options) {
  assert(options.records_per_append > 0);
  std::vector<uint8_t> out;
  protocol::msg::snapshot_header_record header;
  header.version = 0;
  header.last_contained_log_timestamp = options.last_contained_log_timestamp_ms;
  append_control_batch(out, 0, id, options.write_time_ms, control_record_type::snapshot_header,
                       control_value(header));

  batch_cutter cutter(id, options, out);
  cutter.set_next_offset(1);
  for (size_t i = 0; i < record_values.size(); i += options.records_per_append) {
    cutter.add_group(record_values.subspan(i, std::min(options.records_per_append, record_values.size() - i)));
  }
  cutter.finish();

  protocol::msg::snapshot_footer_record footer;
  footer.version = 0;
  append_control_batch(out, cutter.next_offset(), id, options.write_time_ms, control_record_type::snapshot_footer,
                       control_value(footer));
  return out;
}

namespace {

// Reads the control records of one control batch into *out; false with
// *error set on anything a snapshot may not hold.
struct control_state {
  bool header_seen = false;
  bool footer_seen = false;
};

std::string at(int64_t offset) { return " at offset " + std::to_string(offset); }

bool read_control_record(const protocol::record_view& r, bool first_batch, bool first_record, control_state& state,
                         decoded_snapshot& out) {
  auto key = protocol::parse_control_key(r);
  if (!key) {
    out.error = "control record without a key" + at(r.offset);
    return false;
  }
  auto value = r.value.value_or(protocol::bytes_view());
  protocol::reader reader(value);
  switch (static_cast<control_record_type>(key->type)) {
    case control_record_type::snapshot_header: {
      if (!first_batch || !first_record) {
        out.error = "SnapshotHeaderRecord" + at(r.offset) + " is not the first record";
        return false;
      }
      protocol::msg::snapshot_header_record h;
      h.decode(reader, 0);
      if (!reader.ok() || reader.remaining() != 0) {
        out.error = "malformed SnapshotHeaderRecord";
        return false;
      }
      out.last_contained_log_timestamp_ms = h.last_contained_log_timestamp;
      state.header_seen = true;
      return true;
    }
    case control_record_type::snapshot_footer: {
      protocol::msg::snapshot_footer_record f;
      f.decode(reader, 0);
      if (!reader.ok() || reader.remaining() != 0) {
        out.error = "malformed SnapshotFooterRecord" + at(r.offset);
        return false;
      }
      state.footer_seen = true;
      return true;
    }
    case control_record_type::kraft_version:
    case control_record_type::kraft_voters: {
      if (!first_batch) {
        out.error = "KRaft control record" + at(r.offset) + " outside the header batch";
        return false;
      }
      if (static_cast<control_record_type>(key->type) == control_record_type::kraft_voters) {
        out.voters_record.emplace(value.begin(), value.end());
        return true;
      }
      protocol::msg::k_raft_version_record k;
      k.decode(reader, 0);
      if (!reader.ok() || reader.remaining() != 0) {
        out.error = "malformed KRaftVersionRecord";
        return false;
      }
      out.kraft_version = k.k_raft_version;
      return true;
    }
    default:
      out.error = "control record of type " + std::to_string(key->type) + at(r.offset) + " in a snapshot";
      return false;
  }
}

// Checks one batch's framing and offsets and reads its records.
bool read_batch(const protocol::record_batch_view& batch, int64_t expected_base, bool first_batch,
                control_state& state, decoded_snapshot& out) {
  if (auto e = batch.validate(); e != protocol::batch_error::none) {
    out.error = "corrupt batch" + at(batch.base_offset()) + " (" + std::string(protocol::batch_error_name(e)) + ")";
    return false;
  }
  if (batch.base_offset() != expected_base) {
    out.error = "batch at offset " + std::to_string(batch.base_offset()) + " where " +
                std::to_string(expected_base) + " was expected";
    return false;
  }
  if (first_batch) {
    out.leader_epoch = epoch(batch.partition_leader_epoch());
  } else if (batch.partition_leader_epoch() != out.leader_epoch.value) {
    out.error = "batch" + at(batch.base_offset()) + " has epoch " + std::to_string(batch.partition_leader_epoch()) +
                ", not " + std::to_string(out.leader_epoch.value);
    return false;
  }
  if (first_batch && !batch.is_control()) {
    out.error = "the first batch is not a control batch";
    return false;
  }
  std::vector<uint8_t> scratch;
  protocol::record_iterator it;
  if (auto e = batch.open_records(scratch, 64u << 20, it); e != protocol::batch_error::none) {
    out.error = "cannot read the records" + at(batch.base_offset()) + " (" +
                std::string(protocol::batch_error_name(e)) + ")";
    return false;
  }
  protocol::record_view r;
  bool first_record = true;
  while (it.next(r)) {
    if (state.footer_seen) {
      out.error = "record" + at(r.offset) + " after the SnapshotFooterRecord";
      return false;
    }
    if (batch.is_control()) {
      if (!read_control_record(r, first_batch, first_record, state, out)) return false;
    } else {
      if (!r.value) {
        out.error = "record with a null value" + at(r.offset);
        return false;
      }
      out.records.emplace_back(r.value->begin(), r.value->end());
    }
    first_record = false;
  }
  if (it.error() != protocol::batch_error::none) {
    out.error = "bad record" + at(batch.base_offset()) + " (" + std::string(protocol::batch_error_name(it.error())) + ")";
    return false;
  }
  if (first_batch && !state.header_seen) {
    out.error = "the first batch does not start with a SnapshotHeaderRecord";
    return false;
  }
  return true;
}

}  // namespace

decoded_snapshot decode_snapshot(protocol::bytes_view bytes) {
  decoded_snapshot out;
  protocol::record_batch_walker walker(bytes);
  protocol::record_batch_view batch;
  control_state state;
  int64_t next = 0;
  bool first = true;
  while (walker.next(batch)) {
    if (state.footer_seen) {
      out.error = "batch" + at(batch.base_offset()) + " after the SnapshotFooterRecord";
      break;
    }
    if (!read_batch(batch, next, first, state, out)) break;
    next = batch.next_offset();
    first = false;
  }
  if (out.ok()) {
    if (walker.error() != protocol::batch_error::none) {
      out.error = "bad batch framing after offset " + std::to_string(next) + " (" +
                  std::string(protocol::batch_error_name(walker.error())) + ")";
    } else if (walker.partial_tail_bytes() != 0) {
      out.error = "truncated: " + std::to_string(walker.partial_tail_bytes()) + " bytes of an incomplete batch at the end";
    } else if (first) {
      out.error = "no batches";
    } else if (!state.footer_seen) {
      out.error = "no SnapshotFooterRecord at the end";
    }
  }
  if (!out.ok()) {
    out.records.clear();
    out.kraft_version.reset();
    out.voters_record.reset();
  }
  return out;
}

}  // namespace hw::controller::raft
