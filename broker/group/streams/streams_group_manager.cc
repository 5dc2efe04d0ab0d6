// streams_group_manager: the shard's streams groups and their heartbeat
// (see streams_group_manager.h).
#include "broker/group/streams/streams_group_manager.h"

#include "broker/group/consumer/metadata_hash.h"
#include "broker/group/group_draft.h"
#include "broker/group/heartbeat_interval.h"
#include "broker/group/streams/endpoints.h"
#include "broker/group/streams/target_assignment.h"
#include "broker/group/streams/task_reconciliation.h"

namespace hw::broker::group::streams {

namespace msg = protocol::msg;
using protocol::error_code;

// One call's records (broker/group/group_draft.h).
class streams_draft : public group_draft<streams_group, streams_group_record> {
 public:
  explicit streams_draft(const streams_group& base) : group_draft(base, "streams group") {}
  static streams_draft of_new_group(const std::string& group_id) {
    return streams_draft(group_draft::of_new_group(group_id, "streams group"));
  }
  void set_configured(std::optional<configured_topology> c) { writable().set_configured(std::move(c)); }

 private:
  explicit streams_draft(group_draft base) : group_draft(std::move(base)) {}
};

namespace {

using draft = streams_draft;

group_metadata_record metadata_record(const std::string& group_id, int32_t epoch, int64_t hash, int32_t validated,
                                      const std::map<std::string, std::string>& configs) {
  group_metadata_record r;
  r.key.group_id = group_id;
  r.value.emplace();
  r.value->epoch = epoch;
  r.value->metadata_hash = hash;
  r.value->validated_topology_epoch = validated;
  r.value->last_assignment_configs.emplace();
  for (const auto& [key, value] : configs) r.value->last_assignment_configs->push_back({key, value, {}});
  return r;
}

member_metadata_record member_record(const std::string& group_id, const streams_member& m) {
  member_metadata_record r;
  r.key.group_id = group_id;
  r.key.member_id = m.member_id;
  r.value = to_value(m.metadata, m.process_id);
  return r;
}

using current_task_ids = msg::streams_group_current_member_assignment_value::task_ids;

std::vector<current_task_ids> ids_of(const task_set& tasks) {
  std::vector<current_task_ids> out;
  for (const auto& [id, ps] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = id;
    t.partitions = {ps.begin(), ps.end()};
  }
  return out;
}

std::vector<current_task_ids> ids_of(const task_epochs& tasks) {
  std::vector<current_task_ids> out;
  for (const auto& [id, ps] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = id;
    t.assignment_epochs.emplace();
    for (const auto& [p, e] : ps) {
      t.partitions.push_back(p);
      t.assignment_epochs->push_back(e);
    }
  }
  return out;
}

current_assignment_record assignment_record(const std::string& group_id, const streams_member& m) {
  current_assignment_record r;
  r.key.group_id = group_id;
  r.key.member_id = m.member_id;
  r.value.emplace();
  r.value->member_epoch = m.epoch;
  r.value->previous_member_epoch = m.previous_epoch;
  r.value->state = static_cast<int8_t>(m.state);
  r.value->active_tasks = ids_of(m.assigned.active);
  r.value->standby_tasks = ids_of(m.assigned.standby);
  r.value->warmup_tasks = ids_of(m.assigned.warmup);
  r.value->active_tasks_pending_revocation = ids_of(m.pending_revocation.active);
  r.value->standby_tasks_pending_revocation = ids_of(m.pending_revocation.standby);
  r.value->warmup_tasks_pending_revocation = ids_of(m.pending_revocation.warmup);
  return r;
}

using request_task_ids = msg::streams_group_heartbeat_request::task_ids;

task_set tasks_of(const std::vector<request_task_ids>& ids) {
  task_set out;
  for (const auto& t : ids) out[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

// Kafka's areOwnedTasksContainedInAssignedTasks: every owned task is assigned.
template <class Held>
bool contained(const std::optional<std::vector<request_task_ids>>& owned, const std::map<std::string, Held>& assigned) {
  if (!owned) return false;
  for (const auto& t : *owned) {
    auto it = assigned.find(t.subtopology_id);
    if (it == assigned.end()) return false;
    for (int32_t p : t.partitions)
      if (!it->second.count(p)) return false;
  }
  return true;
}

std::optional<streams_refusal> check_epoch(const streams_member& m, const msg::streams_group_heartbeat_request& r) {
  const int32_t received = r.member_epoch;
  if (received == 0) return std::nullopt;
  auto fenced = [&](const char* which) {
    return streams_refusal{error_code::fenced_member_epoch,
                           std::string("The streams group member has a ") + which + " member epoch (" +
                               std::to_string(received) + ") than the one known by the group coordinator (" +
                               std::to_string(m.epoch) + "). The member must abandon all its partitions and rejoin."};
  };
  if (received > m.epoch) return fenced("greater");
  if (received < m.epoch &&
      (received != m.previous_epoch || !contained(r.active_tasks, m.assigned.active) ||
       !contained(r.standby_tasks, m.assigned.standby) || !contained(r.warmup_tasks, m.assigned.warmup)))
    return fenced("smaller");
  return std::nullopt;
}

// A task the member says it owns must exist in the configured topology.
std::optional<streams_refusal> check_tasks(const std::map<std::string, configured_subtopology>& subtopologies,
                                           const std::optional<std::vector<request_task_ids>>& tasks) {
  if (!tasks) return std::nullopt;
  for (const auto& t : *tasks) {
    auto s = subtopologies.find(t.subtopology_id);
    if (s == subtopologies.end())
      return streams_refusal{error_code::invalid_request,
                             "Subtopology " + t.subtopology_id + " does not exist in the topology."};
    for (int32_t p : t.partitions) {
      if (p < 0 || p >= s->second.tasks) {
        return streams_refusal{error_code::invalid_request,
                               "Task " + std::to_string(p) + " for subtopology " + t.subtopology_id +
                                   " is invalid. Number of tasks for this subtopology: " +
                                   std::to_string(s->second.tasks)};
      }
    }
  }
  return std::nullopt;
}

int64_t metadata_hash_of(const topology& t, const consumer::topic_image_view& topics) {
  std::map<std::string, int64_t> hashes;
  for (const auto& name : required_topics(t)) {
    auto id = topics.topic_id(name);
    if (!id) continue;
    hashes[name] = consumer::topic_hash({*id, name, topics.partition_count(*id), topics.partition_racks(*id)});
  }
  return consumer::group_metadata_hash(hashes);
}

std::vector<msg::streams_group_heartbeat_response::task_ids> response_ids(const task_set& tasks) {
  std::vector<msg::streams_group_heartbeat_response::task_ids> out;
  for (const auto& [id, ps] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = id;
    t.partitions = {ps.begin(), ps.end()};
  }
  return out;
}

task_set without_epochs(const task_epochs& tasks) {
  task_set out;
  for (const auto& [id, ps] : tasks)
    for (const auto& [p, e] : ps) out[id].insert(p);
  return out;
}

void add_status(msg::streams_group_heartbeat_response& r, topology_status code, std::string detail) {
  if (!r.status) r.status.emplace();
  auto& s = r.status->emplace_back();
  s.status_code = static_cast<int8_t>(code);
  s.status_detail = std::move(detail);
}

}  // namespace

streams_heartbeat_outcome streams_group_manager::refuse(error_code code, std::string message) const {
  streams_heartbeat_outcome out;
  out.response.error_code = static_cast<int16_t>(code);
  out.response.error_message = std::move(message);
  return out;
}

const streams_group* streams_group_manager::group(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

std::optional<std::string> streams_group_manager::replay(const streams_group_record& record) {
  const auto& id = group_of(record);
  // A tombstone of a group that is not there is ignored, as Kafka's replay does.
  const bool tombstone = std::visit([](const auto& r) { return !r.value.has_value(); }, record);
  if (tombstone && !groups_.count(id)) return std::nullopt;
  auto it = groups_.try_emplace(id, id).first;
  auto error = it->second.replay(record);
  if (it->second.deleted()) groups_.erase(it);
  return error;
}

void streams_group_manager::activate(int64_t now_ms) {
  for (const auto& [group_id, g] : groups_)
    for (const auto& [member_id, m] : g.members())
      sessions_[{group_id, member_id}] = now_ms + options_for(group_id).session_timeout_ms;
}

streams_group_options streams_group_manager::options_for(const std::string& group_id) const {
  streams_group_options o = options_;
  if (!configs_) return o;
  auto override_with = [&](std::string_view key, int32_t& value) {
    value = configs_->group_config_int(group_id, key).value_or(value);
  };
  override_with("streams.session.timeout.ms", o.session_timeout_ms);
  override_with("streams.heartbeat.interval.ms", o.heartbeat_interval_ms);
  override_with("streams.num.standby.replicas", o.num_standby_replicas);
  override_with("streams.initial.rebalance.delay.ms", o.initial_rebalance_delay_ms);
  override_with("streams.assignment.interval.ms", o.assignment_interval_ms);
  return o;
}

void streams_group_manager::clear() {
  groups_.clear();
  sessions_.clear();
  initial_delays_.clear();
  revocations_.clear();
  shutdown_requests_.clear();
  endpoint_epochs_.clear();
}

std::optional<streams_group> streams_group_manager::snapshot(const std::string& group_id) const {
  const auto* g = group(group_id);
  return g ? std::optional<streams_group>(*g) : std::nullopt;
}

void streams_group_manager::restore(const std::string& group_id, std::optional<streams_group> was, int64_t now_ms) {
  std::erase_if(sessions_, [&](const auto& s) {
    return s.first.first == group_id && (!was || !was->member(s.first.second));
  });
  if (!was) {
    groups_.erase(group_id);
    return;
  }
  for (const auto& [member_id, m] : was->members())
    sessions_.try_emplace({group_id, member_id}, now_ms + options_for(group_id).session_timeout_ms);
  groups_.insert_or_assign(group_id, std::move(*was));
}

std::vector<streams_group_record> deletion_records(const streams_group& group) {
  const std::string& id = group.group_id();
  std::vector<streams_group_record> out;
  for (const auto& [member_id, m] : group.members())
    out.push_back(consumer::member_tombstone<current_assignment_record>(id, member_id));
  for (const auto& [member_id, m] : group.members())
    out.push_back(consumer::member_tombstone<target_assignment_member_record>(id, member_id));
  target_assignment_epoch_record target;
  target.key.group_id = id;
  out.push_back(std::move(target));
  for (const auto& [member_id, m] : group.members())
    out.push_back(consumer::member_tombstone<member_metadata_record>(id, member_id));
  group_metadata_record epoch;
  epoch.key.group_id = id;
  out.push_back(std::move(epoch));
  topology_record topology;
  topology.key.group_id = id;
  out.push_back(std::move(topology));
  return out;
}

std::vector<streams_group_record> streams_group_manager::delete_group(const std::string& group_id) {
  auto git = groups_.find(group_id);
  if (git == groups_.end()) return {};
  auto records = deletion_records(git->second);
  for (const auto& r : records) (void)replay(r);
  std::erase_if(sessions_, [&](const auto& s) { return s.first.first == group_id; });
  std::erase_if(revocations_, [&](const auto& r) { return r.first.first == group_id; });
  groups_.erase(group_id);
  return records;
}

std::vector<std::string> streams_group_manager::groups_with_ended_sessions(int64_t now_ms) const {
  std::set<std::string> out;
  for (const auto& [key, deadline] : sessions_)
    if (deadline <= now_ms) out.insert(key.first);
  for (const auto& [key, r] : revocations_)
    if (r.deadline_ms <= now_ms) out.insert(key.first);
  return {out.begin(), out.end()};
}

std::vector<streams_group_record> streams_group_manager::fence(streams_group& group, const std::string& member_id) {
  draft d(group);
  const std::string& id = group.group_id();
  d.add(consumer::member_tombstone<current_assignment_record>(id, member_id));
  d.add(consumer::member_tombstone<target_assignment_member_record>(id, member_id));
  d.add(consumer::member_tombstone<member_metadata_record>(id, member_id));
  d.add(metadata_record(id, group.group_epoch() + 1, group.metadata_hash(), group.validated_topology_epoch(),
                        group.last_assignment_configs()));
  if (d.error) return {};
  sessions_.erase({id, member_id});
  revocations_.erase({id, member_id});
  group = std::move(d).take();
  if (group.members().empty()) {
    shutdown_requests_.erase(id);
    endpoint_epochs_.erase(id);
  }
  return std::move(d.records);
}

namespace {

using refusal_or = std::optional<streams_refusal>;

// Who the heartbeat comes from: the member as known, or a new one with
// Kafka's defaults when it joins; its epoch checked.
std::variant<streams_member, streams_refusal> identify(const streams_group& group,
                                                       const msg::streams_group_heartbeat_request& request,
                                                       const streams_group_options& options) {
  const bool joining = request.member_epoch == 0;
  if (joining && static_cast<int64_t>(group.members().size()) >= options.max_size) {
    return streams_refusal{error_code::group_max_size_reached, "The streams group has reached its maximum capacity of " +
                                                                   std::to_string(options.max_size) + " members."};
  }
  streams_member member;
  if (const auto* found = group.member(request.member_id)) {
    member = *found;
  } else if (joining) {
    member.member_id = request.member_id;
    member.epoch = 0;
    member.previous_epoch = 0;
    member.metadata.topology_epoch = -1;
  } else {
    return streams_refusal{error_code::unknown_member_id,
                           "Member " + request.member_id + " is not a member of group " + request.group_id + "."};
  }
  if (auto refused = check_epoch(member, request)) return *refused;
  return member;
}

// The member with the heartbeat's metadata applied (a field left null keeps its value).
streams_member with_metadata(streams_member m, const msg::streams_group_heartbeat_request& request,
                             const std::string& client_id, const std::string& client_host) {
  auto& md = m.metadata;
  if (request.rack_id) md.rack_id = request.rack_id;
  if (request.rebalance_timeout_ms != -1) md.rebalance_timeout_ms = request.rebalance_timeout_ms;
  if (request.topology) md.topology_epoch = request.topology->epoch;
  md.client_id = client_id;
  md.client_host = client_host;
  if (request.process_id) m.process_id = *request.process_id;
  if (request.client_tags) {
    md.client_tags.clear();
    for (const auto& kv : *request.client_tags) md.client_tags[kv.key] = kv.value;
  }
  if (request.user_endpoint) md.endpoint = user_endpoint{request.user_endpoint->host, request.user_endpoint->port};
  return m;
}

// The group's topology: the first member's initialises it (its record
// into the draft); a member behind it is told it is stale.
std::variant<topology, streams_refusal> group_topology(draft& d, const msg::streams_group_heartbeat_request& request,
                                                       const streams_member& member,
                                                       msg::streams_group_heartbeat_response& response) {
  const auto& existing = d.group().declared_topology();
  topology out;
  if (request.topology) {
    topology declared = topology_from(*request.topology);
    if (!existing) {
      topology_record t;
      t.key.group_id = d.group().group_id();
      t.value = to_value(declared);
      d.add(std::move(t));
      return declared;
    }
    if (existing->epoch <= declared.epoch && *existing != declared)
      return streams_refusal{error_code::invalid_request, "Topology updates are not supported yet."};
    out = *existing;
  } else if (existing) {
    out = *existing;
  } else {
    return streams_refusal{error_code::unknown_server_error,
                           "The topology is null and the group topology is also null."};
  }
  if (member.metadata.topology_epoch < out.epoch) {
    add_status(response, topology_status::stale_topology,
               "The member's topology epoch " + std::to_string(member.metadata.topology_epoch) +
                   " is behind the group's topology epoch " + std::to_string(out.epoch) + ".");
  }
  return out;
}

// The topology against the image, configured again when the group had none
// or its topics changed (metadata hash); the group record when the epoch
// moves (`bump` already, a new hash, a newly validated topology epoch, other
// assignment configs).
std::variant<configured_topology, streams_refusal> configure(draft& d, const topology& t, bool new_topology, bool bump,
                                                             const msg::streams_group_heartbeat_request& request,
                                                             const consumer::topic_image_view& topics,
                                                             const streams_group_options& options) {
  const int64_t hash = metadata_hash_of(t, topics);
  if (hash != d.group().metadata_hash()) bump = true;
  std::optional<configured_topology> configured = d.group().configured();
  const bool configure_again = new_topology || !configured || hash != d.group().metadata_hash();
  if (configure_again) {
    auto result = configure_topics(t, hash, [&](const std::string& name) -> std::optional<int32_t> {
      auto id = topics.topic_id(name);
      return id ? std::optional<int32_t>(topics.partition_count(*id)) : std::nullopt;
    });
    if (auto* failed = std::get_if<topology_failure>(&result)) return streams_refusal{failed->code, failed->message};
    configured = std::get<configured_topology>(result);
  }
  int32_t validated = -1;
  if (configured->ready()) {
    validated = t.epoch;
    for (const auto* owned : {&request.active_tasks, &request.standby_tasks, &request.warmup_tasks})
      if (auto refused = check_tasks(*configured->subtopologies, *owned)) return *refused;
  }
  if (validated != d.group().validated_topology_epoch()) bump = true;
  const std::map<std::string, std::string> configs{{"num.standby.replicas", std::to_string(options.num_standby_replicas)}};
  if (configs != d.group().last_assignment_configs()) bump = true;
  if (bump) d.add(metadata_record(d.group().group_id(), d.group().group_epoch() + 1, hash, validated, configs));
  // Kept with the group when configured anew, or when a topology record of
  // this call cleared it.
  if (configure_again || !d.group().configured()) d.set_configured(configured);
  return *configured;
}

// The member's next step towards its target (its record when it moves).
std::variant<streams_member, streams_refusal> reconcile(draft& d, const streams_member& member,
                                                        const msg::streams_group_heartbeat_request& request) {
  if (member.state == streams_member_state::stable && member.epoch == d.group().assignment_epoch()) return member;
  task_reconciliation_input in;
  in.target_epoch = d.group().assignment_epoch();
  if (auto t = d.group().target_assignment().find(member.member_id); t != d.group().target_assignment().end())
    in.target = t->second;
  if (request.active_tasks && request.standby_tasks && request.warmup_tasks)
    in.owned = tasks_tuple{tasks_of(*request.active_tasks), tasks_of(*request.standby_tasks),
                           tasks_of(*request.warmup_tasks)};
  const streams_group& g = d.group();
  in.owners.active_process = [&g](const std::string& s, int32_t p) { return g.active_process(s, p); };
  in.owners.standby_processes = [&g](const std::string& s, int32_t p) { return g.standby_processes(s, p); };
  in.owners.warmup_processes = [&g](const std::string& s, int32_t p) { return g.warmup_processes(s, p); };
  auto step = reconcile_tasks(member, in);
  if (step.error != error_code::none) return streams_refusal{step.error, step.error_message};
  if (step.next != member) d.add(assignment_record(d.group().group_id(), step.next));
  return step.next;
}

}  // namespace

streams_heartbeat_outcome streams_group_manager::heartbeat(const msg::streams_group_heartbeat_request& request,
                                                           const std::string& client_id,
                                                           const std::string& client_host,
                                                           const consumer::topic_image_view& topics, int64_t now_ms) {
  if (auto refused = check_streams_heartbeat(request)) return refuse(refused->code, refused->message);
  if (request.member_epoch == -1) return leave(request);
  auto git = groups_.find(request.group_id);
  const bool joining = request.member_epoch == 0;
  if (git == groups_.end() && !joining)
    return refuse(error_code::group_id_not_found, "Streams group " + request.group_id + " not found.");
  draft d = git == groups_.end() ? draft::of_new_group(request.group_id) : draft(git->second);
  const bool was_empty = d.group().members().empty();

  // 1. Who it is, and its metadata.
  const streams_group_options options = options_for(request.group_id);
  auto identified = identify(d.group(), request, options);
  if (auto* refused = std::get_if<streams_refusal>(&identified)) return refuse(refused->code, refused->message);
  const streams_member member = std::get<streams_member>(identified);
  const streams_member updated = with_metadata(member, request, client_id, client_host);
  const bool bump = !d.group().member(request.member_id) || updated != member;
  if (bump) d.add(member_record(d.group().group_id(), updated));

  // 2. The topology, configured against the image, and the group epoch.
  msg::streams_group_heartbeat_response response;
  response.status.emplace();  // Kafka answers a list, empty when all is well
  const bool new_topology = !d.group().declared_topology();
  auto t = group_topology(d, request, updated, response);
  if (auto* refused = std::get_if<streams_refusal>(&t)) return refuse(refused->code, refused->message);
  auto configured = configure(d, std::get<topology>(t), new_topology, bump, request, topics, options);
  if (auto* refused = std::get_if<streams_refusal>(&configured)) return refuse(refused->code, refused->message);
  const auto& config = std::get<configured_topology>(configured);

  // 3. A target for the group epoch.
  if (auto refused = next_target(d, updated, config, options, was_empty, now_ms, response))
    return refuse(refused->code, refused->message);

  // 4. The member's next step towards its target.
  auto stepped = reconcile(d, updated, request);
  if (auto* refused = std::get_if<streams_refusal>(&stepped)) return refuse(refused->code, refused->message);
  const streams_member current = std::get<streams_member>(stepped);
  if (d.error) return refuse(error_code::unknown_server_error, *d.error);

  streams_heartbeat_outcome out;
  if (git == groups_.end()) {
    groups_.emplace(request.group_id, std::move(d).take());
  } else if (d.changed()) {
    out.before = std::move(git->second);
    git->second = std::move(d).take();
  }
  track(request.group_id, updated, current, options, now_ms);
  for (const auto& r : d.records)
    if (const auto* m = std::get_if<group_metadata_record>(&r); m && m->value) ++rebalances_;
  out.records = std::move(d.records);
  if (config.error) out.to_create = config.to_create;
  answer(response, request, member, current, git == groups_.end(), config, topics);
  response.heartbeat_interval_ms = answered_heartbeat_interval(
      options.heartbeat_interval_ms, current.state == streams_member_state::unreleased_tasks);
  out.response = std::move(response);
  return out;
}

std::optional<streams_refusal> streams_group_manager::next_target(draft& d, const streams_member& updated,
                                                                  const configured_topology& config,
                                                                  const streams_group_options& options,
                                                                  bool was_empty, int64_t now_ms,
                                                                  msg::streams_group_heartbeat_response& response) {
  // Not while a group that had no members waits for more.
  const std::string& group_id = d.group().group_id();
  if (was_empty && options.initial_rebalance_delay_ms > 0)
    initial_delays_.try_emplace(group_id, now_ms + options.initial_rebalance_delay_ms);
  if (auto delay = initial_delays_.find(group_id); delay != initial_delays_.end() && delay->second <= now_ms)
    initial_delays_.erase(delay);  // ended: this heartbeat computes the target
  if (initial_delays_.count(group_id)) {
    add_status(response, topology_status::assignment_delayed,
               "Assignment delayed due to the configured initial rebalance delay.");
    return std::nullopt;
  }
  if (d.group().assignment_epoch() >= d.group().group_epoch()) return std::nullopt;
  // At most every assignment interval.
  const bool interval_passed = d.group().assignment_timestamp_ms() == 0 || options.assignment_interval_ms == 0 ||
                               now_ms >= d.group().assignment_timestamp_ms() + options.assignment_interval_ms;
  if (!interval_passed) {
    add_status(response, topology_status::assignment_delayed,
               "Assignment delayed due to the configured assignment interval.");
    return std::nullopt;
  }
  auto target = compute_streams_target(d.group(), d.group().group_epoch(), now_ms, {updated, std::nullopt}, config,
                                       options.num_standby_replicas);
  if (auto* e = std::get_if<task_assignor_error>(&target)) return streams_refusal{error_code::unknown_server_error, e->message};
  for (auto& r : std::get<streams_target_result>(target).records) d.add(std::move(r));
  return std::nullopt;
}

void streams_group_manager::track(const std::string& group_id, const streams_member& before,
                                  const streams_member& after, const streams_group_options& options, int64_t now_ms) {
  const auto key = std::make_pair(group_id, after.member_id);
  sessions_[key] = now_ms + options.session_timeout_ms;
  // A member asked to revoke tasks has its rebalance timeout to do it.
  if (after == before) return;
  if (after.state == streams_member_state::unrevoked_tasks)
    revocations_[key] = {now_ms + after.metadata.rebalance_timeout_ms, after.epoch};
  else
    revocations_.erase(key);
}

void streams_group_manager::answer(msg::streams_group_heartbeat_response& response,
                                   const msg::streams_group_heartbeat_request& request, const streams_member& member,
                                   const streams_member& current, bool created, const configured_topology& config,
                                   const consumer::topic_image_view& topics) {
  const std::string& group_id = request.group_id;
  response.member_id = request.member_id;
  response.member_epoch = current.epoch;
  // Also to a member at its previous epoch: the answer that moved it on
  // was lost (its coordinator died before sending it), so it never heard of
  // the tasks that answer gave. Kafka 4.3.1 sends none then, and the member
  // stays without them until the next rebalance.
  const bool answer_lost = request.member_epoch > 0 && request.member_epoch < member.epoch;
  if (request.member_epoch == 0 || answer_lost || current.assigned != member.assigned) {
    response.active_tasks = response_ids(without_epochs(current.assigned.active));
    response.standby_tasks = response_ids(current.assigned.standby);
    response.warmup_tasks = response_ids(current.assigned.warmup);
    // Who holds what changed: the endpoint information moves on (a group
    // this heartbeat creates starts again at 0, as Kafka's does).
    if (current.metadata.endpoint && !created) ++endpoint_epochs_[group_id];
  }
  const int32_t endpoint_epoch = endpoint_epochs_[group_id];
  if (endpoint_epoch != request.endpoint_information_epoch)
    response.partitions_by_user_endpoint = endpoint_partitions(groups_.at(group_id), current, topics);
  if (!created) response.endpoint_information_epoch = endpoint_epoch;
  if (config.error) add_status(response, config.error->status, config.error->message);
  // A member's fatal error stops the whole application: every member is told.
  if (request.shutdown_application) shutdown_requests_.try_emplace(group_id, request.member_id);
  if (auto s = shutdown_requests_.find(group_id); s != shutdown_requests_.end()) {
    add_status(response, topology_status::shutdown_application,
               "Streams group member " + s->second +
                   " encountered a fatal error and requested a shutdown for the entire application.");
  }
}

streams_heartbeat_outcome streams_group_manager::leave(const msg::streams_group_heartbeat_request& request) {
  auto git = groups_.find(request.group_id);
  if (git == groups_.end())
    return refuse(error_code::group_id_not_found, "Streams group " + request.group_id + " not found.");
  if (!git->second.member(request.member_id)) {
    return refuse(error_code::unknown_member_id,
                  "Member " + request.member_id + " is not a member of group " + request.group_id + ".");
  }
  streams_heartbeat_outcome out;
  out.before = git->second;
  out.records = fence(git->second, request.member_id);
  out.response.member_id = request.member_id;
  out.response.member_epoch = -1;
  out.response.status.emplace();
  return out;
}

std::vector<streams_group_record> streams_group_manager::expire_sessions(int64_t now_ms) {
  std::vector<streams_group_record> out;
  for (const auto& group_id : groups_with_ended_sessions(now_ms)) {
    auto records = expire_sessions_of(group_id, now_ms);
    out.insert(out.end(), records.begin(), records.end());
  }
  return out;
}

std::vector<streams_group_record> streams_group_manager::expire_sessions_of(const std::string& group_id,
                                                                            int64_t now_ms) {
  std::set<std::string> ended;
  for (auto it = sessions_.lower_bound({group_id, ""}); it != sessions_.end() && it->first.first == group_id; ++it)
    if (it->second <= now_ms) ended.insert(it->first.second);
  // A member that did not revoke its tasks within its rebalance timeout,
  // still at the epoch it was asked at, is fenced too.
  for (auto it = revocations_.lower_bound({group_id, ""}); it != revocations_.end() && it->first.first == group_id;) {
    if (it->second.deadline_ms > now_ms) {
      ++it;
      continue;
    }
    const auto* m = groups_.count(group_id) ? groups_.at(group_id).member(it->first.second) : nullptr;
    if (m && m->epoch == it->second.epoch) ended.insert(it->first.second);
    it = revocations_.erase(it);
  }
  std::vector<streams_group_record> out;
  auto git = groups_.find(group_id);
  for (const auto& member_id : ended) {
    if (git == groups_.end() || !git->second.member(member_id)) {
      sessions_.erase({group_id, member_id});
      continue;
    }
    auto records = fence(git->second, member_id);
    if (records.empty()) sessions_.erase({group_id, member_id});
    out.insert(out.end(), records.begin(), records.end());
  }
  return out;
}

std::optional<int64_t> streams_group_manager::next_deadline_ms() const {
  std::optional<int64_t> next;
  for (const auto& [key, deadline] : sessions_)
    if (!next || deadline < *next) next = deadline;
  for (const auto& [group_id, deadline] : initial_delays_)
    if (!next || deadline < *next) next = deadline;
  for (const auto& [key, r] : revocations_)
    if (!next || r.deadline_ms < *next) next = r.deadline_ms;
  return next;
}

std::vector<streams_group_manager::delayed_target> streams_group_manager::delayed_targets(int64_t now_ms) {
  std::vector<delayed_target> out;
  for (auto it = initial_delays_.begin(); it != initial_delays_.end();) {
    if (it->second > now_ms) {
      ++it;
      continue;
    }
    const std::string group_id = it->first;
    it = initial_delays_.erase(it);
    auto git = groups_.find(group_id);
    // Kafka's delayed assignment: nothing for a group emptied meanwhile,
    // one whose target is current, or one whose topology is not configured.
    if (git == groups_.end() || git->second.members().empty() || !git->second.configured() ||
        git->second.assignment_epoch() >= git->second.group_epoch())
      continue;
    draft d(git->second);
    auto target = compute_streams_target(d.group(), d.group().group_epoch(), now_ms, {}, *d.group().configured(),
                                         options_for(group_id).num_standby_replicas);
    if (std::holds_alternative<task_assignor_error>(target)) continue;
    for (auto& r : std::get<streams_target_result>(target).records) d.add(std::move(r));
    if (d.error) continue;
    out.push_back({group_id, std::move(git->second), std::move(d.records)});
    git->second = std::move(d).take();
  }
  return out;
}

}  // namespace hw::broker::group::streams
