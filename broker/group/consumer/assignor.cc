#include "broker/group/consumer/assignor.h"

#include <set>

namespace hw::broker::group::consumer {

int32_t partition_count_map::partition_count(const protocol::uuid& topic_id) const {
  auto it = counts_.find(topic_id);
  return it == counts_.end() ? -1 : it->second;
}

partition_owners owners_of(const std::vector<member_spec>& members) {
  partition_owners out;
  for (const member_spec& m : members)
    for (const auto& [topic, partitions] : m.assignment)
      for (int32_t p : partitions) out[topic][p] = m.member_id;
  return out;
}

subscription_type subscription_type_of(const std::vector<member_spec>& members) {
  if (members.empty()) return subscription_type::homogeneous;
  std::set<protocol::uuid> first(members.front().subscribed_topic_ids.begin(),
                                 members.front().subscribed_topic_ids.end());
  for (const member_spec& m : members) {
    std::set<protocol::uuid> topics(m.subscribed_topic_ids.begin(), m.subscribed_topic_ids.end());
    if (topics != first) return subscription_type::heterogeneous;
  }
  return subscription_type::homogeneous;
}

topic_partitions partitions_of(const partition_listing& listing) {
  topic_partitions out;
  for (const listed_topic& t : listing) out[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

partition_listing ascending_listing(const topic_partitions& partitions) {
  partition_listing out;
  out.reserve(partitions.size());
  for (const auto& [topic, set] : partitions) out.push_back(listed_topic{topic, {set.begin(), set.end()}});
  return out;
}

}  // namespace hw::broker::group::consumer
