// snapshot_file: the bytes of a snapshot (encode_snapshot, decode_snapshot).

#include "controller/raft/snapshot_file.h"
#include "protocol/messages/kraft_control_records.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"

namespace hw::controller::raft {

std::vector<uint8_t> encode_snapshot(snapshot_id id, std::span<const std::vector<uint8_t>> record_values,
                                     const snapshot_write_options& options) {
  return storage::encode_snapshot_batches(id.leader_epoch.value, record_values, options);
}

namespace {

using protocol::control_record_type;

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
