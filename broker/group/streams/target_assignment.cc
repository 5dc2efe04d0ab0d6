// target_assignment: a streams group's next target assignment (see
// target_assignment.h).
#include "broker/group/streams/target_assignment.h"

#include "broker/group/consumer/java_hash_map.h"
#include "broker/group/consumer/java_keys.h"

namespace hw::broker::group::streams {

namespace {

using value_task_ids = msg::streams_group_target_assignment_member_value::task_ids;

std::vector<value_task_ids> task_ids_of(const task_set& tasks) {
  std::vector<value_task_ids> out;
  for (const auto& [id, partitions] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = id;
    t.partitions = {partitions.begin(), partitions.end()};
  }
  return out;
}

}  // namespace

target_assignment_member_record target_record(const std::string& group_id, const std::string& member_id,
                                              const tasks_tuple& target) {
  target_assignment_member_record r;
  r.key.group_id = group_id;
  r.key.member_id = member_id;
  r.value.emplace();
  r.value->active_tasks = task_ids_of(target.active);
  r.value->standby_tasks = task_ids_of(target.standby);
  r.value->warmup_tasks = task_ids_of(target.warmup);
  return r;
}

std::variant<streams_target_result, task_assignor_error> compute_streams_target(
    const streams_group& group, int32_t group_epoch, int64_t now_ms, const streams_member_change& change,
    const configured_topology& topology, int32_t num_standby_replicas) {
  // The member specs, in the order Kafka's HashMap walks them: the group's
  // members put first, then the heartbeat's change.
  consumer::java_hash_map<std::string, streams_member, consumer::java_string_key> specs;
  for (const auto& [id, m] : group.members()) specs.put(id, m);
  if (change.updated) specs.put(change.updated->member_id, *change.updated);
  if (change.removed) specs.erase(*change.removed);

  const auto& old_target = group.target_assignment();
  auto target_of = [&](const std::string& id) {
    auto it = old_target.find(id);
    return it == old_target.end() ? tasks_tuple{} : it->second;
  };
  std::map<std::string, member_tasks> assigned;
  if (topology.ready()) {
    task_assignment_input in;
    in.num_standby_replicas = num_standby_replicas;
    for (const auto& [id, s] : *topology.subtopologies) {
      in.tasks[id] = s.tasks;
      if (!s.state_changelog_topics.empty()) in.stateful.insert(id);
    }
    specs.for_each([&](const std::string& id, const streams_member& m) {
      // What the assignor starts from is the member's last target.
      const tasks_tuple last = target_of(id);
      in.members.push_back({id, m.process_id, last.active, last.standby, last.warmup});
    });
    auto result = sticky_assign(in);
    if (auto* e = std::get_if<task_assignor_error>(&result)) return *e;
    assigned = std::move(std::get<std::map<std::string, member_tasks>>(result));
  }

  streams_target_result out;
  specs.for_each([&](const std::string& id, const streams_member&) {
    tasks_tuple next;
    if (auto it = assigned.find(id); it != assigned.end()) next = {it->second.active, it->second.standby, it->second.warmup};
    out.target[id] = next;
    auto old = old_target.find(id);
    if (old == old_target.end() || old->second != next) out.records.push_back(target_record(group.group_id(), id, next));
  });
  target_assignment_epoch_record epoch;
  epoch.key.group_id = group.group_id();
  epoch.value.emplace();
  epoch.value->assignment_epoch = group_epoch;
  epoch.value->assignment_timestamp = now_ms;
  out.records.push_back(std::move(epoch));
  return out;
}

}  // namespace hw::broker::group::streams
