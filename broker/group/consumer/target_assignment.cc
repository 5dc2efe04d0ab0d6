#include "broker/group/consumer/target_assignment.h"

#include <algorithm>
#include <charconv>

namespace hw::broker::group::consumer {

std::optional<int32_t> topic_image_view::group_config_int(std::string_view group_id, std::string_view key) const {
  auto text = group_config(group_id, key);
  if (!text) return std::nullopt;
  int32_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || end != text->data() + text->size()) return std::nullopt;
  return value;
}

member_spec spec_of(const consumer_member& member, const consumer_group& group, const topic_image_view& topics,
                    const topic_partitions& current_target) {
  member_spec spec;
  spec.member_id = member.member_id;
  spec.instance_id = member.subscription.instance_id;
  spec.rack_id = member.subscription.rack_id;
  auto add = [&](const std::string& name) {
    if (auto id = topics.topic_id(name)) {
      if (std::find(spec.subscribed_topic_ids.begin(), spec.subscribed_topic_ids.end(), *id) ==
          spec.subscribed_topic_ids.end())
        spec.subscribed_topic_ids.push_back(*id);
    } else {
      ++spec.unresolved_topic_names;
    }
  };
  for (const auto& name : member.subscription.subscribed_topic_names) add(name);
  if (const auto& regex = member.subscription.subscribed_topic_regex; !regex.empty()) {
    auto resolved = group.resolved_regexes().find(regex);
    if (resolved != group.resolved_regexes().end())
      for (const auto& name : resolved->second.topics) add(name);
  }
  spec.assignment = current_target;
  return spec;
}

namespace {

const topic_partitions& target_of(const consumer_group& group, const std::string& member_id) {
  static const topic_partitions none;
  auto it = group.target_assignment().find(member_id);
  return it == group.target_assignment().end() ? none : it->second;
}

}  // namespace

std::variant<target_assignment_result, assignor_error> compute_target_assignment(
    const consumer_group& group, int32_t target_epoch, int64_t now_ms, const assignor& assignor,
    const topic_image_view& topics, const member_change& change) {
  group_spec spec;
  std::vector<const member_subscription*> subscriptions;  // the members' after the change
  for (const auto& [id, member] : group.members()) {
    if (change.removed_member_id == id) continue;
    if (change.updated && change.updated->member_id == id) continue;  // taken below, last, as Kafka puts it
    spec.members.push_back(spec_of(member, group, topics, target_of(group, id)));
    subscriptions.push_back(&member.subscription);
  }
  if (change.updated) {
    const auto& m = *change.updated;
    // A static member that comes back under a new member id starts from
    // the target of the member id it had.
    const topic_partitions* start = &target_of(group, m.member_id);
    if (m.subscription.instance_id) {
      const std::string* earlier = group.static_member_id(*m.subscription.instance_id);
      if (earlier && *earlier != m.member_id) {
        start = &target_of(group, *earlier);
        spec.members.erase(std::remove_if(spec.members.begin(), spec.members.end(),
                                          [&](const member_spec& s) { return s.member_id == *earlier; }),
                           spec.members.end());
        const auto* replaced = group.member(*earlier);
        if (replaced)
          subscriptions.erase(std::remove(subscriptions.begin(), subscriptions.end(), &replaced->subscription),
                              subscriptions.end());
      }
    }
    spec.members.push_back(spec_of(m, group, topics, *start));
    subscriptions.push_back(&m.subscription);
  }
  spec.subscription = homogeneous_subscriptions(subscriptions, group.resolved_regexes())
                          ? subscription_type::homogeneous
                          : subscription_type::heterogeneous;
  spec.owners = owners_of(spec.members);

  auto answer = assignor.assign(spec, topics);
  if (auto* error = std::get_if<assignor_error>(&answer)) return *error;
  auto& assigned = std::get<group_assignment>(answer);

  target_assignment_result result;
  for (const auto& m : spec.members) {
    auto it = assigned.members.find(m.member_id);
    topic_partitions next = it == assigned.members.end() ? topic_partitions{} : it->second;
    auto before = group.target_assignment().find(m.member_id);
    const bool changed = before == group.target_assignment().end() || before->second != next;
    if (changed) {
      target_assignment_member_record r;
      r.key.group_id = group.group_id();
      r.key.member_id = m.member_id;
      r.value = to_value(next);
      if (auto listing = assigned.listings.find(m.member_id); listing != assigned.listings.end()) {
        // The partitions in the order Kafka lists them in this record.
        r.value->topic_partitions.clear();
        for (const auto& t : listing->second) {
          auto& tp = r.value->topic_partitions.emplace_back();
          tp.topic_id = t.topic_id;
          tp.partitions = t.partitions;
        }
      }
      result.records.emplace_back(std::move(r));
    }
    result.members[m.member_id] = std::move(next);
  }
  target_assignment_epoch_record epoch;
  epoch.key.group_id = group.group_id();
  epoch.value.emplace();
  epoch.value->assignment_epoch = target_epoch;
  epoch.value->assignment_timestamp = now_ms;
  result.records.emplace_back(std::move(epoch));
  return result;
}

}  // namespace hw::broker::group::consumer
