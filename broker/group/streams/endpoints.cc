#include "broker/group/streams/endpoints.h"

#include <algorithm>
#include <set>

namespace hw::broker::group::streams {

namespace msg = protocol::msg;
using response = msg::streams_group_heartbeat_response;

namespace {

std::vector<response::topic_partition> partitions_of(const task_set& tasks,
                                                     const std::map<std::string, configured_subtopology>& subtopologies,
                                                     const consumer::topic_image_view& topics) {
  std::vector<response::topic_partition> out;
  for (const auto& [subtopology_id, partitions] : tasks) {
    auto s = subtopologies.find(subtopology_id);
    if (s == subtopologies.end()) continue;
    std::set<std::string> names = s->second.source_topics;
    for (const auto& [name, t] : s->second.repartition_source_topics) names.insert(name);
    for (const auto& name : names) {
      auto id = topics.topic_id(name);
      if (!id) continue;
      const int32_t count = topics.partition_count(*id);
      response::topic_partition tp;
      tp.topic = name;
      tp.partitions.assign(partitions.begin(), partitions.end());
      if (count >= 0 && static_cast<size_t>(count) < tp.partitions.size()) tp.partitions.resize(count);
      out.push_back(std::move(tp));
    }
  }
  return out;
}

task_set active_without_epochs(const task_epochs& tasks) {
  task_set out;
  for (const auto& [id, partitions] : tasks)
    for (const auto& [p, epoch] : partitions) out[id].insert(p);
  return out;
}

}  // namespace

std::vector<response::endpoint_to_partitions> endpoint_partitions(const streams_group& group,
                                                                  const streams_member& updated,
                                                                  const consumer::topic_image_view& topics) {
  std::vector<response::endpoint_to_partitions> out;
  const auto& configured = group.configured();
  if (!configured || !configured->subtopologies) return out;
  auto add = [&](const streams_member& m) {
    if (!m.metadata.endpoint) return;
    auto& e = out.emplace_back();
    e.user_endpoint.host = m.metadata.endpoint->host;
    e.user_endpoint.port = m.metadata.endpoint->port;
    e.active_partitions = partitions_of(active_without_epochs(m.assigned.active), *configured->subtopologies, topics);
    e.standby_partitions = partitions_of(m.assigned.standby, *configured->subtopologies, topics);
  };
  for (const auto& [id, m] : group.members())
    if (id != updated.member_id) add(m);
  add(updated);
  return out;
}

}  // namespace hw::broker::group::streams
