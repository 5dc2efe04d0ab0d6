#include "broker/group/consumer/consumer_group_manager.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "broker/group/consumer/heartbeat_request.h"
#include "broker/group/consumer/manager_draft.h"
#include "broker/group/consumer/member_reconciliation.h"
#include "broker/group/consumer/metadata_hash.h"
#include "broker/group/consumer/topic_regex.h"
#include "broker/group/heartbeat_interval.h"

namespace hw::broker::group::consumer {

namespace msg = protocol::msg;
using protocol::error_code;

heartbeat_outcome consumer_group_manager::refuse(error_code code, std::string message) const {
  heartbeat_outcome out;
  out.response.error_code = static_cast<int16_t>(code);
  out.response.error_message = std::move(message);
  return out;
}

const consumer_group* consumer_group_manager::group(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

std::optional<std::string> consumer_group_manager::replay(const consumer_group_record& record) {
  const auto& id = group_of(record);
  auto it = groups_.try_emplace(id, id).first;
  auto error = it->second.replay(record);
  if (it->second.deleted()) groups_.erase(it);
  return error;
}

int64_t consumer_group_manager::metadata_hash_of(const std::map<std::string, subscription_count>& subscribed,
                                                 const topic_image_view& topics) const {
  std::map<std::string, int64_t> hashes;
  for (const auto& [name, count] : subscribed) {
    auto id = topics.topic_id(name);
    if (!id) continue;  // a topic that does not exist counts for nothing
    hashes[name] = topic_hash({*id, name, topics.partition_count(*id), topics.partition_racks(*id)});
  }
  return group_metadata_hash(hashes);
}

std::optional<migration_policy> migration_policy_from(std::string_view text) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "disabled") return migration_policy::disabled;
  if (lower == "upgrade") return migration_policy::upgrade;
  if (lower == "downgrade") return migration_policy::downgrade;
  if (lower == "bidirectional") return migration_policy::bidirectional;
  return std::nullopt;
}

consumer_group_manager::consumer_group_manager(consumer_group_options options) : options_(std::move(options)) {
  for (const auto& name : options_.assignors)
    if (auto a = make_assignor(name)) assignors_.emplace(name, std::move(a));
}

const assignor* consumer_group_manager::assignor_for(const consumer_group& group,
                                                     const std::optional<std::string>& asked) const {
  // The member's own choice, else the one most members ask for, else the default.
  std::string name = options_.assignors.empty() ? "uniform" : options_.assignors.front();
  std::map<std::string, int> counts;
  for (const auto& [id, m] : group.members())
    if (m.subscription.server_assignor) ++counts[*m.subscription.server_assignor];
  int most = 0;
  for (const auto& [n, c] : counts)
    if (c > most) most = c, name = n;
  if (asked) name = *asked;
  auto it = assignors_.find(name);
  return it == assignors_.end() ? nullptr : it->second.get();
}

bool consumer_group_manager::downgrades_when_fenced(const consumer_group& group,
                                                    const std::set<std::string>& member_ids) const {
  const auto left = static_cast<int64_t>(group.members().size()) - static_cast<int64_t>(member_ids.size());
  return group.all_classic_except(member_ids) && left > 0 && options_.downgrade_enabled() &&
         left <= options_.classic_max_size;
}

classic_group_snapshot consumer_group_manager::classic_snapshot(const consumer_group& group,
                                                                const std::set<std::string>& leaving,
                                                                const consumer_member* joining) const {
  classic_group_snapshot out;
  out.group_id = group.group_id();
  out.generation = group.group_epoch();
  out.protocol_type = "consumer";
  auto add = [&](const consumer_member& m, const std::string& target_of) {
    auto& c = out.members.emplace_back();
    c.member_id = m.member_id;
    c.instance_id = m.subscription.instance_id;
    c.client_id = m.subscription.client_id;
    c.client_host = m.subscription.client_host;
    c.rebalance_timeout_ms = m.subscription.rebalance_timeout_ms;
    if (m.subscription.classic) {
      c.session_timeout_ms = m.subscription.classic->session_timeout_ms;
      c.protocols = m.subscription.classic->protocols;
    }
    if (auto t = group.target_assignment().find(target_of); t != group.target_assignment().end()) c.target = t->second;
  };
  for (const auto& [id, m] : group.members()) {
    if (leaving.count(id)) continue;
    if (joining && joining->subscription.instance_id && m.subscription.instance_id == joining->subscription.instance_id)
      continue;
    add(m, id);
  }
  if (joining) {
    // It takes the place, and the target, of the static member it replaces.
    const std::string* replaced = group.static_member_id(*joining->subscription.instance_id);
    add(*joining, replaced ? *replaced : joining->member_id);
  }
  return out;
}

