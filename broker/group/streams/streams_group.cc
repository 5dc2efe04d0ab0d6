// streams_group: one streams group replayed from its records (see
// streams_group.h).
#include "broker/group/streams/streams_group.h"

namespace hw::broker::group::streams {

std::string_view to_string(streams_group_state state) {
  switch (state) {
    case streams_group_state::empty: return "Empty";
    case streams_group_state::not_ready: return "NotReady";
    case streams_group_state::assigning: return "Assigning";
    case streams_group_state::reconciling: return "Reconciling";
    case streams_group_state::stable: return "Stable";
    case streams_group_state::dead: return "Dead";
  }
  return "Dead";
}

const streams_member* streams_group::member(const std::string& member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

streams_group_state streams_group::state() const {
  if (deleted_) return streams_group_state::dead;
  if (members_.empty()) return streams_group_state::empty;
  if (!topology_ || topology_->epoch != validated_topology_epoch_) return streams_group_state::not_ready;
  if (group_epoch_ > assignment_epoch_) return streams_group_state::assigning;
  for (const auto& [id, m] : members_)
    if (m.state != streams_member_state::stable || m.epoch != assignment_epoch_) return streams_group_state::reconciling;
  return streams_group_state::stable;
}

std::optional<std::string> streams_group::active_process(const std::string& subtopology, int32_t partition) const {
  auto it = active_.find({subtopology, partition});
  return it == active_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

namespace {

std::set<std::string> processes_of(const std::map<std::pair<std::string, int32_t>, std::map<std::string, int>>& held,
                                   const std::string& subtopology, int32_t partition) {
  std::set<std::string> out;
  if (auto it = held.find({subtopology, partition}); it != held.end())
    for (const auto& [process, count] : it->second) out.insert(process);
  return out;
}

void count(std::map<std::pair<std::string, int32_t>, std::map<std::string, int>>& held, const task_set& tasks,
           const std::string& process, int delta) {
  for (const auto& [id, partitions] : tasks) {
    for (int32_t p : partitions) {
      auto& processes = held[{id, p}];
      if ((processes[process] += delta) <= 0) processes.erase(process);
      if (processes.empty()) held.erase({id, p});
    }
  }
}

}  // namespace

std::set<std::string> streams_group::standby_processes(const std::string& subtopology, int32_t partition) const {
  return processes_of(standby_, subtopology, partition);
}
std::set<std::string> streams_group::warmup_processes(const std::string& subtopology, int32_t partition) const {
  return processes_of(warmup_, subtopology, partition);
}

// Adds (+1) or removes (-1) what a member holds from who-holds-what. An
// active task's holder is the last process set (Kafka logs a conflict and
// overwrites); removing clears it only when it is still this process.
void streams_group::hold(const streams_member& m, int delta) {
  for (const auto* tasks : {&m.assigned, &m.pending_revocation}) {
    for (const auto& [id, epochs] : tasks->active) {
      for (const auto& [p, e] : epochs) {
        if (delta > 0) active_[{id, p}] = m.process_id;
        else if (auto it = active_.find({id, p}); it != active_.end() && it->second == m.process_id) active_.erase(it);
      }
    }
    count(standby_, tasks->standby, m.process_id, delta);
    count(warmup_, tasks->warmup, m.process_id, delta);
  }
}

void streams_group::update_member(const std::string& member_id, streams_member next) {
  auto it = members_.find(member_id);
  if (it != members_.end()) {
    hold(it->second, -1);
    it->second = std::move(next);
  } else {
    it = members_.emplace(member_id, std::move(next)).first;
  }
  hold(it->second, +1);
}

std::optional<std::string> streams_group::replay(const streams_group_record& record) {
  return std::visit([&](const auto& r) { return apply(r); }, record);
}

std::optional<std::string> streams_group::apply(const group_metadata_record& r) {
  if (r.value) {
    group_epoch_ = r.value->epoch;
    metadata_hash_ = r.value->metadata_hash;
    validated_topology_epoch_ = r.value->validated_topology_epoch;
    last_assignment_configs_.clear();
    if (r.value->last_assignment_configs)
      for (const auto& c : *r.value->last_assignment_configs) last_assignment_configs_[c.key] = c.value;
    return std::nullopt;
  }
  if (!members_.empty()) {
    return "Received a tombstone record to delete group " + group_id_ + " but the group still has " +
           std::to_string(members_.size()) + " members.";
  }
  if (assignment_epoch_ != -1) {
    return "Received a tombstone record to delete group " + group_id_ +
           " but did not receive StreamsGroupTargetAssignmentMetadataValue tombstone.";
  }
  deleted_ = true;
  return std::nullopt;
}

streams_member streams_group::member_or_new(const std::string& id) const {
  auto it = members_.find(id);
  if (it != members_.end()) return it->second;
  streams_member fresh;
  fresh.member_id = id;
  return fresh;
}

std::optional<std::string> streams_group::apply(const member_metadata_record& r) {
  const std::string& id = r.key.member_id;
  if (r.value) {
    streams_member next = member_or_new(id);
    next.metadata = metadata_from(*r.value, next.process_id);
    update_member(id, std::move(next));
    return std::nullopt;
  }
  auto it = members_.find(id);
  if (it == members_.end()) return std::nullopt;
  if (it->second.epoch != -1) {
    return "Received a tombstone record to delete member " + id +
           " but did not receive StreamsGroupCurrentMemberAssignmentValue tombstone.";
  }
  if (target_.count(id)) {
    return "Received a tombstone record to delete member " + id +
           " but did not receive StreamsGroupTargetAssignmentMetadataValue tombstone.";
  }
  hold(it->second, -1);
  members_.erase(it);
  return std::nullopt;
}

std::optional<std::string> streams_group::apply(const target_assignment_epoch_record& r) {
  if (r.value) {
    assignment_epoch_ = r.value->assignment_epoch;
    assignment_timestamp_ms_ = r.value->assignment_timestamp;
    return std::nullopt;
  }
  if (!target_.empty()) {
    return "Received a tombstone record to delete target assignment of " + group_id_ +
           " but the assignment still has " + std::to_string(target_.size()) + " members.";
  }
  assignment_epoch_ = -1;
  assignment_timestamp_ms_ = 0;
  return std::nullopt;
}

std::optional<std::string> streams_group::apply(const target_assignment_member_record& r) {
  if (r.value) target_[r.key.member_id] = target_from(*r.value);
  else target_.erase(r.key.member_id);
  return std::nullopt;
}

std::optional<std::string> streams_group::apply(const current_assignment_record& r) {
  const std::string& id = r.key.member_id;
  if (r.value) {
    streams_member next = member_or_new(id);
    assignment_from(*r.value, next);
    update_member(id, std::move(next));
    return std::nullopt;
  }
  // A tombstone leaves the member unassigned until its metadata's goes too.
  auto it = members_.find(id);
  if (it == members_.end()) return std::nullopt;
  streams_member next = it->second;
  next.epoch = -1;
  next.previous_epoch = -1;
  next.assigned = {};
  next.pending_revocation = {};
  update_member(id, std::move(next));
  return std::nullopt;
}

std::optional<std::string> streams_group::apply(const topology_record& r) {
  if (r.value) topology_ = topology_from(*r.value);
  else topology_.reset();
  configured_.reset();
  return std::nullopt;
}

// --- Records of a member -------------------------------------------------

streams_member_metadata metadata_from(const msg::streams_group_member_metadata_value& v, std::string& process_id) {
  streams_member_metadata m;
  m.instance_id = v.instance_id;
  m.rack_id = v.rack_id;
  m.client_id = v.client_id;
  m.client_host = v.client_host;
  m.rebalance_timeout_ms = v.rebalance_timeout_ms;
  m.topology_epoch = v.topology_epoch;
  if (v.user_endpoint) m.endpoint = user_endpoint{v.user_endpoint->host, v.user_endpoint->port};
  for (const auto& kv : v.client_tags) m.client_tags[kv.key] = kv.value;
  process_id = v.process_id;
  return m;
}

msg::streams_group_member_metadata_value to_value(const streams_member_metadata& m, const std::string& process_id) {
  msg::streams_group_member_metadata_value v;
  v.instance_id = m.instance_id;
  v.rack_id = m.rack_id;
  v.client_id = m.client_id;
  v.client_host = m.client_host;
  v.rebalance_timeout_ms = m.rebalance_timeout_ms;
  v.topology_epoch = m.topology_epoch;
  v.process_id = process_id;
  if (m.endpoint) {
    v.user_endpoint.emplace();
    v.user_endpoint->host = m.endpoint->host;
    v.user_endpoint->port = m.endpoint->port;
  }
  for (const auto& [key, value] : m.client_tags) {
    auto& kv = v.client_tags.emplace_back();
    kv.key = key;
    kv.value = value;
  }
  return v;
}

namespace {

using record_task_ids = msg::streams_group_current_member_assignment_value::task_ids;

task_epochs active_with_epochs(const std::vector<record_task_ids>& ids, int32_t member_epoch) {
  task_epochs out;
  for (const auto& t : ids) {
    auto& partitions = out[t.subtopology_id];
    const bool epochs_fit = t.assignment_epochs && t.assignment_epochs->size() == t.partitions.size();
    for (size_t i = 0; i < t.partitions.size(); ++i)
      partitions[t.partitions[i]] = epochs_fit ? (*t.assignment_epochs)[i] : member_epoch;
  }
  return out;
}

task_set tasks_of(const std::vector<record_task_ids>& ids) {
  task_set out;
  for (const auto& t : ids) out[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

}  // namespace

void assignment_from(const msg::streams_group_current_member_assignment_value& v, streams_member& m) {
  m.epoch = v.member_epoch;
  m.previous_epoch = v.previous_member_epoch;
  m.state = streams_member_state_from_value(v.state);
  m.assigned.active = active_with_epochs(v.active_tasks, v.member_epoch);
  m.assigned.standby = tasks_of(v.standby_tasks);
  m.assigned.warmup = tasks_of(v.warmup_tasks);
  m.pending_revocation.active = active_with_epochs(v.active_tasks_pending_revocation, v.member_epoch);
  m.pending_revocation.standby = tasks_of(v.standby_tasks_pending_revocation);
  m.pending_revocation.warmup = tasks_of(v.warmup_tasks_pending_revocation);
}

tasks_tuple target_from(const msg::streams_group_target_assignment_member_value& v) {
  tasks_tuple out;
  for (const auto& t : v.active_tasks) out.active[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  for (const auto& t : v.standby_tasks) out.standby[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  for (const auto& t : v.warmup_tasks) out.warmup[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

}  // namespace hw::broker::group::streams
