// describe: a streams group as StreamsGroupDescribe shows it (see describe.h).
#include "broker/group/streams/describe.h"

#include <algorithm>

namespace hw::broker::group::streams {

namespace {

using described = protocol::msg::streams_group_describe_response;

std::vector<described::task_ids> task_ids(const task_set& tasks) {
  std::vector<described::task_ids> out;
  for (const auto& [id, partitions] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = id;
    t.partitions = {partitions.begin(), partitions.end()};
  }
  return out;
}

std::vector<described::task_ids> task_ids(const task_epochs& tasks) {
  task_set plain;
  for (const auto& [id, epochs] : tasks)
    for (const auto& [p, e] : epochs) plain[id].insert(p);
  return task_ids(plain);
}

described::topic_info topic_of(const std::string& name, int32_t partitions, int16_t replication_factor,
                               const std::vector<std::pair<std::string, std::string>>& configs) {
  described::topic_info t;
  t.name = name;
  t.partitions = partitions;
  t.replication_factor = replication_factor;
  for (const auto& [key, value] : configs) {
    auto& kv = t.topic_configs.emplace_back();
    kv.key = key;
    kv.value = value;
  }
  return t;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void sort_by_name(std::vector<described::topic_info>& topics) {
  std::stable_sort(topics.begin(), topics.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

// As configured: decided partition counts, the replication factor asked (0: the default).
described::topology configured_topology_of(const configured_topology& c) {
  described::topology out;
  out.epoch = c.epoch;
  out.subtopologies.emplace();
  for (const auto& [id, s] : *c.subtopologies) {
    auto& d = out.subtopologies->emplace_back();
    d.subtopology_id = id;
    d.source_topics = {s.source_topics.begin(), s.source_topics.end()};
    d.repartition_sink_topics = {s.repartition_sink_topics.begin(), s.repartition_sink_topics.end()};
    for (const auto& [name, t] : s.repartition_source_topics)
      d.repartition_source_topics.push_back(topic_of(name, t.partitions, t.replication_factor.value_or(0), t.configs));
    for (const auto& [name, t] : s.state_changelog_topics)
      d.state_changelog_topics.push_back(topic_of(name, t.partitions, t.replication_factor.value_or(0), t.configs));
  }
  return out;
}

// As declared: the member's own counts (0 for those left to the coordinator).
described::topology declared_topology_of(const topology& t) {
  described::topology out;
  out.epoch = t.epoch;
  out.subtopologies.emplace();
  std::vector<const subtopology*> by_id;
  for (const auto& s : t.subtopologies) by_id.push_back(&s);
  std::stable_sort(by_id.begin(), by_id.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
  for (const auto* s : by_id) {
    auto& d = out.subtopologies->emplace_back();
    d.subtopology_id = s->id;
    d.source_topics = sorted(s->source_topics);
    d.repartition_sink_topics = sorted(s->repartition_sink_topics);
    for (const auto& r : s->repartition_source_topics)
      d.repartition_source_topics.push_back(topic_of(r.name, r.partitions, r.replication_factor, r.configs));
    for (const auto& c : s->state_changelog_topics)
      d.state_changelog_topics.push_back(topic_of(c.name, c.partitions, c.replication_factor, c.configs));
    sort_by_name(d.repartition_source_topics);
    sort_by_name(d.state_changelog_topics);
  }
  return out;
}

}  // namespace

described::described_group describe(const streams_group& group) {
  described::described_group out;
  out.group_id = group.group_id();
  out.group_epoch = group.group_epoch();
  out.group_state = std::string(to_string(group.state()));
  out.assignment_epoch = group.assignment_epoch();
  if (group.configured() && group.configured()->ready()) out.topology = configured_topology_of(*group.configured());
  else if (group.declared_topology()) out.topology = declared_topology_of(*group.declared_topology());
  for (const auto& [id, m] : group.members()) {
    auto& d = out.members.emplace_back();
    d.member_id = id;
    d.member_epoch = m.epoch;
    d.instance_id = m.metadata.instance_id;
    d.rack_id = m.metadata.rack_id;
    d.client_id = m.metadata.client_id;
    d.client_host = m.metadata.client_host;
    d.topology_epoch = m.metadata.topology_epoch;
    d.process_id = m.process_id;
    if (m.metadata.endpoint) {
      d.user_endpoint.emplace();
      d.user_endpoint->host = m.metadata.endpoint->host;
      d.user_endpoint->port = m.metadata.endpoint->port;
    }
    for (const auto& [key, value] : m.metadata.client_tags) {
      auto& kv = d.client_tags.emplace_back();
      kv.key = key;
      kv.value = value;
    }
    d.assignment.active_tasks = task_ids(m.assigned.active);
    d.assignment.standby_tasks = task_ids(m.assigned.standby);
    d.assignment.warmup_tasks = task_ids(m.assigned.warmup);
    if (auto t = group.target_assignment().find(id); t != group.target_assignment().end()) {
      d.target_assignment.active_tasks = task_ids(t->second.active);
      d.target_assignment.standby_tasks = task_ids(t->second.standby);
      d.target_assignment.warmup_tasks = task_ids(t->second.warmup);
    }
    d.is_classic = false;
  }
  return out;
}

}  // namespace hw::broker::group::streams