std::optional<consumer_group_manager::fence_result> consumer_group_manager::fence_members(
    const std::string& group_id, const std::set<std::string>& member_ids, const topic_image_view& topics) {
  auto git = groups_.find(group_id);
  if (git == groups_.end()) return std::nullopt;
  consumer_group& group = git->second;
  fence_result out;
  if (member_ids.empty()) return out;
  if (downgrades_when_fenced(group, member_ids)) {
    downgrade down{classic_snapshot(group, member_ids, nullptr), true};
    auto records = delete_group(group_id);
    if (records.empty()) return std::nullopt;
    out.records = std::move(records);
    out.downgraded = std::move(down);
    return out;
  }
  draft d(group);
  std::set<std::string> regexes;
  for (const auto& id : member_ids) {
    if (const auto* m = group.member(id); m && !m->subscription.subscribed_topic_regex.empty())
      regexes.insert(m->subscription.subscribed_topic_regex);
    d.add(member_tombstone<current_assignment_record>(group_id, id));
    d.add(member_tombstone<target_assignment_member_record>(group_id, id));
    d.add(member_tombstone<member_metadata_record>(group_id, id));
  }
  // A regular expression nobody subscribes to any more is forgotten.
  for (const auto& regex : regexes)
    if (!d.group().subscribed_regexes().count(regex) && d.group().resolved_regexes().count(regex))
      d.add(regex_record(group_id, regex));
  d.add(epoch_record(group_id, group.group_epoch() + 1, metadata_hash_of(d.group().subscribed_topics(), topics)));
  if (d.error) return std::nullopt;
  ++rebalances_;
  for (const auto& id : member_ids) forget_member(group_id, id);
  group = std::move(d).take();
  out.records = std::move(d.records);
  return out;
}

std::optional<heartbeat_outcome> consumer_group_manager::leave(const msg::consumer_group_heartbeat_request& request,
                                                               const topic_image_view& topics) {
  auto git = groups_.find(request.group_id);
  if (git == groups_.end()) return refuse(error_code::group_id_not_found, "Group " + request.group_id + " not found.");
  consumer_group& group = git->second;
  heartbeat_outcome out;
  out.before = group;  // leaves are rare: a copy for the caller's rollback
  out.response.member_id = request.member_id;
  out.response.member_epoch = request.member_epoch;
  std::string leaving = request.member_id;
  if (request.instance_id) {
    if (auto refused = check_instance_holder(group, *request.instance_id, leaving))
      return refuse(refused->code, refused->message);
    if (member_epoch{request.member_epoch} == leave_group_static_epoch) {
      // Gone for now: it keeps its partitions (at assignment epoch 0) for
      // whoever comes back under its instance id before its session ends.
      draft d(group);
      current_assignment_record c;
      c.key.group_id = group.group_id();
      c.key.member_id = leaving;
      c.value = to_value(static_member_left(*group.member(leaving)).current);
      d.add(std::move(c));
      if (d.error) return std::nullopt;
      group = std::move(d).take();
      out.records = std::move(d.records);
      out.response.member_epoch = leave_group_static_epoch.value;
      return out;
    }
  } else if (!group.member(leaving)) {
    return refuse(error_code::unknown_member_id,
                  "Member " + leaving + " is not a member of group " + request.group_id + ".");
  }
  auto fenced = fence_members(request.group_id, {leaving}, topics);
  if (!fenced) return std::nullopt;
  out.records = std::move(fenced->records);
  out.downgraded = std::move(fenced->downgraded);
  return out;
}

