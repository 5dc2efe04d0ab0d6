#include "broker/group/consumer/consumer_group_manager.h"

#include "broker/group/consumer/heartbeat_request.h"
#include "broker/group/consumer/member_reconciliation.h"
#include "broker/group/consumer/metadata_hash.h"
#include "broker/group/consumer/topic_regex.h"

namespace hw::broker::group::consumer {

namespace msg = protocol::msg;
using protocol::error_code;

namespace {

group_epoch_record epoch_record(const std::string& group_id, int32_t epoch, int64_t hash) {
  group_epoch_record r;
  r.key.group_id = group_id;
  r.value.emplace();
  r.value->epoch = epoch;
  r.value->metadata_hash = hash;
  return r;
}

template <class Record>
Record tombstone(const std::string& group_id, const std::string& member_id) {
  Record r;
  r.key.group_id = group_id;
  r.key.member_id = member_id;
  return r;
}

// The members' subscriptions once `changed` replaces (or, null, removes) `member_id`'s.
std::vector<const member_subscription*> subscriptions_with(const consumer_group& group, const std::string& member_id,
                                                           const member_subscription* changed) {
  std::vector<const member_subscription*> out;
  for (const auto& [id, m] : group.members())
    if (id != member_id) out.push_back(&m.subscription);
  if (changed) out.push_back(changed);
  return out;
}

}  // namespace

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

std::optional<std::string> consumer_group_manager::apply(consumer_group& group,
                                                         const std::vector<consumer_group_record>& records) {
  // The records were made from this group's state: one it refuses is a
  // defect here, not bad input; the caller answers UNKNOWN_SERVER_ERROR.
  for (const auto& r : records)
    if (auto error = group.replay(r)) return "consumer group " + group.group_id() + ": " + *error;
  return std::nullopt;
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

std::vector<consumer_group_record> consumer_group_manager::remove_member(consumer_group& group,
                                                                         const std::string& member_id,
                                                                         const topic_image_view& topics,
                                                                         int64_t now_ms) {
  (void)now_ms;
  std::vector<consumer_group_record> records;
  records.emplace_back(tombstone<current_assignment_record>(group.group_id(), member_id));
  records.emplace_back(tombstone<target_assignment_member_record>(group.group_id(), member_id));
  records.emplace_back(tombstone<member_metadata_record>(group.group_id(), member_id));
  // A regular expression nobody else subscribes to is forgotten.
  const auto* member = group.member(member_id);
  if (member && !member->subscription.subscribed_topic_regex.empty()) {
    const auto& regex = member->subscription.subscribed_topic_regex;
    if (group.subscribed_regexes().at(regex) == 1 && group.resolved_regexes().count(regex)) {
      regular_expression_record r;
      r.key.group_id = group.group_id();
      r.key.regular_expression = regex;
      records.emplace_back(std::move(r));
    }
  }
  const auto remaining = subscriptions_with(group, member_id, nullptr);
  auto resolved = group.resolved_regexes();
  if (member) {
    const auto& regex = member->subscription.subscribed_topic_regex;
    if (!regex.empty() && group.subscribed_regexes().at(regex) == 1) resolved.erase(regex);
  }
  records.emplace_back(epoch_record(group.group_id(), group.group_epoch() + 1,
                                    metadata_hash_of(subscribed_topics(remaining, resolved), topics)));
  sessions_.erase({group.group_id(), member_id});
  if (auto error = apply(group, records)) return {};
  return records;
}

heartbeat_outcome consumer_group_manager::heartbeat(const msg::consumer_group_heartbeat_request& request,
                                                    int16_t version, const std::string& client_id,
                                                    const std::string& client_host, const topic_image_view& topics,
                                                    int64_t now_ms,
                                                    const std::function<std::string()>& new_member_id) {
  if (auto refused = check_heartbeat_request(request, version, options_.assignors))
    return refuse(refused->code, refused->message);
  const member_epoch epoch{request.member_epoch};
  auto git = groups_.find(request.group_id);

  if (epoch == leave_group_epoch || epoch == leave_group_static_epoch) {
    if (git == groups_.end())
      return refuse(error_code::group_id_not_found, "Consumer group " + request.group_id + " not found.");
    if (!git->second.member(request.member_id))
      return refuse(error_code::unknown_member_id,
                    "Member " + request.member_id + " is not a member of group " + request.group_id + ".");
    heartbeat_outcome out;
    out.records = remove_member(git->second, request.member_id, topics, now_ms);
    out.response.member_id = request.member_id;
    out.response.member_epoch = epoch.value;
    return out;
  }

  if (git == groups_.end()) {
    if (epoch != joining_epoch)
      return refuse(error_code::group_id_not_found, "Consumer group " + request.group_id + " not found.");
    git = groups_.try_emplace(request.group_id, request.group_id).first;
  }
  consumer_group& group = git->second;
  const std::string member_id = request.member_id.empty() ? new_member_id() : request.member_id;
  const consumer_member* known = group.member(member_id);
  if (!known && static_cast<int64_t>(group.members().size()) >= options_.max_size) {
    return refuse(error_code::group_max_size_reached, "The consumer group has reached its maximum capacity of " +
                                                          std::to_string(options_.max_size) + " members.");
  }
  const auto owned = owned_partitions(request);
  consumer_member member;
  if (known) {
    auto check = check_heartbeat_epoch(*known, epoch, owned);
    if (check.error != error_code::none) return refuse(check.error, check.message);
    member = *known;
  } else {
    if (epoch != joining_epoch)
      return refuse(error_code::unknown_member_id,
                    "Member " + member_id + " is not a member of group " + request.group_id + ".");
    member.member_id = member_id;
  }

  std::vector<consumer_group_record> records;
  consumer_member updated = with_heartbeat(member, request, client_id, client_host);
  if (!known || updated.subscription != member.subscription) {
    member_metadata_record m;
    m.key.group_id = group.group_id();
    m.key.member_id = member_id;
    m.value = to_value(updated.subscription);
    records.emplace_back(std::move(m));
  }

  // A new regular expression is checked and resolved against the image now.
  auto resolved = group.resolved_regexes();
  const auto& regex = updated.subscription.subscribed_topic_regex;
  const bool regex_changed = regex != member.subscription.subscribed_topic_regex;
  if (regex_changed && !regex.empty() && !resolved.count(regex)) {
    auto compiled = topic_regex::compile(regex);
    if (auto* e = std::get_if<std::string>(&compiled)) return refuse(error_code::invalid_regular_expression, *e);
    const auto topics_matched = std::get<topic_regex>(compiled).resolve(topics.topic_names());
    regular_expression_record r;
    r.key.group_id = group.group_id();
    r.key.regular_expression = regex;
    r.value.emplace();
    r.value->topics = topics_matched;
    r.value->version = 0;
    r.value->timestamp = now_ms;
    records.emplace_back(r);
    resolved[regex] = {{topics_matched.begin(), topics_matched.end()}, 0, now_ms};
  }
  // The member's old expression, if nobody else uses it any more.
  const auto& old_regex = member.subscription.subscribed_topic_regex;
  if (regex_changed && !old_regex.empty() && group.subscribed_regexes()[old_regex] == 1 && resolved.count(old_regex)) {
    regular_expression_record r;
    r.key.group_id = group.group_id();
    r.key.regular_expression = old_regex;
    records.emplace_back(std::move(r));
    resolved.erase(old_regex);
  }

  const bool subscription_changed =
      updated.subscription.subscribed_topic_names != member.subscription.subscribed_topic_names || regex_changed;
  int32_t group_epoch = group.group_epoch();
  if (subscription_changed) {
    const auto after = subscriptions_with(group, member_id, &updated.subscription);
    group_epoch += 1;
    records.emplace_back(
        epoch_record(group.group_id(), group_epoch, metadata_hash_of(subscribed_topics(after, resolved), topics)));
  }

  // A target assignment for the group epoch, if it has none yet.
  int32_t target_epoch = group.assignment_epoch();
  topic_partitions target;
  if (auto t = group.target_assignment().find(member_id); t != group.target_assignment().end()) target = t->second;
  if (group_epoch > group.assignment_epoch()) {
    // Computed on the group as the records above leave it.
    consumer_group next = group;
    for (const auto& r : records) next.replay(r);
    const assignor* chosen = assignor_for(next, updated.subscription.server_assignor);
    if (!chosen) return refuse(error_code::unknown_server_error, "No server assignor is configured.");
    auto computed = compute_target_assignment(next, group_epoch, now_ms, *chosen, topics, {updated, std::nullopt});
    if (auto* error = std::get_if<assignor_error>(&computed)) {
      return refuse(error_code::unknown_server_error, "Failed to compute a new target assignment for epoch " +
                                                          std::to_string(group_epoch) + ": " + error->message + ".");
    }
    auto& result = std::get<target_assignment_result>(computed);
    records.insert(records.end(), result.records.begin(), result.records.end());
    target_epoch = group_epoch;
    target = result.members[member_id];
  }

  // The member's next step towards its target.
  consumer_group next = group;
  for (const auto& r : records) next.replay(r);
  reconciliation_input input;
  input.target_epoch = member_epoch{target_epoch};
  input.target = target;
  input.owned = owned;
  input.subscription_changed = subscription_changed;
  const std::set<std::string>* regex_topics = nullptr;
  if (auto r = next.resolved_regexes().find(regex); !regex.empty() && r != next.resolved_regexes().end())
    regex_topics = &r->second.topics;
  input.subscribed_topic_ids = subscribed_topic_ids(updated, regex_topics, [&](std::string_view name) {
    return topics.topic_id(name);
  });
  const auto& epochs = next.current_partition_epochs();
  input.owner = [&](const protocol::uuid& topic_id, int32_t partition) { return epochs.owner_epoch(topic_id, partition); };
  auto step = reconcile(updated, input);
  if (step.error != error_code::none) return refuse(step.error, step.error_message);
  updated.current = step.next;
  if (!known || updated.current != member.current) {
    current_assignment_record c;
    c.key.group_id = group.group_id();
    c.key.member_id = member_id;
    c.value = to_value(updated.current);
    records.emplace_back(std::move(c));
  }

  if (auto error = apply(group, records)) return refuse(error_code::unknown_server_error, *error);
  sessions_[{group.group_id(), member_id}] = now_ms + options_.session_timeout_ms;

  heartbeat_outcome out;
  out.records = std::move(records);
  out.response.member_id = member_id;
  out.response.member_epoch = updated.current.epoch.value;
  out.response.heartbeat_interval_ms = options_.heartbeat_interval_ms;
  if (!known || answer_carries_assignment(request, member, updated)) out.response.assignment = heartbeat_assignment(updated);
  return out;
}

std::vector<consumer_group_record> consumer_group_manager::expire_sessions(int64_t now_ms,
                                                                           const topic_image_view& topics) {
  std::vector<consumer_group_record> records;
  std::vector<session_key> ended;
  for (const auto& [key, deadline] : sessions_)
    if (deadline <= now_ms) ended.push_back(key);
  for (const auto& key : ended) {
    auto git = groups_.find(key.group_id);
    if (git == groups_.end() || !git->second.member(key.member_id)) {
      sessions_.erase(key);
      continue;
    }
    auto removed = remove_member(git->second, key.member_id, topics, now_ms);
    records.insert(records.end(), removed.begin(), removed.end());
  }
  return records;
}

std::optional<int64_t> consumer_group_manager::next_deadline_ms() const {
  std::optional<int64_t> next;
  for (const auto& [key, deadline] : sessions_)
    if (!next || deadline < *next) next = deadline;
  return next;
}

}  // namespace hw::broker::group::consumer
