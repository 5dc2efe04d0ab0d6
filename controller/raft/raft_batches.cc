#include "controller/raft/raft_batches.h"

#include <array>

#include "protocol/messages/kraft_control_records.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/writer.h"

namespace hw::controller::raft {
namespace {

// The control batches a log entry can be: LeaderChange records only, or a
// VotersRecord after a KRaftVersionRecord (the upgrade to kraft.version 1)
// after a LeaderChange (the start of an epoch whose voters are not yet in
// the log), or alone (a voter added or removed).
bool control_types_known(const std::vector<int16_t>& types, bool voters) {
  using protocol::control_record_type;
  auto is = [](int16_t t, control_record_type want) { return t == static_cast<int16_t>(want); };
  if (!voters) {
    for (int16_t t : types)
      if (!is(t, control_record_type::leader_change)) return false;
    return true;
  }
  const size_t n = types.size();
  if (n == 0 || n > 3 || !is(types[n - 1], control_record_type::kraft_voters)) return false;
  if (n >= 2 && !is(types[n - 2], control_record_type::kraft_version)) return false;
  return n < 3 || is(types[0], control_record_type::leader_change);
}

}  // namespace

void encode_entry(const log_entry& e, std::vector<uint8_t>& out) {
  protocol::record_batch_options o;
  o.base_offset = e.base_offset.value;
  o.partition_leader_epoch = e.leader_epoch.value;
  o.control = e.control;
  protocol::record_batch_builder builder(o);
  using protocol::control_record_type;
  for (size_t i = 0; i < e.records.size(); ++i) {
    const auto& r = e.records[i];
    std::array<uint8_t, 4> control_key{};
    std::optional<protocol::bytes_view> key;
    if (e.control) {
      // A KRaftVoters entry: its last record is the VotersRecord, one before it a
      // KRaftVersionRecord, and one before that the LeaderChange of an epoch's start.
      const size_t from_end = e.records.size() - i;
      const control_record_type type = !e.voters || from_end == 3 ? control_record_type::leader_change
                                       : from_end == 1            ? control_record_type::kraft_voters
                                                                  : control_record_type::kraft_version;
      control_key = protocol::encode_control_key(type);
      key = protocol::bytes_view(control_key.data(), control_key.size());
    }
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
    std::vector<int16_t> types;
    while (it.next(r)) {
      if (r.offset != expected++) {
        *error = "records of the batch at offset " + std::to_string(batch.base_offset()) + " are not consecutive";
        return false;
      }
      auto v = r.value.value_or(protocol::bytes_view());
      if (entry.control) {
        auto key = protocol::parse_control_key(r);
        types.push_back(key ? key->type : int16_t{-1});
        if (key && key->type == static_cast<int16_t>(protocol::control_record_type::kraft_voters)) {
          entry.voters = decode_voters_record(v);
          if (!entry.voters) {
            *error = "the VotersRecord at offset " + std::to_string(r.offset) + " does not decode";
            return false;
          }
        }
      }
      entry.records.emplace_back(v.begin(), v.end());
    }
    if (entry.control && !control_types_known(types, entry.voters.has_value())) {
      *error = "control batch at offset " + std::to_string(batch.base_offset()) +
               " is neither a LeaderChange nor a KRaftVoters batch";
      return false;
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

std::vector<uint8_t> kraft_version_record(int16_t level) {
  protocol::msg::k_raft_version_record record;
  record.version = 0;
  record.k_raft_version = level;
  std::vector<uint8_t> value;
  protocol::writer w(value);
  record.encode(w, 0);
  return value;
}

std::vector<uint8_t> voters_record(const voter_set& voters) {
  protocol::msg::voters_record record;
  record.version = 0;
  for (const auto& v : voters.voters) {
    protocol::msg::voters_record::voter out;
    out.voter_id = v.id.value;
    out.voter_directory_id = v.directory_id;
    for (const auto& e : v.endpoints) {
      protocol::msg::voters_record::endpoint wire;
      wire.name = e.name;
      wire.host = e.host;
      wire.port = e.port;
      out.endpoints.push_back(std::move(wire));
    }
    out.k_raft_version_feature.min_supported_version = v.min_kraft_version;
    out.k_raft_version_feature.max_supported_version = v.max_kraft_version;
    record.voters.push_back(std::move(out));
  }
  std::vector<uint8_t> value;
  protocol::writer w(value);
  record.encode(w, 0);
  return value;
}

std::optional<voter_set> decode_voters_record(protocol::bytes_view value) {
  protocol::msg::voters_record record;
  protocol::reader r(value);
  record.decode(r, 0);
  if (!r.ok()) return std::nullopt;
  voter_set out;
  for (const auto& in : record.voters) {
    voter v;
    v.id = node_id(in.voter_id);
    v.directory_id = in.voter_directory_id;
    for (const auto& e : in.endpoints) v.endpoints.push_back({e.name, e.host, e.port});
    v.min_kraft_version = in.k_raft_version_feature.min_supported_version;
    v.max_kraft_version = in.k_raft_version_feature.max_supported_version;
    if (out.contains(v.id)) return std::nullopt;  // one voter per id
    out = out.with(std::move(v));
  }
  return out;
}

}  // namespace hw::controller::raft