void consumer_group_manager::replace_static_member(draft& d, const consumer_member& old_member,
                                                   const consumer_member& replacement) const {
  const std::string& group_id = d.group().group_id();
  topic_partitions target;
  if (auto t = d.group().target_assignment().find(old_member.member_id); t != d.group().target_assignment().end())
    target = t->second;
  d.add(member_tombstone<current_assignment_record>(group_id, old_member.member_id));
  d.add(member_tombstone<target_assignment_member_record>(group_id, old_member.member_id));
  d.add(member_tombstone<member_metadata_record>(group_id, old_member.member_id));
  member_metadata_record m;
  m.key.group_id = group_id;
  m.key.member_id = replacement.member_id;
  m.value = to_value(replacement.subscription);
  d.add(std::move(m));
  target_assignment_member_record t;
  t.key.group_id = group_id;
  t.key.member_id = replacement.member_id;
  t.value = to_value(target);
  d.add(std::move(t));
  current_assignment_record c;
  c.key.group_id = group_id;
  c.key.member_id = replacement.member_id;
  c.value = to_value(replacement.current);
  d.add(std::move(c));
}

std::variant<consumer_group_manager::known_member, heartbeat_refusal> consumer_group_manager::identify(
    draft& d, const msg::consumer_group_heartbeat_request& request, const std::string& member_id,
    const std::optional<topic_partitions>& owned) const {
  const member_epoch epoch{request.member_epoch};
  const consumer_member* found = d.group().member(member_id);
  if (!request.instance_id) {
    if (!found) {
      if (epoch != joining_epoch) {
        return heartbeat_refusal{error_code::unknown_member_id,
                                 "Member " + member_id + " is not a member of group " + request.group_id + "."};
      }
      consumer_member joining;
      joining.member_id = member_id;
      return known_member{std::move(joining), false};
    }
    auto check = check_heartbeat_epoch(*found, epoch, owned);
    if (check.error != error_code::none) return heartbeat_refusal{check.error, check.message};
    return known_member{*found, true};
  }
  // A static member: its instance id says who it is.
  const std::string& instance = *request.instance_id;
  const std::string* holder = d.group().static_member_id(instance);
  if (epoch != joining_epoch) {
    if (auto refused = check_instance_holder(d.group(), instance, member_id)) return *refused;
    auto check = check_heartbeat_epoch(*found, epoch, owned);
    if (check.error != error_code::none) return heartbeat_refusal{check.error, check.message};
    return known_member{*found, true};
  }
  if (!holder) {
    consumer_member joining;
    joining.member_id = member_id;
    return known_member{std::move(joining), false};
  }
  const consumer_member held = *d.group().member(*holder);
  // Back under a new member id: only once the old one left with -2 (a
  // classic member's place is taken at once, as a rolling upgrade needs).
  if (held.current.epoch != leave_group_static_epoch && !held.uses_classic_protocol()) {
    return heartbeat_refusal{error_code::unreleased_instance_id,
                             "Static member " + member_id + " with instance id " + instance +
                                 " cannot join the group because the instance id is owned by " + held.member_id +
                                 " member."};
  }
  consumer_member replacement = static_member_replacement(held, member_id);
  replace_static_member(d, held, replacement);
  return known_member{std::move(replacement), true};
}

