#include "controller/raft/raft_batches.h"

#include "protocol/messages/kraft_control_records.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/writer.h"

namespace hw::controller::raft {

void encode_entry(const log_entry& e, std::vector<uint8_t>& out) {
  protocol::record_batch_options o;
  o.base_offset = e.base_offset.value;
  o.partition_leader_epoch = e.leader_epoch.value;
  o.control = e.control;
  protocol::record_batch_builder builder(o);
  const auto control_key = protocol::encode_control_key(protocol::control_record_type::leader_change);
  for (const auto& r : e.records) {
    std::optional<protocol::bytes_view> key;
    if (e.control) key = protocol::bytes_view(control_key.data(), control_key.size());
    builder.append(e.append_time_ms, key, protocol::bytes_view(r.data(), r.size()));
  }
  builder.finish_into(out);
}

std::vector<uint8_t> encode_entries(std::span<const log_entry> entries) {
  std::vector<uint8_t> out;
  for (const auto& e : entries) encode_entry(e, out);
  return out;
}

bool decode_entries(protocol::bytes_view bytes, std::vector<log_entry>* out, std::string* error) {
  protocol::record_batch_walker walker(bytes);
  protocol::record_batch_view batch;
  std::vector<uint8_t> scratch;
  int64_t next = -1;
  while (walker.next(batch)) {
    if (auto e = batch.validate(); e != protocol::batch_error::none) {
      *error = "corrupt batch at offset " + std::to_string(batch.base_offset());
      return false;
    }
    if (next >= 0 && batch.base_offset() < next) {
      *error = "batch at offset " + std::to_string(batch.base_offset()) + " goes back from " + std::to_string(next);
      return false;
    }
    protocol::record_iterator it;
    if (batch.open_records(scratch, 64u << 20, it) != protocol::batch_error::none) {
      *error = "cannot read the records of the batch at offset " + std::to_string(batch.base_offset());
      return false;
    }
    log_entry entry;
    entry.base_offset = offset(batch.base_offset());
    entry.leader_epoch = epoch(batch.partition_leader_epoch());
    entry.control = batch.is_control();
    entry.append_time_ms = batch.base_timestamp();
    protocol::record_view r;
    int64_t expected = batch.base_offset();
    while (it.next(r)) {
      if (r.offset != expected++) {
        *error = "records of the batch at offset " + std::to_string(batch.base_offset()) + " are not consecutive";
        return false;
      }
      if (entry.control) {
        auto key = protocol::parse_control_key(r);
        if (!key || key->type != static_cast<int16_t>(protocol::control_record_type::leader_change)) {
          *error = "control batch at offset " + std::to_string(batch.base_offset()) + " is not a LeaderChange";
          return false;
        }
      }
      auto v = r.value.value_or(protocol::bytes_view());
      entry.records.emplace_back(v.begin(), v.end());
    }
    if (it.error() != protocol::batch_error::none || entry.records.empty() ||
        entry.end_offset().value != batch.next_offset()) {
      *error = "the batch at offset " + std::to_string(batch.base_offset()) + " does not hold its offsets";
      return false;
    }
    next = batch.next_offset();
    out->push_back(std::move(entry));
  }
  if (walker.error() != protocol::batch_error::none) {
    *error = "bad batch framing";
    return false;
  }
  return true;
}

std::vector<uint8_t> leader_change_record(node_id leader, std::span<const node_id> voters) {
  protocol::msg::leader_change_message message;
  message.version = 0;
  message.leader_id = leader.value;
  for (node_id v : voters) {
    protocol::msg::leader_change_message::voter voter;
    voter.voter_id = v.value;
    message.voters.push_back(voter);
    message.granting_voters.push_back(voter);
  }
  std::vector<uint8_t> value;
  protocol::writer w(value);
  message.encode(w, 0);
  return value;
}

}  // namespace hw::controller::raft
