#include "broker/group/consumer/describe.h"

namespace hw::broker::group::consumer {

namespace msg = protocol::msg;
using described = msg::consumer_group_describe_response;

namespace {

// Partitions of topics the image knows, each topic once, named.
void add_named(std::vector<described::topic_partitions>& out, const protocol::uuid& topic_id,
               const std::vector<int32_t>& partitions, const topic_image_view& topics) {
  auto name = topics.topic_name(topic_id);
  if (!name) return;
  for (auto& tp : out) {
    if (tp.topic_id == topic_id) {
      tp.partitions.insert(tp.partitions.end(), partitions.begin(), partitions.end());
      return;
    }
  }
  auto& tp = out.emplace_back();
  tp.topic_id = topic_id;
  tp.topic_name = *name;
  tp.partitions = partitions;
}

std::vector<int32_t> partitions_in(const std::map<int32_t, member_epoch>& epochs) {
  std::vector<int32_t> out;
  for (const auto& [p, e] : epochs) out.push_back(p);
  return out;
}

}  // namespace

std::string preferred_assignor(const consumer_group& group, const std::string& default_assignor) {
  std::map<std::string, int> counts;
  for (const auto& [id, m] : group.members())
    if (m.subscription.server_assignor) ++counts[*m.subscription.server_assignor];
  const std::string* best = nullptr;
  int most = 0;
  for (const auto& [name, n] : counts) {
    if (n > most) {
      most = n;
      best = &name;
    }
  }
  return best ? *best : default_assignor;
}

described::described_group describe(const consumer_group& group, const std::string& default_assignor,
                                    const topic_image_view& topics) {
  described::described_group d;
  d.group_id = group.group_id();
  d.group_state = std::string(to_string(group.state()));
  d.group_epoch = group.group_epoch();
  d.assignment_epoch = group.assignment_epoch();
  d.assignor_name = preferred_assignor(group, default_assignor);
  for (const auto& [id, m] : group.members()) {
    auto& out = d.members.emplace_back();
    out.member_id = id;
    out.instance_id = m.subscription.instance_id;
    out.rack_id = m.subscription.rack_id;
    out.member_epoch = m.current.epoch.value;
    out.client_id = m.subscription.client_id;
    out.client_host = m.subscription.client_host;
    out.subscribed_topic_names = {m.subscription.subscribed_topic_names.begin(),
                                  m.subscription.subscribed_topic_names.end()};
    // Kafka keeps "" for a member without one, and shows it as such.
    out.subscribed_topic_regex = m.subscription.subscribed_topic_regex;
    // What it holds: its partitions and those it is still giving up.
    for (const auto* held : {&m.current.assigned, &m.current.pending_revocation})
      for (const auto& [topic_id, epochs] : *held) add_named(out.assignment.topic_partitions, topic_id, partitions_in(epochs), topics);
    if (auto target = group.target_assignment().find(id); target != group.target_assignment().end()) {
      for (const auto& [topic_id, partitions] : target->second)
        add_named(out.target_assignment.topic_partitions, topic_id, {partitions.begin(), partitions.end()}, topics);
    }
    // 1: a member of the consumer protocol, 0: a classic member in the group.
    out.member_type = m.uses_classic_protocol() ? 0 : 1;
  }
  return d;
}

}  // namespace hw::broker::group::consumer