heartbeat_outcome consumer_group_manager::heartbeat(const msg::consumer_group_heartbeat_request& request,
                                                    int16_t version, const std::string& client_id,
                                                    const std::string& client_host, const topic_image_view& topics,
                                                    int64_t now_ms,
                                                    const std::function<std::string()>& new_member_id,
                                                    const topic_filter& may_describe,
                                                    const std::vector<consumer_group_record>* upgraded) {
  if (auto refused = check_heartbeat_request(request, version, options_.assignors))
    return refuse(refused->code, refused->message);
  const member_epoch epoch{request.member_epoch};
  if (epoch == leave_group_epoch || epoch == leave_group_static_epoch) {
    auto out = leave(request, topics);
    return out ? std::move(*out) : refuse(error_code::unknown_server_error, "The group's records are inconsistent.");
  }

  auto git = groups_.find(request.group_id);
  if (git == groups_.end() && epoch != joining_epoch)
    return refuse(error_code::group_id_not_found, "Consumer group " + request.group_id + " not found.");
  // A group a join would make exists only once the join succeeds; one
  // upgraded from a classic group starts from the upgrade's records.
  draft d = git == groups_.end() ? draft::of_new_group(request.group_id) : draft(git->second);
  if (upgraded && git == groups_.end()) {
    for (const auto& r : *upgraded) d.add(r);
    d.hash_checked_at = d.group().group_epoch();
  }
  const std::string member_id = request.member_id.empty() ? new_member_id() : request.member_id;
  if (!d.group().member(member_id) && static_cast<int64_t>(d.group().members().size()) >= options_.max_size) {
    return refuse(error_code::group_max_size_reached, "The consumer group has reached its maximum capacity of " +
                                                          std::to_string(options_.max_size) + " members.");
  }
  const auto owned = owned_partitions(request);
  auto identified = identify(d, request, member_id, owned);
  if (auto* refused = std::get_if<heartbeat_refusal>(&identified)) return refuse(refused->code, refused->message);
  const known_member before = std::move(std::get<known_member>(identified));
  const consumer_member& member = before.member;
  const bool known = before.known;

  // 1. The member's subscription, its regular expression and the group epoch.
  consumer_member updated = with_heartbeat(member, request, client_id, client_host);
  bool bump = false;
  if (!known || updated.subscription != member.subscription) {
    if (auto refused = subscribe(d, member, updated, topics, may_describe, now_ms, bump))
      return refuse(refused->code, refused->message);
  }
  bump |= refresh_regexes(d, topics, may_describe, now_ms);
  maybe_bump_epoch(d, bump, topics);

  // 2. A target assignment for the group epoch, if it has none yet and the
  // last one is at least the assignment interval old.
  if (auto refused = maybe_assign(d, updated.subscription.server_assignor, topics, now_ms))
    return refuse(refused->code, refused->message);

  // 3. The member's next step towards its target.
  const bool topics_changed =
      updated.subscription.subscribed_topic_names != member.subscription.subscribed_topic_names ||
      updated.subscription.subscribed_topic_regex != member.subscription.subscribed_topic_regex;
  auto step = reconcile(updated, reconciliation_of(d.group(), updated, owned, topics_changed, topics));
  if (step.error != error_code::none) return refuse(step.error, step.error_message);
  updated.current = step.next;
  if (!known || updated.current != member.current) d.add(current_record(d.group().group_id(), updated));
  if (d.error) return refuse(error_code::unknown_server_error, *d.error);
  return commit_heartbeat(d, request, before, updated, now_ms, upgraded && git == groups_.end());
}

heartbeat_outcome consumer_group_manager::commit_heartbeat(draft& d,
                                                           const msg::consumer_group_heartbeat_request& request,
                                                           const known_member& before, const consumer_member& updated,
                                                           int64_t now_ms, bool made_by_upgrade) {
  const std::string& group_id = request.group_id;
  if (d.hash_checked_at) hash_checked_[group_id] = *d.hash_checked_at;
  rebalances_ += static_cast<uint64_t>(d.bumps);
  heartbeat_outcome out;
  if (auto git = groups_.find(group_id); git == groups_.end()) {
    groups_.emplace(group_id, std::move(d).take());
  } else if (d.changed()) {
    out.before = std::move(git->second);
    git->second = std::move(d).take();
  }
  sessions_[{group_id, updated.member_id}] = now_ms + session_timeout_ms(group_id);
  const bool moved = !before.known || updated.current != before.member.current;
  if (moved) track_revocation(group_id, updated, now_ms);
  if (made_by_upgrade) {
    // The classic members the upgrade brought keep their sessions.
    for (const auto& [id, m] : groups_.at(group_id).members())
      sessions_.try_emplace({group_id, id}, now_ms + session_timeout_of(group_id, m));
  }
  out.records = std::move(d.records);
  out.response.member_id = updated.member_id;
  out.response.member_epoch = updated.current.epoch.value;
  out.response.heartbeat_interval_ms = heartbeat_interval_for(group_id, updated);
  if (!before.known || answer_carries_assignment(request, before.member, updated))
    out.response.assignment = heartbeat_assignment(updated);
  return out;
}

