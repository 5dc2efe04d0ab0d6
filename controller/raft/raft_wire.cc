#include "controller/raft/raft_wire.h"

#include <limits>

#include "controller/raft/metadata_log.h"
#include "controller/raft/raft_batches.h"

namespace hw::controller::raft {
namespace {

using protocol::error_code;

const std::string& topic_name() {
  static const std::string name(metadata_topic_name);
  return name;
}

// Kafka accepts a request without a cluster id (older senders).
bool cluster_matches(const std::optional<std::string>& sent, const std::string& ours) {
  return !sent || *sent == ours;
}

template <typename Topics>
const auto* only_partition(const Topics& topics) {
  using partition_t = std::remove_reference_t<decltype(topics.front().partitions.front())>;
  const partition_t* found = nullptr;
  if (topics.size() != 1 || topics.front().partitions.size() != 1) return found;
  return &topics.front().partitions.front();
}

// The one partition of a Vote, BeginQuorumEpoch or EndQuorumEpoch request,
// or the error to answer with.
template <typename W>
auto quorum_request_partition(const W& w, const std::string& cluster_id, error_code* error)
    -> decltype(only_partition(w.topics)) {
  *error = error_code::none;
  if (!cluster_matches(w.cluster_id, cluster_id)) {
    *error = error_code::inconsistent_cluster_id;
    return nullptr;
  }
  const auto* p = only_partition(w.topics);
  if (!p || w.topics.front().topic_name != topic_name() || p->partition_index != 0) {
    *error = error_code::invalid_request;
    return nullptr;
  }
  return p;
}

leader_and_epoch leader_of(int32_t id, int32_t e) { return {node_id(id), epoch(e)}; }

}  // namespace

protocol::uuid metadata_topic_id() {
  protocol::uuid id;
  id.bytes[15] = 1;
  return id;
}

// --- requests out ---------------------------------------------------------------

msg::vote_request to_wire(const vote_request& m, const std::string& cluster_id, node_id to) {
  msg::vote_request w;
  w.cluster_id = cluster_id;
  w.voter_id = to.value;
  auto& t = w.topics.emplace_back();
  t.topic_name = topic_name();
  auto& p = t.partitions.emplace_back();
  p.partition_index = 0;
  p.replica_epoch = m.replica_epoch.value;
  p.replica_id = m.replica_id.value;
  p.last_offset_epoch = m.last_offset_epoch.value;
  p.last_offset = m.last_offset.value;
  p.pre_vote = m.pre_vote;
  return w;
}

msg::begin_quorum_epoch_request to_wire(const begin_quorum_epoch_request& m, const std::string& cluster_id,
                                        node_id to) {
  msg::begin_quorum_epoch_request w;
  w.cluster_id = cluster_id;
  w.voter_id = to.value;
  auto& t = w.topics.emplace_back();
  t.topic_name = topic_name();
  auto& p = t.partitions.emplace_back();
  p.partition_index = 0;
  p.leader_id = m.leader_id.value;
  p.leader_epoch = m.leader_epoch.value;
  return w;
}

msg::end_quorum_epoch_request to_wire(const end_quorum_epoch_request& m, const std::string& cluster_id) {
  msg::end_quorum_epoch_request w;
  w.cluster_id = cluster_id;
  auto& t = w.topics.emplace_back();
  t.topic_name = topic_name();
  auto& p = t.partitions.emplace_back();
  p.partition_index = 0;
  p.leader_id = m.leader_id.value;
  p.leader_epoch = m.leader_epoch.value;
  for (node_id s : m.preferred_successors) {
    p.preferred_successors.push_back(s.value);  // v0
    msg::end_quorum_epoch_request::replica_info c;
    c.candidate_id = s.value;  // v1+
    p.preferred_candidates.push_back(c);
  }
  return w;
}

msg::fetch_request to_wire(const fetch_request& m, const std::string& cluster_id) {
  msg::fetch_request w;
  w.cluster_id = cluster_id;
  w.replica_id = m.replica_id.value;  // below v15
  w.replica_state.replica_id = m.replica_id.value;
  w.max_wait_ms = static_cast<int32_t>(m.max_wait_ms);
  w.min_bytes = 0;
  auto& t = w.topics.emplace_back();
  t.topic = topic_name();
  t.topic_id = metadata_topic_id();
  auto& p = t.partitions.emplace_back();
  p.partition = 0;
  p.current_leader_epoch = m.current_leader_epoch.value;
  p.fetch_offset = m.fetch_offset.value;
  p.last_fetched_epoch = m.last_fetched_epoch.value;
  p.partition_max_bytes = w.max_bytes;
  if (m.high_watermark) p.high_watermark = m.high_watermark->value;  // else the field's "not supported"
  p.replica_directory_id = m.replica_directory_id;  // v17+
  return w;
}

msg::fetch_snapshot_request to_wire(const fetch_snapshot_request& m, const std::string& cluster_id) {
  msg::fetch_snapshot_request w;
  w.cluster_id = cluster_id;
  w.replica_id = m.replica_id.value;
  w.max_bytes = m.max_bytes;
  auto& t = w.topics.emplace_back();
  t.name = topic_name();
  auto& p = t.partitions.emplace_back();
  p.partition = 0;
  p.current_leader_epoch = m.current_leader_epoch.value;
  p.snapshot_id.end_offset = m.snapshot.end_offset.value;
  p.snapshot_id.epoch = m.snapshot.leader_epoch.value;
  p.position = m.position;
  return w;
}

// --- requests in ----------------------------------------------------------------

error_code from_wire(const msg::vote_request& w, const std::string& cluster_id, vote_request* out) {
  error_code e;
  const auto* p = quorum_request_partition(w, cluster_id, &e);
  if (!p) return e;
  out->replica_epoch = epoch(p->replica_epoch);
  out->replica_id = node_id(p->replica_id);
  out->last_offset_epoch = epoch(p->last_offset_epoch);
  out->last_offset = offset(p->last_offset);
  out->pre_vote = p->pre_vote;
  return error_code::none;
}

error_code from_wire(const msg::begin_quorum_epoch_request& w, const std::string& cluster_id,
                     begin_quorum_epoch_request* out) {
  error_code e;
  const auto* p = quorum_request_partition(w, cluster_id, &e);
  if (!p) return e;
  out->leader_id = node_id(p->leader_id);
  out->leader_epoch = epoch(p->leader_epoch);
  return error_code::none;
}

error_code from_wire(const msg::end_quorum_epoch_request& w, const std::string& cluster_id,
                     end_quorum_epoch_request* out) {
  error_code e;
  const auto* p = quorum_request_partition(w, cluster_id, &e);
  if (!p) return e;
  out->leader_id = node_id(p->leader_id);
  out->leader_epoch = epoch(p->leader_epoch);
  out->preferred_successors.clear();
  // v1 names candidates, v0 successors: whichever the sender filled.
  if (!p->preferred_candidates.empty()) {
    for (const auto& c : p->preferred_candidates) out->preferred_successors.push_back(node_id(c.candidate_id));
  } else {
    for (int32_t s : p->preferred_successors) out->preferred_successors.push_back(node_id(s));
  }
  return error_code::none;
}

error_code from_wire(const msg::fetch_request& w, const std::string& cluster_id, fetch_request* out) {
  if (!cluster_matches(w.cluster_id, cluster_id)) return error_code::inconsistent_cluster_id;
  const auto* p = only_partition(w.topics);
  if (!p || p->partition != 0) return error_code::invalid_request;
  const auto& t = w.topics.front();
  const bool by_id = !t.topic_id.is_zero();
  if (by_id ? t.topic_id != metadata_topic_id() : t.topic != topic_name()) return error_code::invalid_request;
  out->replica_id = node_id(w.replica_state.replica_id >= 0 ? w.replica_state.replica_id : w.replica_id);
  out->current_leader_epoch = epoch(p->current_leader_epoch);
  out->fetch_offset = offset(p->fetch_offset);
  out->last_fetched_epoch = epoch(p->last_fetched_epoch);
  out->max_wait_ms = w.max_wait_ms;
  if (p->high_watermark != std::numeric_limits<int64_t>::max()) out->high_watermark = offset(p->high_watermark);
  out->replica_directory_id = p->replica_directory_id;
  return error_code::none;
}

error_code from_wire(const msg::fetch_snapshot_request& w, const std::string& cluster_id,
                     fetch_snapshot_request* out) {
  if (!cluster_matches(w.cluster_id, cluster_id)) return error_code::inconsistent_cluster_id;
  const auto* p = only_partition(w.topics);
  if (!p || w.topics.front().name != topic_name() || p->partition != 0) return error_code::invalid_request;
  out->replica_id = node_id(w.replica_id);
  out->current_leader_epoch = epoch(p->current_leader_epoch);
  out->snapshot = {offset(p->snapshot_id.end_offset), epoch(p->snapshot_id.epoch)};
  out->position = p->position;
  out->max_bytes = w.max_bytes;
  return error_code::none;
}

// --- answers out ----------------------------------------------------------------

namespace {

// Vote, BeginQuorumEpoch and EndQuorumEpoch answers share their shape: the
// partition's error and the responder's view of the leader.
template <typename W, typename M>
W leader_answer(const M& m) {
  W w;
  auto& t = w.topics.emplace_back();
  t.topic_name = topic_name();
  auto& p = t.partitions.emplace_back();
  p.error_code = static_cast<int16_t>(m.error);
  p.leader_id = m.current.leader_id.value;
  p.leader_epoch = m.current.leader_epoch.value;
  return w;
}

template <typename W>
W error_answer(error_code e) {
  W w;
  w.error_code = static_cast<int16_t>(e);
  return w;
}

}  // namespace

msg::vote_response to_wire(const vote_response& m) {
  auto w = leader_answer<msg::vote_response>(m);
  w.topics.front().partitions.front().vote_granted = m.vote_granted;
  return w;
}

msg::begin_quorum_epoch_response to_wire(const begin_quorum_epoch_response& m) {
  return leader_answer<msg::begin_quorum_epoch_response>(m);
}

msg::end_quorum_epoch_response to_wire(const end_quorum_epoch_response& m) {
  return leader_answer<msg::end_quorum_epoch_response>(m);
}

msg::fetch_response to_wire(const fetch_response& m, std::vector<uint8_t>& records_storage) {
  msg::fetch_response w;
  auto& t = w.responses.emplace_back();
  t.topic = topic_name();
  t.topic_id = metadata_topic_id();
  auto& p = t.partitions.emplace_back();
  p.error_code = static_cast<int16_t>(m.error);
  p.high_watermark = m.high_watermark.value;
  p.log_start_offset = m.log_start_offset.value;
  p.current_leader.leader_id = m.current.leader_id.value;
  p.current_leader.leader_epoch = m.current.leader_epoch.value;
  if (m.diverging_epoch) {
    p.diverging_epoch.epoch = m.diverging_epoch->leader_epoch.value;
    p.diverging_epoch.end_offset = m.diverging_epoch->end_offset.value;
  }
  if (m.snapshot) {
    p.snapshot_id.end_offset = m.snapshot->end_offset.value;
    p.snapshot_id.epoch = m.snapshot->leader_epoch.value;
  }
  p.aborted_transactions.reset();
  records_storage = encode_entries(m.entries);
  p.records = protocol::records_view(protocol::bytes_view(records_storage.data(), records_storage.size()));
  return w;
}

msg::fetch_snapshot_response to_wire(const fetch_snapshot_response& m) {
  msg::fetch_snapshot_response w;
  auto& t = w.topics.emplace_back();
  t.name = topic_name();
  auto& p = t.partitions.emplace_back();
  p.error_code = static_cast<int16_t>(m.error);
  p.snapshot_id.end_offset = m.snapshot.end_offset.value;
  p.snapshot_id.epoch = m.snapshot.leader_epoch.value;
  p.current_leader.leader_id = m.current.leader_id.value;
  p.current_leader.leader_epoch = m.current.leader_epoch.value;
  p.size = m.size;
  p.position = m.position;
  p.unaligned_records = protocol::records_view(protocol::bytes_view(m.bytes.data(), m.bytes.size()));
  return w;
}

msg::vote_response vote_error(error_code e) { return error_answer<msg::vote_response>(e); }
msg::begin_quorum_epoch_response begin_quorum_epoch_error(error_code e) {
  return error_answer<msg::begin_quorum_epoch_response>(e);
}
msg::end_quorum_epoch_response end_quorum_epoch_error(error_code e) {
  return error_answer<msg::end_quorum_epoch_response>(e);
}
msg::fetch_response fetch_error(error_code e) { return error_answer<msg::fetch_response>(e); }
msg::fetch_snapshot_response fetch_snapshot_error(error_code e) {
  return error_answer<msg::fetch_snapshot_response>(e);
}

// --- answers in -----------------------------------------------------------------

namespace {

// The answer's error: top-level first, then the partition's; a missing
// partition is a malformed answer.
template <typename W>
const auto* answer_partition(const W& w, error_code* error) {
  *error = static_cast<error_code>(w.error_code);
  const auto* p = only_partition(w.topics);
  if (*error == error_code::none) {
    if (!p) *error = error_code::corrupt_message;
    else *error = static_cast<error_code>(p->error_code);
  }
  return p;
}

}  // namespace

void from_wire(const msg::vote_response& w, uint64_t correlation, vote_response* out) {
  out->correlation = correlation;
  const auto* p = answer_partition(w, &out->error);
  if (!p) return;
  out->current = leader_of(p->leader_id, p->leader_epoch);
  out->vote_granted = out->error == error_code::none && p->vote_granted;
}

void from_wire(const msg::begin_quorum_epoch_response& w, uint64_t correlation, begin_quorum_epoch_response* out) {
  out->correlation = correlation;
  const auto* p = answer_partition(w, &out->error);
  if (p) out->current = leader_of(p->leader_id, p->leader_epoch);
}

void from_wire(const msg::end_quorum_epoch_response& w, uint64_t correlation, end_quorum_epoch_response* out) {
  out->correlation = correlation;
  const auto* p = answer_partition(w, &out->error);
  if (p) out->current = leader_of(p->leader_id, p->leader_epoch);
}

void from_wire(const msg::fetch_response& w, uint64_t correlation, fetch_response* out, std::string* why) {
  out->correlation = correlation;
  out->error = static_cast<error_code>(w.error_code);
  const msg::fetch_response::partition_data* p = nullptr;
  if (w.responses.size() == 1 && w.responses.front().partitions.size() == 1) p = &w.responses.front().partitions.front();
  if (out->error == error_code::none && !p) {
    out->error = error_code::corrupt_message;
    *why = "a fetch answer without the metadata partition";
  }
  if (!p) return;
  if (out->error == error_code::none) out->error = static_cast<error_code>(p->error_code);
  out->current = leader_of(p->current_leader.leader_id, p->current_leader.leader_epoch);
  out->high_watermark = offset(p->high_watermark);
  out->log_start_offset = offset(p->log_start_offset);
  if (p->diverging_epoch.epoch >= 0 && p->diverging_epoch.end_offset >= 0)
    out->diverging_epoch = epoch_end_offset{epoch(p->diverging_epoch.epoch), offset(p->diverging_epoch.end_offset)};
  if (p->snapshot_id.epoch >= 0 && p->snapshot_id.end_offset >= 0)
    out->snapshot = snapshot_id{offset(p->snapshot_id.end_offset), epoch(p->snapshot_id.epoch)};
  if (!p->records.null && p->records.size > 0 &&
      !decode_entries(p->records.bytes(), &out->entries, why)) {
    out->entries.clear();
    out->error = error_code::corrupt_message;
  }
}

void from_wire(const msg::fetch_snapshot_response& w, uint64_t correlation, fetch_snapshot_response* out) {
  out->correlation = correlation;
  out->error = static_cast<error_code>(w.error_code);
  const msg::fetch_snapshot_response::partition_snapshot* p = nullptr;
  if (w.topics.size() == 1 && w.topics.front().partitions.size() == 1) p = &w.topics.front().partitions.front();
  if (out->error == error_code::none && !p) out->error = error_code::corrupt_message;
  if (!p) return;
  if (out->error == error_code::none) out->error = static_cast<error_code>(p->error_code);
  out->current = leader_of(p->current_leader.leader_id, p->current_leader.leader_epoch);
  out->snapshot = {offset(p->snapshot_id.end_offset), epoch(p->snapshot_id.epoch)};
  out->size = p->size;
  out->position = p->position;
  auto bytes = p->unaligned_records.bytes();
  out->bytes.assign(bytes.begin(), bytes.end());
}

}  // namespace hw::controller::raft
