#include "broker/group/classic_group.h"

#include <cassert>

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

std::string_view state_name(group_state state) {
  switch (state) {
    case group_state::empty: return "Empty";
    case group_state::preparing_rebalance: return "PreparingRebalance";
    case group_state::completing_rebalance: return "CompletingRebalance";
    case group_state::stable: return "Stable";
    case group_state::dead: return "Dead";
  }
  return "Unknown";
}

classic_group::classic_group(std::string group_id, int64_t now_ms)
    : group_id_(std::move(group_id)), state_timestamp_ms_(now_ms) {}

void classic_group::restore(int32_t generation, std::optional<std::string> protocol_type,
                            std::optional<std::string> protocol_name,
                            std::optional<std::string> leader_id,
                            std::optional<int64_t> state_timestamp_ms, group_state state) {
  generation_ = generation;
  protocol_type_ = std::move(protocol_type);
  protocol_name_ = std::move(protocol_name);
  leader_id_ = std::move(leader_id);
  state_timestamp_ms_ = state_timestamp_ms;
  state_ = state;
  previous_state_ = state;
}

void classic_group::add(group_member member, std::optional<parked_request> join) {
  if (members_.empty()) protocol_type_ = member.protocol_type;
  assert(protocol_type_ && *protocol_type_ == member.protocol_type);
  if (!leader_id_) leader_id_ = member.member_id;
  members_.add(std::move(member), join);
}

void classic_group::remove(std::string_view member_id) {
  const bool was_leader = is_leader(member_id);
  members_.remove(member_id);
  if (was_leader) {
    leader_id_.reset();
    if (!members_.empty()) leader_id_ = members_.begin()->first;
  }
}

group_member& classic_group::replace_static_member(std::string_view instance_id,
                                                   std::string_view old_member_id,
                                                   std::string new_member_id,
                                                   std::vector<completion>& out) {
  const bool was_leader = is_leader(old_member_id);
  group_member& m = members_.replace_static(instance_id, old_member_id, std::move(new_member_id), out);
  if (was_leader) leader_id_ = m.member_id;
  return m;
}

bool classic_group::supports_protocols(std::string_view protocol_type,
                                       const std::vector<member_protocol>& protocols) const {
  if (in(group_state::empty)) return !protocol_type.empty() && !protocols.empty();
  if (!protocol_type_ || *protocol_type_ != protocol_type) return false;
  return members_.all_support_one_of(protocols);
}

bool classic_group::maybe_elect_joined_leader() {
  if (!leader_id_) return false;
  const group_member* leader = members_.find(*leader_id_);
  if (leader && leader->awaiting_join) return true;
  for (const auto& [id, m] : members_) {
    if (m.awaiting_join) {
      leader_id_ = id;
      return true;
    }
  }
  return false;
}

bool classic_group::can_rebalance() const {
  return in(group_state::stable) || in(group_state::completing_rebalance) || in(group_state::empty);
}

void classic_group::transition_to(group_state next, int64_t now_ms) {
  previous_state_ = state_;
  state_ = next;
  state_timestamp_ms_ = now_ms;
}

void classic_group::init_next_generation(int64_t now_ms) {
  ++generation_;
  if (!members_.empty()) {
    protocol_name_ = members_.select_protocol();
    refresh_subscribed_topics();
    transition_to(group_state::completing_rebalance, now_ms);
  } else {
    protocol_name_.reset();
    refresh_subscribed_topics();
    transition_to(group_state::empty, now_ms);
  }
  members_.clear_pending_sync();
}

bool classic_group::complete_join(group_member& member, msg::join_group_response response,
                                  std::vector<completion>& out) {
  auto join = members_.take_join(member);
  if (!join) return false;
  // JoinGroup v0-6 cannot carry a null protocol name.
  if (join->version < 7 && !response.protocol_name) response.protocol_name = "";
  out.push_back({join->token, std::move(response)});
  return true;
}

bool classic_group::complete_sync(group_member& member, msg::sync_group_response response,
                                  std::vector<completion>& out) {
  if (!member.awaiting_sync) return false;
  out.push_back({member.awaiting_sync->token, std::move(response)});
  member.awaiting_sync.reset();
  return true;
}

std::vector<msg::join_group_response::join_group_response_member> classic_group::join_members() const {
  std::vector<msg::join_group_response::join_group_response_member> out;
  out.reserve(members_.size());
  for (const auto& [id, m] : members_) {
    msg::join_group_response::join_group_response_member jm;
    jm.member_id = id;
    jm.group_instance_id = m.group_instance_id;
    if (protocol_name_) {
      if (const auto* md = m.metadata(*protocol_name_)) jm.metadata = *md;
    }
    out.push_back(std::move(jm));
  }
  return out;
}

void classic_group::refresh_subscribed_topics() {
  if (uses_consumer_protocol()) {
    subscribed_topics_ = members_.subscribed_topics(protocol_name_);
  } else {
    subscribed_topics_.reset();
  }
}

msg::group_metadata_value classic_group::record_value(const assignment_map* assignment) const {
  msg::group_metadata_value value;
  value.protocol_type = protocol_type_.value_or("");
  value.generation = generation_;
  value.protocol = protocol_name_;
  value.leader = leader_id_;
  value.current_state_timestamp = state_timestamp_ms_.value_or(-1);
  for (const auto& [id, m] : members_) {
    msg::group_metadata_value::member_metadata pm;
    pm.member_id = id;
    pm.group_instance_id = m.group_instance_id;
    pm.client_id = m.client_id;
    pm.client_host = m.client_host;
    pm.rebalance_timeout = m.rebalance_timeout_ms;
    pm.session_timeout = m.session_timeout_ms;
    // A stored member always speaks the selected protocol.
    const auto* md = protocol_name_ ? m.metadata(*protocol_name_) : nullptr;
    assert(md != nullptr);
    pm.subscription = *md;
    if (assignment) {
      auto it = assignment->find(id);
      if (it != assignment->end()) pm.assignment = it->second;
    } else {
      pm.assignment = m.assignment;
    }
    value.members.push_back(std::move(pm));
  }
  return value;
}

bool classic_group::is_subscribed_to(std::string_view topic) const {
  if (!subscribed_topics_) return uses_consumer_protocol();
  return subscribed_topics_->contains(std::string(topic));
}

}  // namespace hw::broker::group