int32_t consumer_group_manager::heartbeat_interval_for(const std::string& group_id,
                                                       const consumer_member& member) const {
  return answered_heartbeat_interval(
      group_option(group_id, "consumer.heartbeat.interval.ms", options_.heartbeat_interval_ms),
      member.current.state == member_state::unreleased_partitions);
}

std::optional<heartbeat_refusal> consumer_group_manager::maybe_assign(draft& d,
                                                                     const std::optional<std::string>& asked_assignor,
                                                                     const topic_image_view& topics,
                                                                     int64_t now_ms) const {
  const int32_t interval =
      group_option(d.group().group_id(), "consumer.assignment.interval.ms", options_.assignment_interval_ms);
  const bool interval_passed = d.group().assignment_timestamp_ms() == 0 || interval == 0 ||
                               now_ms >= d.group().assignment_timestamp_ms() + interval;
  if (d.group().group_epoch() <= d.group().assignment_epoch() || !interval_passed) return std::nullopt;
  const assignor* chosen = assignor_for(d.group(), asked_assignor);
  if (!chosen) return heartbeat_refusal{error_code::unknown_server_error, "No server assignor is configured."};
  auto computed = compute_target_assignment(d.group(), d.group().group_epoch(), now_ms, *chosen, topics, {});
  if (auto* error = std::get_if<assignor_error>(&computed)) {
    return heartbeat_refusal{error_code::unknown_server_error, "Failed to compute a new target assignment for epoch " +
                                                                   std::to_string(d.group().group_epoch()) + ": " +
                                                                   error->message + "."};
  }
  for (auto& r : std::get<target_assignment_result>(computed).records) d.add(std::move(r));
  return std::nullopt;
}

std::optional<heartbeat_refusal> consumer_group_manager::subscribe(draft& d, const consumer_member& member,
                                                                  const consumer_member& updated,
                                                                  const topic_image_view& topics,
                                                                  const topic_filter& may_describe, int64_t now_ms,
                                                                  bool& bump) const {
  member_metadata_record m;
  m.key.group_id = d.group().group_id();
  m.key.member_id = updated.member_id;
  m.value = to_value(updated.subscription);
  d.add(std::move(m));
  bump = updated.subscription.subscribed_topic_names != member.subscription.subscribed_topic_names;
  const auto& regex = updated.subscription.subscribed_topic_regex;
  const auto& old_regex = member.subscription.subscribed_topic_regex;
  if (regex == old_regex) return std::nullopt;
  // A regular expression nobody subscribes to any more is forgotten.
  if (!old_regex.empty() && !d.group().subscribed_regexes().count(old_regex) &&
      d.group().resolved_regexes().count(old_regex))
    d.add(regex_record(d.group().group_id(), old_regex));
  if (!regex.empty() && !d.group().resolved_regexes().count(regex)) {
    // A new one is checked and resolved against the image now (Kafka
    // resolves it in the background and bumps the epoch when it is done).
    auto compiled = topic_regex::compile(regex);
    if (auto* e = std::get_if<std::string>(&compiled)) return heartbeat_refusal{error_code::invalid_regular_expression, *e};
    auto r = regex_record(d.group().group_id(), regex);
    r.value.emplace();
    r.value->topics = std::get<topic_regex>(compiled).resolve(visible_names(topics, may_describe));
    r.value->version = topics.version();
    r.value->timestamp = now_ms;
    d.add(std::move(r));
  }
  bump = true;
  return std::nullopt;
}

