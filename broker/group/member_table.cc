// member_table: the membership bookkeeping of one classic group (see
// member_table.h). Runs on the owning group_shard's strand.
#include "broker/group/member_table.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "protocol/messages/consumer_protocol.h"
#include "protocol/wire/reader.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

const std::vector<uint8_t>* group_member::metadata(std::string_view protocol) const {
  for (const auto& p : protocols) {
    if (p.name == protocol) return &p.metadata;
  }
  return nullptr;
}

const group_member* member_table::find(std::string_view member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

group_member* member_table::find(std::string_view member_id) {
  return const_cast<group_member*>(std::as_const(*this).find(member_id));
}

void member_table::count_protocols(const group_member& member, int delta) {
  for (const auto& p : member.protocols) protocol_votes_[p.name] += delta;
}

void member_table::add(group_member member, std::optional<parked_request> join) {
  if (member.group_instance_id) {
    assert(!static_members_.contains(*member.group_instance_id));
    static_members_[*member.group_instance_id] = member.member_id;
  }
  count_protocols(member, +1);
  member.awaiting_join = join;
  if (join) ++awaiting_join_;
  pending_members_.erase(member.member_id);
  std::string id = member.member_id;
  members_.insert_or_assign(id, std::move(member));
}

void member_table::remove(std::string_view member_id) {
  if (auto it = members_.find(member_id); it != members_.end()) {
    count_protocols(it->second, -1);
    if (it->second.awaiting_join) --awaiting_join_;
    if (it->second.group_instance_id) static_members_.erase(*it->second.group_instance_id);
    members_.erase(it);
  }
  if (auto p = pending_members_.find(member_id); p != pending_members_.end()) pending_members_.erase(p);
  remove_pending_sync(member_id);
}

void member_table::update(group_member& member, std::vector<member_protocol> protocols,
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

group_member& member_table::replace_static(std::string_view instance_id, std::string_view old_member_id,
                                           std::string new_member_id, std::vector<completion>& out) {
  auto it = members_.find(old_member_id);
  assert(it != members_.end());
  group_member old = std::move(it->second);
  members_.erase(it);
  if (auto join = take_join(old)) {
    msg::join_group_response fenced;
    fenced.member_id = old.member_id;
    fenced.error_code = static_cast<int16_t>(error_code::fenced_instance_id);
    if (join->version >= 7) fenced.protocol_name.reset();
    out.push_back({join->token, std::move(fenced)});
  }
  if (old.awaiting_sync) {
    msg::sync_group_response fenced;
    fenced.error_code = static_cast<int16_t>(error_code::fenced_instance_id);
    out.push_back({old.awaiting_sync->token, std::move(fenced)});
    old.awaiting_sync.reset();
  }
  old.member_id = new_member_id;
  old.heartbeat_deadline_ms.reset();
  static_members_[std::string(instance_id)] = new_member_id;
  auto [pos, inserted] = members_.emplace(std::move(new_member_id), std::move(old));
  assert(inserted);
  return pos->second;
}

std::optional<std::string> member_table::static_member_id(std::string_view instance_id) const {
  auto it = static_members_.find(instance_id);
  if (it == static_members_.end()) return std::nullopt;
  return it->second;
}

error_code member_table::validate(std::string_view member_id, const std::optional<std::string>& instance_id) const {
  if (instance_id) {
    auto existing = static_member_id(*instance_id);
    if (!existing) return error_code::unknown_member_id;
    if (*existing != member_id) return error_code::fenced_instance_id;
  }
  if (!contains(member_id)) return error_code::unknown_member_id;
  return error_code::none;
}

std::optional<parked_request> member_table::take_join(group_member& member) {
  std::optional<parked_request> join;
  if (!member.awaiting_join) return join;
  join.swap(member.awaiting_join);
  --awaiting_join_;
  return join;
}

bool member_table::all_joined() const {
  return static_cast<int32_t>(members_.size()) == awaiting_join_ && pending_members_.empty();
}

void member_table::add_pending(std::string member_id, int64_t deadline_ms) {
  assert(!members_.contains(member_id));
  pending_members_[std::move(member_id)] = deadline_ms;
}

void member_table::remove_pending_sync(std::string_view member_id) {
  if (auto it = pending_sync_.find(member_id); it != pending_sync_.end()) pending_sync_.erase(it);
}

int32_t member_table::rebalance_timeout_ms() const {
  int32_t max = 0;
  for (const auto& [_, m] : members_) max = std::max(max, m.rebalance_timeout_ms);
  return max;
}

bool member_table::all_support_one_of(const std::vector<member_protocol>& protocols) const {
  auto n = static_cast<int32_t>(members_.size());
  return std::any_of(protocols.begin(), protocols.end(), [&](const member_protocol& p) {
    auto it = protocol_votes_.find(p.name);
    return it != protocol_votes_.end() && it->second == n;
  });
}

std::string member_table::select_protocol() const {
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

std::optional<std::set<std::string>> member_table::subscribed_topics(
    const std::optional<std::string>& protocol_name) const {
  if (members_.empty()) return std::set<std::string>{};
  if (!protocol_name) return std::nullopt;
  std::set<std::string> topics;
  for (const auto& [_, m] : members_) {
    const auto* md = m.metadata(*protocol_name);
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

}  // namespace hw::broker::group
