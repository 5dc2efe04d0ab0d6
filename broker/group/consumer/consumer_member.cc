// consumer_member: one consumer-group member as the coordinator keeps it
// (see consumer_member.h).
#include "broker/group/consumer/consumer_member.h"

#include <utility>

namespace hw::broker::group::consumer {

namespace msg = protocol::msg;

member_state member_state_from_value(int8_t value) {
  switch (value) {
    case 0: return member_state::stable;
    case 1: return member_state::unrevoked_partitions;
    case 2: return member_state::unreleased_partitions;
    default: return member_state::unknown;
  }
}

std::string_view to_string(member_state state) {
  switch (state) {
    case member_state::stable: return "STABLE";
    case member_state::unrevoked_partitions: return "UNREVOKED_PARTITIONS";
    case member_state::unreleased_partitions: return "UNRELEASED_PARTITIONS";
    case member_state::unknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

topic_partitions partitions_of(const partitions_with_epochs& partitions) {
  topic_partitions out;
  for (const auto& [topic_id, epochs] : partitions) {
    auto& set = out[topic_id];
    for (const auto& [partition, epoch] : epochs) set.insert(partition);
  }
  return out;
}

std::optional<member_epoch> epoch_of(const partitions_with_epochs& partitions, const protocol::uuid& topic_id,
                                     int32_t partition) {
  auto topic = partitions.find(topic_id);
  if (topic == partitions.end()) return std::nullopt;
  auto it = topic->second.find(partition);
  if (it == topic->second.end()) return std::nullopt;
  return it->second;
}

consumer_member with_heartbeat(const consumer_member& member, const msg::consumer_group_heartbeat_request& request,
                               std::string client_id, std::string client_host) {
  consumer_member out = member;
  auto& s = out.subscription;
  if (request.instance_id) s.instance_id = request.instance_id;
  if (request.rack_id) s.rack_id = request.rack_id;
  if (request.rebalance_timeout_ms != -1) s.rebalance_timeout_ms = request.rebalance_timeout_ms;
  if (request.server_assignor) s.server_assignor = request.server_assignor;
  if (request.subscribed_topic_names) {
    s.subscribed_topic_names = {request.subscribed_topic_names->begin(), request.subscribed_topic_names->end()};
  }
  if (request.subscribed_topic_regex) s.subscribed_topic_regex = *request.subscribed_topic_regex;
  s.client_id = std::move(client_id);
  s.client_host = std::move(client_host);
  s.classic.reset();
  return out;
}

std::optional<topic_partitions> owned_partitions(const msg::consumer_group_heartbeat_request& request) {
  if (!request.topic_partitions) return std::nullopt;
  topic_partitions out;
  // A topic listed with no partitions keeps its (empty) entry: the epoch
  // check treats a listed topic the member was not given as not a subset.
  for (const auto& t : *request.topic_partitions) out[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

bool answer_carries_assignment(const msg::consumer_group_heartbeat_request& request, const consumer_member& before,
                               const consumer_member& after) {
  const bool full_request = request.rebalance_timeout_ms != -1 &&
                            (request.subscribed_topic_names.has_value() || request.subscribed_topic_regex.has_value()) &&
                            request.topic_partitions.has_value();
  return request.member_epoch == joining_epoch.value || full_request ||
         before.current.assigned != after.current.assigned;
}

msg::consumer_group_heartbeat_response::assignment_data heartbeat_assignment(const consumer_member& member) {
  msg::consumer_group_heartbeat_response::assignment_data out;
  for (const auto& [topic_id, epochs] : member.current.assigned) {
    msg::consumer_group_heartbeat_response::topic_partitions t;
    t.topic_id = topic_id;
    for (const auto& [partition, epoch] : epochs) t.partitions.push_back(partition);
    out.topic_partitions.push_back(std::move(t));
  }
  return out;
}

consumer_member static_member_left(const consumer_member& member) {
  consumer_member out = member;
  out.current.epoch = leave_group_static_epoch;
  out.current.pending_revocation.clear();
  for (auto& [topic_id, epochs] : out.current.assigned) {
    for (auto& [partition, epoch] : epochs) epoch = joining_epoch;
  }
  return out;
}

consumer_member static_member_replacement(const consumer_member& member, std::string new_member_id) {
  consumer_member out = member;
  out.member_id = std::move(new_member_id);
  out.current.epoch = joining_epoch;
  out.current.previous_epoch = joining_epoch;
  return out;
}

}  // namespace hw::broker::group::consumer