bool consumer_group_manager::refresh_regexes(draft& d, const topic_image_view& topics,
                                             const topic_filter& may_describe, int64_t now_ms) const {
  const auto subscribed = d.group().subscribed_regexes();
  if (subscribed.empty()) return false;
  // Kafka resolves them all together and reads the time and version of one;
  // the oldest stands for them here (one resolved on its own since is newer).
  const auto& resolved = d.group().resolved_regexes();
  int64_t last_ms = std::numeric_limits<int64_t>::max();
  int64_t last_version = std::numeric_limits<int64_t>::max();
  for (const auto& [regex, r] : resolved) {
    last_ms = std::min(last_ms, r.timestamp_ms);
    last_version = std::min(last_version, r.version);
  }
  if (!resolved.empty() && now_ms <= last_ms + regex_min_refresh_interval_ms) return false;
  const bool due = subscribed.size() != resolved.size() || resolved.empty() || last_version < new_topics_version_ ||
                   now_ms > last_ms + options_.regex_refresh_interval_ms;
  if (!due) return false;
  const auto names = visible_names(topics, may_describe);
  bool changed = false;
  for (const auto& [regex, members] : subscribed) {
    auto compiled = topic_regex::compile(regex);
    if (!std::holds_alternative<topic_regex>(compiled)) continue;  // refused when subscribed to
    auto r = regex_record(d.group().group_id(), regex);
    r.value.emplace();
    r.value->topics = std::get<topic_regex>(compiled).resolve(names);
    r.value->version = topics.version();
    r.value->timestamp = now_ms;
    auto old = resolved.find(regex);
    if (old == resolved.end() ||
        old->second.topics != std::set<std::string>(r.value->topics.begin(), r.value->topics.end()))
      changed = true;
    d.add(std::move(r));
  }
  return changed;
}

void consumer_group_manager::maybe_bump_epoch(draft& d, bool bump, const topic_image_view& topics) {
  const std::string& id = d.group().group_id();
  // Due when the image changed a subscribed topic or the shard loaded the
  // group (no check yet), or a write that checked it was rolled back.
  auto checked = hash_checked_.find(id);
  const bool due = checked == hash_checked_.end() || d.group().group_epoch() < checked->second;
  if (!bump && !due) return;
  const int64_t hash = metadata_hash_of(d.group().subscribed_topics(), topics);
  if (hash != d.group().metadata_hash()) bump = true;
  if (bump) {
    d.add(epoch_record(id, d.group().group_epoch() + 1, hash));
    ++d.bumps;
  }
  d.hash_checked_at = d.group().group_epoch();
  // Subscription metadata of a release before 4.1 gives way to the hash.
  if (d.group().has_legacy_partition_metadata()) {
    partition_metadata_record r;
    r.key.group_id = id;
    d.add(std::move(r));
  }
}

reconciliation_input consumer_group_manager::reconciliation_of(const consumer_group& group,
                                                               const consumer_member& member,
                                                               const std::optional<topic_partitions>& owned,
                                                               bool subscription_changed,
                                                               const topic_image_view& topics) {
  reconciliation_input input;
  input.target_epoch = member_epoch{group.assignment_epoch()};
  if (auto t = group.target_assignment().find(member.member_id); t != group.target_assignment().end())
    input.target = t->second;
  input.owned = owned;
  input.subscription_changed = subscription_changed;
  const auto& regex = member.subscription.subscribed_topic_regex;
  const std::set<std::string>* regex_topics = nullptr;
  if (auto r = group.resolved_regexes().find(regex); !regex.empty() && r != group.resolved_regexes().end())
    regex_topics = &r->second.topics;
  input.subscribed_topic_ids =
      subscribed_topic_ids(member, regex_topics, [&](std::string_view name) { return topics.topic_id(name); });
  const auto& epochs = group.current_partition_epochs();
  input.owner = [&epochs](const protocol::uuid& topic_id, int32_t partition) {
    return epochs.owner_epoch(topic_id, partition);
  };
  return input;
}

