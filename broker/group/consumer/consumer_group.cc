#include "broker/group/consumer/consumer_group.h"

#include <algorithm>

namespace hw::broker::group::consumer {

std::string_view to_string(consumer_group_state state) {
  switch (state) {
    case consumer_group_state::empty: return "Empty";
    case consumer_group_state::assigning: return "Assigning";
    case consumer_group_state::reconciling: return "Reconciling";
    case consumer_group_state::stable: return "Stable";
    case consumer_group_state::dead: return "Dead";
  }
  return "Dead";
}

const consumer_member* consumer_group::member(const std::string& member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

const std::string* consumer_group::static_member_id(const std::string& instance_id) const {
  auto it = static_members_.find(instance_id);
  return it == static_members_.end() ? nullptr : &it->second;
}

consumer_group_state consumer_group::state() const {
  if (deleted_) return consumer_group_state::dead;
  if (members_.empty()) return consumer_group_state::empty;
  if (group_epoch_ > assignment_epoch_) return consumer_group_state::assigning;
  for (const auto& [id, m] : members_)
    if (!m.is_reconciled_to(member_epoch{assignment_epoch_})) return consumer_group_state::reconciling;
  return consumer_group_state::stable;
}

namespace {

std::vector<const member_subscription*> subscriptions_of(const std::map<std::string, consumer_member>& members) {
  std::vector<const member_subscription*> out;
  for (const auto& [id, m] : members) out.push_back(&m.subscription);
  return out;
}

}  // namespace

std::map<std::string, int> subscribed_regexes(const std::vector<const member_subscription*>& members) {
  std::map<std::string, int> out;
  for (const auto* m : members)
    if (!m->subscribed_topic_regex.empty()) ++out[m->subscribed_topic_regex];
  return out;
}

std::map<std::string, subscription_count> subscribed_topics(const std::vector<const member_subscription*>& members,
                                                             const std::map<std::string, resolved_regex>& resolved) {
  std::map<std::string, subscription_count> out;
  for (const auto* m : members)
    for (const auto& name : m->subscribed_topic_names) ++out[name].by_name;
  for (const auto& [regex, count] : subscribed_regexes(members)) {
    auto r = resolved.find(regex);
    if (r == resolved.end()) continue;
    for (const auto& topic : r->second.topics) ++out[topic].by_regex;
  }
  return out;
}

bool homogeneous_subscriptions(const std::vector<const member_subscription*>& members,
                               const std::map<std::string, resolved_regex>& resolved) {
  const auto topics = subscribed_topics(members, resolved);
  const auto regexes = subscribed_regexes(members);
  const int count = static_cast<int>(members.size());
  if (regexes.empty()) {
    return std::all_of(topics.begin(), topics.end(), [&](const auto& t) { return t.second.by_name == count; });
  }
  // One regular expression that every member subscribes to, and no names.
  if (regexes.size() != 1 || regexes.begin()->second != count) return false;
  return std::all_of(topics.begin(), topics.end(),
                     [](const auto& t) { return t.second.by_regex == 1 && t.second.by_name == 0; });
}

std::map<std::string, int> consumer_group::subscribed_regexes() const {
  return consumer::subscribed_regexes(subscriptions_of(members_));
}

std::map<std::string, subscription_count> consumer_group::subscribed_topics() const {
  return consumer::subscribed_topics(subscriptions_of(members_), regexes_);
}

bool consumer_group::homogeneous_subscriptions() const {
  return consumer::homogeneous_subscriptions(subscriptions_of(members_), regexes_);
}

std::optional<std::string> consumer_group::replay(const consumer_group_record& record) {
  return std::visit(
      [this](const auto& r) -> std::optional<std::string> {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, group_epoch_record>) {
          return replay_group_epoch(r);
        } else if constexpr (std::is_same_v<R, partition_metadata_record>) {
          legacy_partition_metadata_ = r.value.has_value();
          return std::nullopt;
        } else if constexpr (std::is_same_v<R, member_metadata_record>) {
          return replay_member_metadata(r);
        } else if constexpr (std::is_same_v<R, target_assignment_epoch_record>) {
          if (r.value) {
            assignment_epoch_ = r.value->assignment_epoch;
            assignment_timestamp_ms_ = r.value->assignment_timestamp;
          } else {
            if (!target_.empty()) {
              return "Received a tombstone record to delete target assignment of " + group_id_ +
                     " but the assignment still has " + std::to_string(target_.size()) + " members.";
            }
            assignment_epoch_ = -1;
            assignment_timestamp_ms_ = 0;
          }
          return std::nullopt;
        } else if constexpr (std::is_same_v<R, target_assignment_member_record>) {
          if (r.value) target_[r.key.member_id] = target_from(*r.value);
          else target_.erase(r.key.member_id);
          return std::nullopt;
        } else if constexpr (std::is_same_v<R, current_assignment_record>) {
          return replay_current_assignment(r);
        } else {
          static_assert(std::is_same_v<R, regular_expression_record>);
          if (r.value) {
            regexes_[r.key.regular_expression] = {{r.value->topics.begin(), r.value->topics.end()}, r.value->version,
                                                  r.value->timestamp};
          } else {
            regexes_.erase(r.key.regular_expression);
          }
          return std::nullopt;
        }
      },
      record);
}

std::optional<std::string> consumer_group::replay_group_epoch(const group_epoch_record& r) {
  if (r.value) {
    deleted_ = false;
    group_epoch_ = r.value->epoch;
    metadata_hash_ = r.value->metadata_hash;
    return std::nullopt;
  }
  if (!members_.empty()) {
    return "Received a tombstone record to delete group " + group_id_ + " but the group still has " +
           std::to_string(members_.size()) + " members.";
  }
  if (!target_.empty()) {
    return "Received a tombstone record to delete group " + group_id_ + " but the target assignment still has " +
           std::to_string(target_.size()) + " members.";
  }
  if (assignment_epoch_ != -1) {
    return "Received a tombstone record to delete group " + group_id_ +
           " but did not receive ConsumerGroupTargetAssignmentMetadataValue tombstone.";
  }
  deleted_ = true;
  return std::nullopt;
}

std::optional<std::string> consumer_group::replay_member_metadata(const member_metadata_record& r) {
  const std::string& id = r.key.member_id;
  if (r.value) {
    auto [it, added] = members_.try_emplace(id);
    if (added) it->second.member_id = id;
    it->second.subscription = subscription_from(*r.value);
    if (it->second.subscription.instance_id) static_members_[*it->second.subscription.instance_id] = id;
    return std::nullopt;
  }
  auto it = members_.find(id);
  if (it == members_.end()) return std::nullopt;  // nothing to delete
  if (it->second.current.epoch != leave_group_epoch) {
    return "Received a tombstone record to delete member " + id +
           " but did not receive ConsumerGroupCurrentMemberAssignmentValue tombstone.";
  }
  if (target_.count(id)) {
    return "Received a tombstone record to delete member " + id +
           " but did not receive ConsumerGroupTargetAssignmentMetadataValue tombstone.";
  }
  partition_epochs_.remove_member(it->second.current);
  if (const auto& instance = it->second.subscription.instance_id) {
    auto s = static_members_.find(*instance);
    if (s != static_members_.end() && s->second == id) static_members_.erase(s);
  }
  members_.erase(it);
  return std::nullopt;
}

std::optional<std::string> consumer_group::replay_current_assignment(const current_assignment_record& r) {
  const std::string& id = r.key.member_id;
  auto it = members_.find(id);
  if (!r.value && it == members_.end()) return std::nullopt;  // nothing to clear
  member_assignment next;
  if (r.value) {
    next = assignment_from(*r.value);
  } else {
    // The member is leaving: it holds nothing any more.
    next = it->second.current;
    next.epoch = leave_group_epoch;
    next.previous_epoch = leave_group_epoch;
    next.assigned.clear();
    next.pending_revocation.clear();
  }
  const member_assignment before = it == members_.end() ? member_assignment{} : it->second.current;
  if (auto conflict = partition_epochs_.update_member(before, next)) {
    return "Cannot set the epoch of " + conflict->topic_id.to_string() + "-" + std::to_string(conflict->partition) +
           " to " + std::to_string(conflict->epoch.value) + " because the partition is still owned at epoch " +
           std::to_string(conflict->held.value) + " (member " + id + " of group " + group_id_ + ")";
  }
  if (it == members_.end()) {
    it = members_.try_emplace(id).first;
    it->second.member_id = id;
  }
  it->second.current = std::move(next);
  return std::nullopt;
}

// --- Members of the classic protocol -----------------------------------------

int consumer_group::classic_member_count() const {
  int n = 0;
  for (const auto& [id, m] : members_) n += m.uses_classic_protocol() ? 1 : 0;
  return n;
}

bool consumer_group::supports_classic_protocols(std::string_view protocol_type,
                                                const std::vector<std::string>& protocol_names) const {
  if (protocol_type != "consumer") return false;
  if (members_.empty()) return !protocol_names.empty();
  const int classic = classic_member_count();
  return std::any_of(protocol_names.begin(), protocol_names.end(), [&](const std::string& name) {
    int offering = 0;
    for (const auto& [id, m] : members_) {
      if (!m.subscription.classic) continue;
      for (const auto& p : m.subscription.classic->protocols) {
        if (p.name == name) {
          ++offering;
          break;
        }
      }
    }
    return offering == classic;
  });
}

bool consumer_group::all_classic_except(const std::set<std::string>& member_ids) const {
  for (const auto& [id, m] : members_)
    if (!member_ids.count(id) && !m.uses_classic_protocol()) return false;
  return true;
}

bool consumer_group::waiting_on_unreleased_partition(const consumer_member& member) const {
  if (member.current.state != member_state::unreleased_partitions) return false;
  auto target = target_.find(member.member_id);
  if (target == target_.end()) return false;
  for (const auto& [topic_id, partitions] : target->second) {
    for (int32_t p : partitions) {
      if (!epoch_of(member.current.assigned, topic_id, p) && partition_epochs_.owner_epoch(topic_id, p)) return true;
    }
  }
  return false;
}

// --- Records of a member ---------------------------------------------------

member_subscription subscription_from(const msg::consumer_group_member_metadata_value& value) {
  member_subscription s;
  s.instance_id = value.instance_id;
  s.rack_id = value.rack_id;
  s.client_id = value.client_id;
  s.client_host = value.client_host;
  s.subscribed_topic_names = {value.subscribed_topic_names.begin(), value.subscribed_topic_names.end()};
  s.subscribed_topic_regex = value.subscribed_topic_regex.value_or("");
  s.rebalance_timeout_ms = value.rebalance_timeout_ms;
  s.server_assignor = value.server_assignor;
  if (value.classic_member_metadata) {
    auto& c = s.classic.emplace();
    c.session_timeout_ms = value.classic_member_metadata->session_timeout_ms;
    for (const auto& p : value.classic_member_metadata->supported_protocols)
      c.protocols.push_back({p.name, {p.metadata.begin(), p.metadata.end()}});
  }
  return s;
}

msg::consumer_group_member_metadata_value to_value(const member_subscription& s) {
  msg::consumer_group_member_metadata_value v;
  v.instance_id = s.instance_id;
  v.rack_id = s.rack_id;
  v.client_id = s.client_id;
  v.client_host = s.client_host;
  v.subscribed_topic_names = {s.subscribed_topic_names.begin(), s.subscribed_topic_names.end()};
  if (!s.subscribed_topic_regex.empty()) v.subscribed_topic_regex = s.subscribed_topic_regex;
  v.rebalance_timeout_ms = s.rebalance_timeout_ms;
  v.server_assignor = s.server_assignor;
  // A member of the consumer protocol: Kafka writes its classic metadata as
  // an explicit null (the field's default is an empty struct).
  v.classic_member_metadata.reset();
  if (s.classic) {
    auto& c = v.classic_member_metadata.emplace();
    c.session_timeout_ms = s.classic->session_timeout_ms;
    for (const auto& p : s.classic->protocols) {
      auto& out = c.supported_protocols.emplace_back();
      out.name = p.name;
      out.metadata = {p.metadata.begin(), p.metadata.end()};
    }
  }
  return v;
}

namespace {

using assignment_topics = std::vector<msg::consumer_group_current_member_assignment_value::topic_partitions>;

partitions_with_epochs with_epochs(const assignment_topics& topics, member_epoch record_epoch) {
  const member_epoch fallback{std::max(record_epoch.value, 0)};
  partitions_with_epochs out;
  for (const auto& tp : topics) {
    auto& partitions = out[tp.topic_id];
    const bool epochs_fit = tp.assignment_epochs && tp.assignment_epochs->size() == tp.partitions.size();
    for (size_t i = 0; i < tp.partitions.size(); ++i)
      partitions[tp.partitions[i]] = epochs_fit ? member_epoch{(*tp.assignment_epochs)[i]} : fallback;
  }
  return out;
}

assignment_topics topics_of(const partitions_with_epochs& partitions) {
  assignment_topics out;
  for (const auto& [topic_id, epochs] : partitions) {
    auto& tp = out.emplace_back();
    tp.topic_id = topic_id;
    tp.assignment_epochs.emplace();
    for (const auto& [partition, epoch] : epochs) {
      tp.partitions.push_back(partition);
      tp.assignment_epochs->push_back(epoch.value);
    }
  }
  return out;
}

}  // namespace

member_assignment assignment_from(const msg::consumer_group_current_member_assignment_value& value) {
  member_assignment a;
  a.epoch = member_epoch{value.member_epoch};
  a.previous_epoch = member_epoch{value.previous_member_epoch};
  a.state = member_state_from_value(value.state);
  a.assigned = with_epochs(value.assigned_partitions, a.epoch);
  a.pending_revocation = with_epochs(value.partitions_pending_revocation, a.epoch);
  return a;
}

msg::consumer_group_current_member_assignment_value to_value(const member_assignment& a) {
  msg::consumer_group_current_member_assignment_value v;
  v.member_epoch = a.epoch.value;
  v.previous_member_epoch = a.previous_epoch.value;
  v.state = static_cast<int8_t>(a.state);
  v.assigned_partitions = topics_of(a.assigned);
  v.partitions_pending_revocation = topics_of(a.pending_revocation);
  return v;
}

topic_partitions target_from(const msg::consumer_group_target_assignment_member_value& value) {
  topic_partitions out;
  for (const auto& tp : value.topic_partitions) out[tp.topic_id].insert(tp.partitions.begin(), tp.partitions.end());
  return out;
}

msg::consumer_group_target_assignment_member_value to_value(const topic_partitions& target) {
  msg::consumer_group_target_assignment_member_value v;
  for (const auto& [topic_id, partitions] : target) {
    auto& tp = v.topic_partitions.emplace_back();
    tp.topic_id = topic_id;
    tp.partitions = {partitions.begin(), partitions.end()};
  }
  return v;
}

}  // namespace hw::broker::group::consumer
