// Members of the classic protocol in consumer groups (KIP-848's online
// migration), after Kafka 4.3.1's GroupMetadataManager: a classic group
// upgraded when a consumer-protocol member joins it, and JoinGroup,
// SyncGroup, Heartbeat and LeaveGroup of classic members answered by a
// consumer group. The downgrade back to a classic group is decided where
// members are fenced (consumer_group_manager.cc, fence_members).
#include <algorithm>

#include "broker/group/consumer/classic_protocol.h"
#include "broker/group/consumer/consumer_group_manager.h"
#include "broker/group/consumer/manager_draft.h"
#include "broker/group/consumer/member_reconciliation.h"

namespace hw::broker::group::consumer {

namespace msg = protocol::msg;
using protocol::error_code;

namespace {

int16_t code(error_code e) { return static_cast<int16_t>(e); }

std::vector<classic_protocol> protocols_of(const msg::join_group_request& request) {
  std::vector<classic_protocol> out;
  for (const auto& p : request.protocols) out.push_back({p.name, {p.metadata.begin(), p.metadata.end()}});
  return out;
}

// The version a member's consumer protocol speaks (its first protocol's),
// which its assignment is written in.
int16_t protocol_version(const consumer_member& member) {
  if (!member.subscription.classic || member.subscription.classic->protocols.empty()) return 0;
  auto sub = decode_subscription(member.subscription.classic->protocols.front().metadata);
  return sub ? sub->version : 0;
}

const std::string& first_protocol_name(const consumer_member& member) {
  static const std::string none;
  if (!member.subscription.classic || member.subscription.classic->protocols.empty()) return none;
  return member.subscription.classic->protocols.front().name;
}

std::string cannot_upgrade(const std::string& group_id, const std::string& why) {
  return "Cannot upgrade classic group " + group_id + " to consumer group because " + why;
}

// A classic SyncGroup or Heartbeat names its member by id or, for a static
// member, by instance id (Kafka's validateConsumerGroupMember), and must
// name a classic member at its epoch: the member, or the error.
std::variant<const consumer_member*, error_code> classic_member_at(const consumer_group* group,
                                                                   const std::string& member_id,
                                                                   const std::optional<std::string>& instance_id,
                                                                   int32_t generation) {
  if (!group) return error_code::unknown_member_id;
  const consumer_member* m = nullptr;
  if (instance_id) {
    if (!group->static_member_id(*instance_id)) return error_code::unknown_member_id;
    if (auto refused = check_instance_holder(*group, *instance_id, member_id)) return refused->code;
    m = group->member(member_id);
  } else {
    m = group->member(member_id);
  }
  if (!m || !m->uses_classic_protocol()) return error_code::unknown_member_id;
  if (generation != m->current.epoch.value) return error_code::illegal_generation;
  return m;
}

// A classic member's subscription after its JoinGroup: its protocols'
// embedded subscription and its timeouts (a field not given keeps its value).
member_subscription classic_subscription_of(member_subscription s, const msg::join_group_request& request,
                                            const classic_subscription& embedded, int32_t rebalance_timeout_ms,
                                            const std::string& client_id, const std::string& client_host) {
  if (request.group_instance_id) s.instance_id = request.group_instance_id;
  if (embedded.rack_id && !embedded.rack_id->empty()) s.rack_id = embedded.rack_id;
  if (rebalance_timeout_ms != -1) s.rebalance_timeout_ms = rebalance_timeout_ms;
  s.subscribed_topic_names = {embedded.topics.begin(), embedded.topics.end()};
  s.subscribed_topic_regex.clear();  // a classic member resolves its pattern itself
  s.client_id = client_id;
  s.client_host = client_host;
  s.classic = classic_member_metadata{request.session_timeout_ms, protocols_of(request)};
  return s;
}

}  // namespace

// --- Upgrade -------------------------------------------------------------------

namespace {

// A classic member as the consumer group it is upgraded into holds it: its
// subscription from the protocol the group chose, stable at the classic
// generation with what it was assigned; or why it cannot be upgraded.
std::variant<consumer_member, std::string> upgraded_member(const classic_member_snapshot& c,
                                                           const std::optional<std::string>& protocol_name,
                                                           member_epoch generation, const topic_image_view& topics) {
  const std::string malformed = "the embedded consumer protocol is malformed.";
  topic_partitions assigned;
  // A member that joined and never synced holds nothing yet.
  if (!c.assignment.empty()) {
    auto a = decode_assignment(c.assignment);
    if (!a) return malformed;
    if (a->has_user_data) {
      return std::string(
          "an unsupported custom assignor is in use. Please refer to the documentation or switch to a default "
          "assignor before re-attempting the upgrade.");
    }
    assigned = by_topic_id(a->partitions, topics);
  }
  const std::vector<uint8_t>* metadata = nullptr;
  for (const auto& p : c.protocols)
    if (!metadata && (!protocol_name || p.name == *protocol_name)) metadata = &p.metadata;
  auto sub = metadata ? decode_subscription(*metadata) : std::nullopt;
  if (!sub) return malformed;
  consumer_member m;
  m.member_id = c.member_id;
  m.subscription.instance_id = c.instance_id;
  m.subscription.rack_id = sub->rack_id;
  m.subscription.client_id = c.client_id;
  m.subscription.client_host = c.client_host;
  m.subscription.subscribed_topic_names = {sub->topics.begin(), sub->topics.end()};
  m.subscription.rebalance_timeout_ms = c.rebalance_timeout_ms;
  m.subscription.classic = classic_member_metadata{c.session_timeout_ms, c.protocols};
  m.current.epoch = generation;
  m.current.previous_epoch = generation;
  m.current.state = member_state::stable;
  for (const auto& [topic_id, partitions] : assigned)
    for (int32_t p : partitions) m.current.assigned[topic_id][p] = generation;
  return m;
}

// The records Kafka's createConsumerGroupRecords writes for a group made
// from classic members, in its order: every member's metadata, the group
// epoch, every member's target, the target's epoch, every member's current
// assignment.
std::vector<consumer_group_record> creation_records(const std::string& id, int32_t generation, int64_t metadata_hash,
                                                    const std::vector<consumer_member>& members) {
  std::vector<consumer_group_record> out;
  for (const auto& m : members) {
    member_metadata_record r;
    r.key.group_id = id;
    r.key.member_id = m.member_id;
    r.value = to_value(m.subscription);
    out.push_back(std::move(r));
  }
  out.push_back(epoch_record(id, generation, metadata_hash));
  for (const auto& m : members) {
    target_assignment_member_record r;
    r.key.group_id = id;
    r.key.member_id = m.member_id;
    r.value = to_value(partitions_of(m.current.assigned));
    out.push_back(std::move(r));
  }
  target_assignment_epoch_record target;
  target.key.group_id = id;
  target.value.emplace();
  target.value->assignment_epoch = generation;
  target.value->assignment_timestamp = 0;
  out.push_back(std::move(target));
  for (const auto& m : members) {
    current_assignment_record r;
    r.key.group_id = id;
    r.key.member_id = m.member_id;
    r.value = to_value(m.current);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::variant<std::vector<consumer_group_record>, heartbeat_refusal> consumer_group_manager::upgrade_records(
    const classic_group_snapshot& classic, const topic_image_view& topics) const {
  const std::string& id = classic.group_id;
  auto refuse_upgrade = [&](const std::string& why) { return heartbeat_refusal{error_code::group_id_not_found, cannot_upgrade(id, why)}; };
  if (!options_.upgrade_enabled()) return refuse_upgrade("online upgrade is disabled.");
  if (classic.protocol_type != "consumer") return refuse_upgrade("the group does not use the consumer embedded protocol.");
  if (static_cast<int64_t>(classic.members.size()) > options_.max_size)
    return refuse_upgrade("the group size exceeds the consumer group maximum size.");
  std::vector<consumer_member> members;
  for (const auto& c : classic.members) {
    auto m = upgraded_member(c, classic.protocol_name, member_epoch{classic.generation}, topics);
    if (auto* why = std::get_if<std::string>(&m)) return refuse_upgrade(*why);
    members.push_back(std::move(std::get<consumer_member>(m)));
  }
  std::vector<const member_subscription*> subscriptions;
  for (const auto& m : members) subscriptions.push_back(&m.subscription);
  const int64_t hash = metadata_hash_of(subscribed_topics(subscriptions, {}), topics);
  auto out = creation_records(id, classic.generation, hash, members);
  // Two members claiming one partition: the group would not replay.
  consumer_group group(id);
  for (const auto& r : out) {
    if (auto e = group.replay(r)) return heartbeat_refusal{error_code::unknown_server_error, *e};
  }
  return out;
}

// --- JoinGroup -----------------------------------------------------------------

std::variant<consumer_group_manager::classic_joiner, heartbeat_refusal> consumer_group_manager::identify_classic(
    draft& d, const msg::join_group_request& request, const std::string& member_id) const {
  const consumer_group& group = d.group();
  classic_joiner out;
  if (!request.group_instance_id) {
    if (const auto* found = group.member(member_id)) out.member = *found, out.known = true;
    else out.member.member_id = member_id;
  } else if (!request.member_id.empty()) {
    if (auto refused = check_instance_holder(group, *request.group_instance_id, member_id)) return *refused;
    out.member = *group.member(member_id);
    out.known = true;
  } else if (const std::string* holder = group.static_member_id(*request.group_instance_id)) {
    const consumer_member held = *group.member(*holder);
    out.member = static_member_replacement(held, member_id);
    out.replaced = *holder;
    replace_static_member(d, held, out.member);
    out.known = true;
  } else {
    out.member.member_id = member_id;
  }
  return out;
}

classic_join_outcome consumer_group_manager::classic_join(const msg::join_group_request& request, int16_t version,
                                                          const std::string& client_id,
                                                          const std::string& client_host,
                                                          const topic_image_view& topics, int64_t now_ms,
                                                          const std::function<std::string()>& new_member_id) {
  classic_join_outcome out;
  auto fail = [&](error_code e) {
    classic_join_outcome refused;
    refused.response.error_code = code(e);
    refused.response.member_id = request.member_id;
    return refused;
  };
  auto git = groups_.find(request.group_id);
  if (git == groups_.end()) return fail(error_code::unknown_member_id);
  const consumer_group& group = git->second;
  if (options_.migration == migration_policy::disabled) return fail(error_code::inconsistent_group_protocol);

  const bool unknown_member = request.member_id.empty();
  const std::string member_id = unknown_member ? new_member_id() : request.member_id;
  if (!group.member(member_id) && static_cast<int64_t>(group.members().size()) >= options_.max_size)
    return fail(error_code::group_max_size_reached);
  std::vector<std::string> names;
  for (const auto& p : request.protocols) names.push_back(p.name);
  if (!group.supports_classic_protocols(request.protocol_type, names))
    return fail(error_code::inconsistent_group_protocol);
  if (unknown_member && version >= 4 && !request.group_instance_id) {
    // A dynamic member is given its id first and joins again with it.
    out.response.error_code = code(error_code::member_id_required);
    out.response.member_id = member_id;
    return out;
  }
  auto subscription = decode_subscription(request.protocols.front().metadata);
  if (!subscription) return fail(error_code::unknown_server_error);

  draft d(group);
  auto identified = identify_classic(d, request, member_id);
  if (auto* refused = std::get_if<heartbeat_refusal>(&identified)) return fail(refused->code);
  const auto& [member, known, replaced] = std::get<classic_joiner>(identified);
  // The static member it replaces was the group's last consumer-protocol
  // member: the group goes back to the classic protocol.
  const bool downgrading = replaced && !group.member(*replaced)->uses_classic_protocol() &&
                           group.all_classic_except({*replaced}) && options_.downgrade_enabled() &&
                           static_cast<int64_t>(group.members().size()) <= options_.classic_max_size;

  // 1. The member's subscription, as its protocols embed it.
  const int32_t rebalance_timeout = version == 0 ? request.session_timeout_ms : request.rebalance_timeout_ms;
  consumer_member updated = member;
  updated.subscription = classic_subscription_of(member.subscription, request, *subscription, rebalance_timeout,
                                                 client_id, client_host);
  bool bump = false;
  if (!known || updated.subscription != member.subscription) {
    if (auto refused = subscribe(d, member, updated, topics, {}, now_ms, bump)) return fail(refused->code);
  }
  bump |= refresh_regexes(d, topics, {}, now_ms);
  maybe_bump_epoch(d, bump, topics);

  // 2. and 3. A new target when due, then the member's next step (skipped
  // when a downgrade with a stale assignment rebalances anyway).
  const auto owned = by_topic_id(subscription->owned, topics);
  const bool rebalance = downgrading && d.group().assignment_epoch() < d.group().group_epoch();
  if (!downgrading) {
    if (auto refused = maybe_assign(d, updated.subscription.server_assignor, topics, now_ms))
      return fail(refused->code);
  }
  if (!rebalance && (bump || !updated.is_reconciled_to(member_epoch{d.group().assignment_epoch()}))) {
    auto step = reconcile(updated, reconciliation_of(d.group(), updated, owned, bump, topics));
    if (step.error != error_code::none) return fail(step.error);
    updated.current = step.next;
  }
  if (!known || updated.current != member.current) d.add(current_record(d.group().group_id(), updated));
  if (d.error) return fail(error_code::unknown_server_error);

  if (d.hash_checked_at) hash_checked_[request.group_id] = *d.hash_checked_at;
  rebalances_ += static_cast<uint64_t>(d.bumps);
  if (d.changed()) {
    out.before = std::move(git->second);
    git->second = std::move(d).take();
  }
  out.records = std::move(d.records);
  if (replaced) forget_member(request.group_id, *replaced);
  out.response.member_id = member_id;
  out.response.generation_id = updated.current.epoch.value;
  out.response.protocol_type = "consumer";
  out.response.protocol_name = first_protocol_name(updated);
  out.response.leader = "";
  if (downgrading) {
    downgrade down{classic_snapshot(git->second, {}, nullptr), rebalance};
    auto tombstones = delete_group(request.group_id);
    out.records.insert(out.records.end(), tombstones.begin(), tombstones.end());
    out.downgraded = std::move(down);
    return out;
  }
  join_timeouts_.erase({request.group_id, member_id});
  sessions_[{request.group_id, member_id}] = now_ms + request.session_timeout_ms;
  sync_timeouts_[{request.group_id, member_id}] = now_ms + rebalance_timeout;
  return out;
}

// --- SyncGroup and Heartbeat ------------------------------------------------------

error_code consumer_group_manager::ask_to_rejoin(const std::string& group_id, const consumer_member& member,
                                                 int64_t now_ms) {
  // It is fenced if it has not rejoined within its rebalance timeout.
  join_timeouts_.try_emplace({group_id, member.member_id}, now_ms + member.subscription.rebalance_timeout_ms);
  return error_code::rebalance_in_progress;
}

msg::sync_group_response consumer_group_manager::classic_sync(const msg::sync_group_request& request,
                                                              const topic_image_view& topics, int64_t now_ms) {
  msg::sync_group_response out;
  const consumer_group* group = this->group(request.group_id);
  auto found = classic_member_at(group, request.member_id, request.group_instance_id, request.generation_id);
  if (auto* e = std::get_if<error_code>(&found)) {
    out.error_code = code(*e);
    return out;
  }
  const consumer_member& member = *std::get<const consumer_member*>(found);
  if ((request.protocol_type && *request.protocol_type != "consumer") ||
      (request.protocol_name && *request.protocol_name != first_protocol_name(member))) {
    out.error_code = code(error_code::inconsistent_group_protocol);
    return out;
  }
  if (group->assignment_epoch() > member.current.epoch.value &&
      member.current.state != member_state::unrevoked_partitions) {
    // A new target since it joined: it must join again to catch up.
    out.error_code = code(ask_to_rejoin(group->group_id(), member, now_ms));
    return out;
  }
  sync_timeouts_.erase({group->group_id(), member.member_id});
  sessions_[{group->group_id(), member.member_id}] = now_ms + member.subscription.classic->session_timeout_ms;
  out.protocol_type = request.protocol_type;
  out.protocol_name = request.protocol_name;
  out.assignment = encode_assignment(partitions_of(member.current.assigned), topics, protocol_version(member));
  return out;
}

msg::heartbeat_response consumer_group_manager::classic_heartbeat(const msg::heartbeat_request& request,
                                                                  int64_t now_ms) {
  msg::heartbeat_response out;
  const consumer_group* group = this->group(request.group_id);
  auto found = classic_member_at(group, request.member_id, request.group_instance_id, request.generation_id);
  if (auto* e = std::get_if<error_code>(&found)) {
    out.error_code = code(*e);
    return out;
  }
  const consumer_member& member = *std::get<const consumer_member*>(found);
  sessions_[{group->group_id(), member.member_id}] = now_ms + member.subscription.classic->session_timeout_ms;
  // It must rejoin: behind the target, told to revoke, or the partitions
  // it waits for are free now.
  if (member.current.epoch.value < group->assignment_epoch() ||
      member.current.state == member_state::unrevoked_partitions ||
      (member.current.state == member_state::unreleased_partitions && !group->waiting_on_unreleased_partition(member))) {
    out.error_code = code(ask_to_rejoin(group->group_id(), member, now_ms));
  }
  return out;
}

// --- LeaveGroup ------------------------------------------------------------------

classic_leave_outcome consumer_group_manager::classic_leave(const msg::leave_group_request& request,
                                                            const topic_image_view& topics) {
  classic_leave_outcome out;
  auto git = groups_.find(request.group_id);
  if (git == groups_.end()) {
    out.response.error_code = code(error_code::unknown_member_id);
    return out;
  }
  std::set<std::string> leaving;
  for (const auto& who : request.members) {
    auto& r = out.response.members.emplace_back();
    r.member_id = who.member_id;
    r.group_instance_id = who.group_instance_id;
    const std::string* id = nullptr;
    if (!who.group_instance_id) {
      if (git->second.member(who.member_id)) id = &who.member_id;
      else r.error_code = code(error_code::unknown_member_id);
    } else {
      // An administrator may name a static member by instance id alone.
      const std::string* holder = git->second.static_member_id(*who.group_instance_id);
      if (!holder) r.error_code = code(error_code::unknown_member_id);
      else if (!who.member_id.empty() && who.member_id != *holder) r.error_code = code(error_code::fenced_instance_id);
      else id = holder;
    }
    if (id) leaving.insert(*id);
  }
  if (leaving.empty()) return out;
  out.before = git->second;
  auto fenced = fence_members(request.group_id, leaving, topics);
  if (!fenced) {
    classic_leave_outcome failed;
    failed.response.error_code = code(error_code::unknown_server_error);
    return failed;
  }
  out.records = std::move(fenced->records);
  out.downgraded = std::move(fenced->downgraded);
  return out;
}

}  // namespace hw::broker::group::consumer