void consumer_group_manager::track_revocation(const std::string& group_id, const consumer_member& member,
                                              int64_t now_ms, bool classic_too) {
  if (member.uses_classic_protocol() && !classic_too) return;
  if (member.current.state == member_state::unrevoked_partitions) {
    rebalance_timeouts_[{group_id, member.member_id}] = {now_ms + member.subscription.rebalance_timeout_ms,
                                                         member.current.epoch.value};
  } else {
    rebalance_timeouts_.erase({group_id, member.member_id});
  }
}

void consumer_group_manager::forget_member(const std::string& group_id, const std::string& member_id) {
  sessions_.erase({group_id, member_id});
  rebalance_timeouts_.erase({group_id, member_id});
  join_timeouts_.erase({group_id, member_id});
  sync_timeouts_.erase({group_id, member_id});
}

expiry consumer_group_manager::expire_sessions(int64_t now_ms, const topic_image_view& topics) {
  std::set<session_key> fenced;
  for (const auto& [key, deadline] : sessions_)
    if (deadline <= now_ms) fenced.insert(key);
  for (auto* timeouts : {&join_timeouts_, &sync_timeouts_}) {
    for (auto it = timeouts->begin(); it != timeouts->end();) {
      if (it->second <= now_ms) {
        fenced.insert(it->first);
        it = timeouts->erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto it = rebalance_timeouts_.begin(); it != rebalance_timeouts_.end();) {
    if (it->second.deadline_ms > now_ms) {
      ++it;
      continue;
    }
    // Only a member still at the epoch it was to revoke in is fenced.
    auto git = groups_.find(it->first.group_id);
    const consumer_member* m = git == groups_.end() ? nullptr : git->second.member(it->first.member_id);
    if (m && m->current.epoch.value == it->second.epoch) fenced.insert(it->first);
    it = rebalance_timeouts_.erase(it);
  }
  // One member at a time, as Kafka's timers fence them: a downgrade by one
  // leaves nothing for the next.
  expiry out;
  for (const auto& key : fenced) {
    auto git = groups_.find(key.group_id);
    auto removed = git != groups_.end() && git->second.member(key.member_id)
                       ? fence_members(key.group_id, {key.member_id}, topics)
                       : std::nullopt;
    if (removed) {
      out.records.insert(out.records.end(), removed->records.begin(), removed->records.end());
      if (removed->downgraded) out.downgrades.push_back(std::move(*removed->downgraded));
    }
    // Gone already, or its records are inconsistent: not retried for ever.
    else forget_member(key.group_id, key.member_id);
  }
  return out;
}

std::optional<int64_t> consumer_group_manager::next_deadline_ms() const {
  std::optional<int64_t> next;
  for (const auto& [key, deadline] : sessions_)
    if (!next || deadline < *next) next = deadline;
  for (const auto& [key, timeout] : rebalance_timeouts_)
    if (!next || timeout.deadline_ms < *next) next = timeout.deadline_ms;
  for (const auto* timeouts : {&join_timeouts_, &sync_timeouts_})
    for (const auto& [key, deadline] : *timeouts)
      if (!next || deadline < *next) next = deadline;
  return next;
}

std::vector<consumer_group_record> deletion_records(const consumer_group& group) {
  const std::string& group_id = group.group_id();
  std::vector<consumer_group_record> out;
  for (const auto& [id, m] : group.members())
    out.push_back(member_tombstone<current_assignment_record>(group_id, id));
  for (const auto& [id, m] : group.members())
    out.push_back(member_tombstone<target_assignment_member_record>(group_id, id));
  target_assignment_epoch_record target;
  target.key.group_id = group_id;
  out.push_back(std::move(target));
  for (const auto& [id, m] : group.members())
    out.push_back(member_tombstone<member_metadata_record>(group_id, id));
  for (const auto& [regex, r] : group.resolved_regexes()) out.push_back(regex_record(group_id, regex));
  partition_metadata_record subscription;
  subscription.key.group_id = group_id;
  out.push_back(std::move(subscription));
  group_epoch_record epoch;
  epoch.key.group_id = group_id;
  out.push_back(std::move(epoch));
  return out;
}

std::vector<consumer_group_record> consumer_group_manager::delete_group(const std::string& group_id) {
  auto git = groups_.find(group_id);
  if (git == groups_.end()) return {};
  draft d(git->second);
  for (auto& r : deletion_records(git->second)) d.add(std::move(r));
  if (d.error) return {};
  for (const auto& [id, m] : git->second.members()) forget_member(group_id, id);
  hash_checked_.erase(group_id);
  groups_.erase(git);
  return std::move(d.records);
}

int32_t consumer_group_manager::group_option(const std::string& group_id, std::string_view key,
                                             int32_t broker_value) const {
  if (!configs_) return broker_value;
  return configs_->group_config_int(group_id, key).value_or(broker_value);
}

int32_t consumer_group_manager::session_timeout_ms(const std::string& group_id) const {
  return group_option(group_id, "consumer.session.timeout.ms", options_.session_timeout_ms);
}

int32_t consumer_group_manager::session_timeout_of(const std::string& group_id, const consumer_member& member) const {
  return member.subscription.classic ? member.subscription.classic->session_timeout_ms : session_timeout_ms(group_id);
}

void consumer_group_manager::activate(int64_t now_ms) {
  hash_checked_.clear();
  for (const auto& [group_id, group] : groups_) {
    // Kafka starts every loaded member's session at the group's timeout.
    for (const auto& [member_id, member] : group.members()) {
      sessions_[{group_id, member_id}] = now_ms + session_timeout_ms(group_id);
      track_revocation(group_id, member, now_ms, true);
    }
  }
}

void consumer_group_manager::on_topics_changed(const std::set<std::string>& changed, bool created,
                                               int64_t image_version) {
  if (created) new_topics_version_ = image_version;
  if (changed.empty()) return;
  for (const auto& [group_id, group] : groups_) {
    for (const auto& [name, count] : group.subscribed_topics()) {
      if (changed.count(name)) {
        hash_checked_.erase(group_id);
        break;
      }
    }
  }
}

std::optional<consumer_group> consumer_group_manager::snapshot(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return std::nullopt;
  return it->second;
}

void consumer_group_manager::restore(const std::string& group_id, std::optional<consumer_group> group,
                                     int64_t now_ms) {
  for (auto it = sessions_.lower_bound({group_id, ""}); it != sessions_.end() && it->first.group_id == group_id;) {
    if (!group || !group->member(it->first.member_id))
      it = sessions_.erase(it);
    else
      ++it;
  }
  for (auto it = rebalance_timeouts_.lower_bound({group_id, ""});
       it != rebalance_timeouts_.end() && it->first.group_id == group_id;) {
    const consumer_member* m = group ? group->member(it->first.member_id) : nullptr;
    if (!m || m->current.state != member_state::unrevoked_partitions)
      it = rebalance_timeouts_.erase(it);
    else
      ++it;
  }
  for (auto* timeouts : {&join_timeouts_, &sync_timeouts_}) {
    for (auto it = timeouts->lower_bound({group_id, ""}); it != timeouts->end() && it->first.group_id == group_id;) {
      if (!group || !group->member(it->first.member_id))
        it = timeouts->erase(it);
      else
        ++it;
    }
  }
  hash_checked_.erase(group_id);
  if (!group) {
    groups_.erase(group_id);
    return;
  }
  for (const auto& [member_id, member] : group->members())
    sessions_.try_emplace({group_id, member_id}, now_ms + session_timeout_of(group_id, member));
  groups_.insert_or_assign(group_id, std::move(*group));
}

std::set<std::string> consumer_group_manager::groups_with_ended_sessions(int64_t now_ms) const {
  std::set<std::string> out;
  for (const auto& [key, deadline] : sessions_)
    if (deadline <= now_ms) out.insert(key.group_id);
  for (const auto& [key, timeout] : rebalance_timeouts_)
    if (timeout.deadline_ms <= now_ms) out.insert(key.group_id);
  for (const auto* timeouts : {&join_timeouts_, &sync_timeouts_})
    for (const auto& [key, deadline] : *timeouts)
      if (deadline <= now_ms) out.insert(key.group_id);
  return out;
}

}  // namespace hw::broker::group::consumer
