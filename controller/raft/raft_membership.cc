// raft_membership: adding and removing voters at the leader.
#include "controller/raft/raft_membership.h"

#include <algorithm>

namespace hw::controller::raft {

using protocol::error_code;

namespace {

// VoterSet.voterKeys() as Kafka prints it.
std::string keys_string(const voter_set& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.voters.size(); ++i)
    out += (i ? ", " : "") + replica_key_string(s.voters[i].id, s.voters[i].directory_id);
  return out + "]";
}

voter_change refused(error_code e, std::string message) { return {e, std::move(message), offset{-1}}; }

// How long an observer's last fetch may be past for it to count as caught up.
constexpr int64_t k_caught_up_window_ms = 3'600'000;

}  // namespace

std::string replica_key_string(node_id id, const protocol::uuid& directory) {
  return "ReplicaKey(id=" + std::to_string(id.value) +
         ", directoryId=" + (directory.is_zero() ? std::string("<undefined>") : directory.to_string()) + ")";
}

bool raft_membership::pending() const {
  if (pending_until_ms_ < 0 || c_.now_ms >= pending_until_ms_ || pending_epoch_ != c_.state.current_epoch) return false;
  return pending_entry_ < offset{0} || c_.high_watermark <= pending_entry_;
}

void raft_membership::start_pending(offset entry) {
  pending_until_ms_ = c_.now_ms + c_.options.request_timeout_ms;
  pending_epoch_ = c_.state.current_epoch;
  pending_entry_ = entry;
}

voter_change raft_membership::leader_refusal() {
  if (c_.current_role != role::leader) return refused(error_code::not_leader_or_follower, "");
  if (pending())
    return refused(error_code::request_timed_out, "Request timed out waiting for leader to handle previous voter change request");
  pending_until_ms_ = -1;
  if (c_.high_watermark <= c_.leader.epoch_start_offset())
    return refused(error_code::request_timed_out,
                   "Request timed out waiting for leader to establish HWM and fence previous voter changes");
  return {};
}

voter_change raft_membership::uncommitted_refusal() const {
  if (c_.voters.latest_offset() < c_.high_watermark) return {};
  return refused(error_code::request_timed_out,
                 "Request timed out waiting for voters to commit the latest voter change at Optional[" +
                     std::to_string(c_.voters.latest_offset().value) + "] with HWM " +
                     std::to_string(c_.high_watermark.value));
}

voter_change raft_membership::common_refusal(const char* verb) {
  if (voter_change r = leader_refusal(); r.error != error_code::none) return r;
  if (!c_.voters.is_dynamic())
    return refused(error_code::unsupported_version,
                   std::string("Cluster doesn't support ") + verb + " voter because the kraft.version feature is 0");
  return uncommitted_refusal();
}

voter_change raft_membership::begin_add(const voter& v) {
  voter_change r = common_refusal("adding");
  if (r.error != error_code::none) return r;
  const voter_set& voters = c_.voters.latest();
  if (voters.contains(v.id))
    return refused(error_code::duplicate_voter, "The voter id for " + replica_key_string(v.id, v.directory_id) +
                                                    " is already part of the set of voters " + keys_string(voters) + ".");
  // One timer, from the new voter's ApiVersions on, covers the whole add.
  start_pending(offset{-1});
  return {};
}

voter_change raft_membership::finish_add(const voter& v) {
  if (c_.current_role != role::leader) return refused(error_code::not_leader_or_follower, "");
  if (!pending()) return refused(error_code::request_timed_out, "The request timed out.");
  const int64_t until = pending_until_ms_;
  pending_until_ms_ = -1;  // a refusal below ends the operation; an entry waits out the same timer
  if (!c_.leader.caught_up(v.id, v.directory_id, c_.now_ms, k_caught_up_window_ms))
    return refused(error_code::request_timed_out,
                   "Aborted add voter operation for " + replica_key_string(v.id, v.directory_id) +
                       " since it is lagging behind");
  const voter_set& voters = c_.voters.latest();
  if (voters.contains(v.id))
    return refused(error_code::invalid_request,
                   "Unable to add " + replica_key_string(v.id, v.directory_id) + " to the set of voters " +
                       keys_string(voters));
  voter_change r = append(voters.with(v));
  start_pending(r.entry);
  pending_until_ms_ = until;
  return r;
}

voter_change raft_membership::remove(node_id id, const protocol::uuid& directory) {
  voter_change r = common_refusal("removing");
  if (r.error != error_code::none) return r;
  const voter_set& voters = c_.voters.latest();
  // Only that voter (id and directory), and never the last one.
  const voter* found = voters.find(id);
  if (!found || found->directory_id != directory || voters.size() == 1)
    return refused(error_code::voter_not_found, "Cannot remove voter " + replica_key_string(id, directory) +
                                                    " from the set of voters " + keys_string(voters));
  r = append(voters.without(id));
  start_pending(r.entry);
  return r;
}

voter_change raft_membership::update(const voter& v, const std::string& default_listener) {
  // The same checks as the other changes (UpdateRaftVoter's answer has no
  // message to carry their texts).
  if (voter_change r = leader_refusal(); r.error != error_code::none) return r;
  if (c_.voters.is_dynamic())
    if (voter_change r = uncommitted_refusal(); r.error != error_code::none) return r;
  const int16_t finalized = c_.voters.is_dynamic() ? 1 : 0;
  if (v.min_kraft_version > finalized || v.max_kraft_version < finalized)
    return refused(error_code::invalid_request, "");
  if (std::none_of(v.endpoints.begin(), v.endpoints.end(),
                   [&](const voter_endpoint& e) { return e.name == default_listener; }))
    return refused(error_code::invalid_request, "");
  const voter_set& voters = c_.voters.latest();
  const voter* found = voters.find(v.id);
  if (!found || (c_.voters.is_dynamic() && found->directory_id != v.directory_id))
    return refused(error_code::voter_not_found, "");
  if (!c_.voters.is_dynamic() || *found == v) return {};
  return append(voters.without(v.id).with(v));
}

voter_change raft_membership::append(voter_set next) {
  std::vector<uint8_t> record;
  if (c_.options.voters_record) record = c_.options.voters_record(next);
  log_entry e{c_.log.end_offset(), c_.state.current_epoch, true, {std::move(record)}, c_.now_ms, std::move(next)};
  const offset at = e.end_offset() - 1;
  c_.pending.entries.push_back(e);
  if (c_.append(std::move(e))) t_.on_voters_changed();
  t_.leader_commit();  // a smaller set may already hold the entry (removing a voter that lags)
  return {error_code::none, "", at};
}

}  // namespace hw::controller::raft
