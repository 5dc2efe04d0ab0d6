#include "broker/group/classic_group.h"

#include <algorithm>
#include <cassert>

#include "protocol/messages/consumer_protocol.h"
#include "protocol/wire/reader.h"

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

const std::vector<uint8_t>* group_member::metadata(std::string_view protocol) const {
  for (const auto& p : protocols) {
    if (p.name == protocol) return &p.metadata;
  }
  return nullptr;
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

group_member* classic_group::member(std::string_view member_id) {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

const group_member* classic_group::member(std::string_view member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

void classic_group::count_protocols(const group_member& member, int delta) {
  for (const auto& p : member.protocols) protocol_votes_[p.name] += delta;
}

void classic_group::add(group_member member, std::optional<parked_request> join) {
  if (member.group_instance_id) {
    assert(!static_members_.contains(*member.group_instance_id));
    static_members_[*member.group_instance_id] = member.member_id;
  }
  if (members_.empty()) protocol_type_ = member.protocol_type;
  assert(protocol_type_ && *protocol_type_ == member.protocol_type);
  if (!leader_id_) leader_id_ = member.member_id;
  count_protocols(member, +1);
  member.awaiting_join = join;
  if (join) ++awaiting_join_;
  pending_members_.erase(member.member_id);
  std::string id = member.member_id;
  members_.insert_or_assign(id, std::move(member));
}

void classic_group::remove(std::string_view member_id) {
  auto it = members_.find(member_id);
  if (it != members_.end()) {
    count_protocols(it->second, -1);
    if (it->second.awaiting_join) --awaiting_join_;
    if (it->second.group_instance_id) static_members_.erase(*it->second.group_instance_id);
    members_.erase(it);
  }
  if (is_leader(member_id)) {
    leader_id_.reset();
    if (!members_.empty()) leader_id_ = members_.begin()->first;
  }
  if (auto p = pending_members_.find(member_id); p != pending_members_.end()) pending_members_.erase(p);
  if (auto s = pending_sync_.find(member_id); s != pending_sync_.end()) pending_sync_.erase(s);
}

void classic_group::update_member(group_member& member, std::vector<member_protocol> protocols,
                                  int32_t rebalance_timeout_ms, int32_t session_timeout_ms,
                                  std::optional<parked_request> join) {
  count_protocols(member, -1);
  member.protocols = std::move(protocols);
  count_protocols(member, +1);
  member.rebalance_timeout_ms = rebalance_timeout_ms;
  member.session_timeout_ms = session_timeout_ms;
  if (join && !member.awaiting_join) ++awaiting_join_;
  if (!join && member.awaiting_join) --awaiting_join_;
  member.awaiting_join = join;
}

group_member& classic_group::replace_static_member(std::string_view instance_id,
                                                   std::string_view old_member_id,
                                                   std::string new_member_id,
                                                   std::vector<completion>& out) {
  auto it = members_.find(old_member_id);
  assert(it != members_.end());
  group_member old = std::move(it->second);
  members_.erase(it);
  if (old.awaiting_join) {
    msg::join_group_response fenced;
    fenced.member_id = old.member_id;
    fenced.error_code = static_cast<int16_t>(error_code::fenced_instance_id);
    if (old.awaiting_join->version >= 7) fenced.protocol_name.reset();
    out.push_back({old.awaiting_join->token, std::move(fenced)});
    old.awaiting_join.reset();
    --awaiting_join_;
  }
  if (old.awaiting_sync) {
    msg::sync_group_response fenced;
    fenced.error_code = static_cast<int16_t>(error_code::fenced_instance_id);
    out.push_back({old.awaiting_sync->token, std::move(fenced)});
    old.awaiting_sync.reset();
  }
  bool was_leader = is_leader(old_member_id);
  old.member_id = new_member_id;
  old.heartbeat_deadline_ms.reset();
  if (was_leader) leader_id_ = new_member_id;
  static_members_[std::string(instance_id)] = new_member_id;
  auto [pos, inserted] = members_.emplace(new_member_id, std::move(old));
  assert(inserted);
  return pos->second;
}

void classic_group::add_pending(std::string member_id, int64_t deadline_ms) {
  assert(!members_.contains(member_id));
  pending_members_[std::move(member_id)] = deadline_ms;
}

std::optional<std::string> classic_group::static_member_id(std::string_view instance_id) const {
  auto it = static_members_.find(instance_id);
  if (it == static_members_.end()) return std::nullopt;
  return it->second;
}

void classic_group::remove_pending_sync(std::string_view member_id) {
  if (auto it = pending_sync_.find(member_id); it != pending_sync_.end()) pending_sync_.erase(it);
}

int32_t classic_group::rebalance_timeout_ms() const {
  int32_t max = 0;
  for (const auto& [_, m] : members_) max = std::max(max, m.rebalance_timeout_ms);
  return max;
}

error_code classic_group::validate_member(std::string_view member_id,
                                          const std::optional<std::string>& instance_id) const {
  if (instance_id) {
    auto existing = static_member_id(*instance_id);
    if (!existing) return error_code::unknown_member_id;
    if (*existing != member_id) return error_code::fenced_instance_id;
  }
  if (!has_member(member_id)) return error_code::unknown_member_id;
  return error_code::none;
}

bool classic_group::supports_protocols(std::string_view protocol_type,
                                       const std::vector<member_protocol>& protocols) const {
  if (in(group_state::empty)) return !protocol_type.empty() && !protocols.empty();
  if (!protocol_type_ || *protocol_type_ != protocol_type) return false;
  auto n = static_cast<int32_t>(members_.size());
  return std::any_of(protocols.begin(), protocols.end(), [&](const member_protocol& p) {
    auto it = protocol_votes_.find(p.name);
    return it != protocol_votes_.end() && it->second == n;
  });
}

std::string classic_group::select_protocol() const {
  assert(!members_.empty());
  auto n = static_cast<int32_t>(members_.size());
  std::map<std::string, int32_t, std::less<>> votes;
  for (const auto& [_, m] : members_) {
    for (const auto& p : m.protocols) {
      auto it = protocol_votes_.find(p.name);
      if (it != protocol_votes_.end() && it->second == n) {
        ++votes[p.name];
        break;
      }
    }
  }
  assert(!votes.empty());
  // Ties go to the first name in order: deterministic where Kafka's
  // HashMap order is arbitrary.
  auto best = votes.begin();
  for (auto it = votes.begin(); it != votes.end(); ++it) {
    if (it->second > best->second) best = it;
  }
  return best->first;
}

bool classic_group::maybe_elect_joined_leader() {
  if (!leader_id_) return false;
  const group_member* leader = member(*leader_id_);
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
    protocol_name_ = select_protocol();
    refresh_subscribed_topics();
    transition_to(group_state::completing_rebalance, now_ms);
  } else {
    protocol_name_.reset();
    refresh_subscribed_topics();
    transition_to(group_state::empty, now_ms);
  }
  pending_sync_.clear();
}

bool classic_group::complete_join(group_member& member, msg::join_group_response response,
                                  std::vector<completion>& out) {
  if (!member.awaiting_join) return false;
  // JoinGroup v0-6 cannot carry a null protocol name.
  if (member.awaiting_join->version < 7 && !response.protocol_name) response.protocol_name = "";
  out.push_back({member.awaiting_join->token, std::move(response)});
  member.awaiting_join.reset();
  --awaiting_join_;
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

std::optional<std::set<std::string>> classic_group::compute_subscribed_topics() const {
  if (!uses_consumer_protocol()) return std::nullopt;
  if (members_.empty()) return std::set<std::string>{};
  if (!protocol_name_) return std::nullopt;
  std::set<std::string> topics;
  for (const auto& [_, m] : members_) {
    const auto* md = m.metadata(*protocol_name_);
    if (!md) return std::nullopt;
    protocol::reader r(*md);
    r.read_int16();  // the client's version; Kafka reads the v0 fields only
    msg::consumer_protocol_subscription sub;
    sub.decode(r, 0);
    if (!r.ok()) return std::nullopt;
    topics.insert(sub.topics.begin(), sub.topics.end());
  }
  return topics;
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
