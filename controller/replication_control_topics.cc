// Replication control's topics and partitions: CreateTopics, DeleteTopics,
// CreatePartitions, and where new replicas go.

#include <algorithm>
#include <set>

#include "controller/replication_control.h"
#include "controller/replica_placer.h"
#include "controller/topic_name.h"

namespace hw::controller {

namespace {

void set_error(auto& result, const api_error& e) {
  result.error_code = static_cast<int16_t>(e.code);
  if (e.code == error_code::throttling_quota_exceeded && e.message.empty()) result.error_message = std::nullopt;
  else result.error_message = e.message;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

msg::partition_record new_partition(const metadata_image& image, const topic_id& topic, int32_t partition,
                                    const std::vector<node_id>& replicas, const std::vector<node_id>& isr) {
  msg::partition_record r;
  r.topic_id = topic.value;
  r.partition_id = partition;
  r.replicas = storage::plain_list(replicas);
  r.leader = isr.front().value;
  r.isr = storage::plain_list(isr);
  r.leader_epoch = 0;
  r.partition_epoch = 0;
  if (image.version().directory_assignment_supported()) {
    for (node_id b : replicas) r.directories.push_back(image.default_log_dir(b));
  }
  return r;
}

std::vector<node_id> active_replicas(const metadata_image& image, const std::vector<node_id>& replicas) {
  std::vector<node_id> isr;
  for (node_id r : replicas) {
    if (image.active_broker(r)) isr.push_back(r);
  }
  return isr;
}

// Per topic name, the request-level errors of CreateTopics: duplicates,
// names, collisions, existing topics, null config values.
std::map<std::string, api_error> validate_new_topics(const metadata_image& image,
                                                     const msg::create_topics_request& request) {
  std::map<std::string, api_error> errors;
  std::set<std::string> seen;
  for (const auto& t : request.topics) {
    if (!seen.insert(t.name).second) errors[t.name] = {error_code::invalid_request, "Duplicate topic name."};
  }
  for (const auto& t : request.topics) {
    if (errors.count(t.name)) continue;
    if (t.name == "__cluster_metadata") {
      errors[t.name] = {error_code::invalid_request, "Creation of internal topic __cluster_metadata is prohibited."};
      continue;
    }
    if (auto why = invalid_topic_name(t.name)) errors[t.name] = {error_code::invalid_topic_exception, *why};
    // '.' and '_' map to the same metric name: a new name may not differ
    // from an existing one only there.
    if (has_collision_chars(t.name)) {
      std::string unified = unify_collision_chars(t.name);
      for (const auto& [existing, _] : image.topics_by_name) {
        if (has_collision_chars(existing) && unify_collision_chars(existing) == unified) {
          errors[t.name] = {error_code::invalid_topic_exception,
                            "Topic '" + t.name + "' collides with existing topic: " + existing};
          break;
        }
      }
    }
    if (image.topics_by_name.count(t.name)) {
      errors[t.name] = {error_code::topic_already_exists, "Topic '" + t.name + "' already exists."};
    }
  }
  for (const auto& t : request.topics) {
    if (errors.count(t.name)) continue;
    std::vector<std::string> nulls;
    for (const auto& c : t.configs) {
      if (!c.value) nulls.push_back(c.name);
    }
    if (!nulls.empty()) {
      errors[t.name] = {error_code::invalid_config, "Null value not supported for topic configs: " + join(nulls, ",")};
    }
  }
  return errors;
}

}  // namespace

std::optional<std::vector<std::vector<node_id>>> replication_control::place(const metadata_image& image,
                                                                            int32_t partitions,
                                                                            int32_t replication_factor,
                                                                            std::string* error) {
  std::vector<usable_broker> brokers;
  for (const auto& [id, b] : image.brokers) {
    // A broker whose every log dir is cordoned takes no new replicas (4.3).
    bool all_cordoned = !b.log_dirs.empty() && std::all_of(b.log_dirs.begin(), b.log_dirs.end(), [&](const auto& d) {
      return std::count(b.cordoned_log_dirs.begin(), b.cordoned_log_dirs.end(), d) > 0;
    });
    if (all_cordoned) continue;
    brokers.push_back({id, b.rack, b.fenced || b.in_controlled_shutdown});
  }
  auto placed = place_replicas(std::move(brokers), partitions, replication_factor, random_);
  if (auto* e = std::get_if<placement_error>(&placed)) {
    *error = e->message;
    return std::nullopt;
  }
  return std::get<0>(std::move(placed));
}

api_error replication_control::validate_manual_assignment(const metadata_image& image,
                                                          const std::vector<node_id>& replicas,
                                                          std::optional<size_t> replication_factor) {
  if (replicas.empty()) {
    return {error_code::invalid_replica_assignment, "The manual partition assignment includes an empty replica list."};
  }
  std::vector<node_id> sorted = replicas;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (!image.broker(sorted[i])) {
      return {error_code::invalid_replica_assignment, "The manual partition assignment includes broker " +
                                                          std::to_string(sorted[i].value) +
                                                          ", but no such broker is registered."};
    }
    if (i > 0 && sorted[i] == sorted[i - 1]) {
      return {error_code::invalid_replica_assignment, "The manual partition assignment includes the broker " +
                                                          std::to_string(sorted[i].value) + " more than once."};
    }
  }
  if (replication_factor && sorted.size() != *replication_factor) {
    return {error_code::invalid_replica_assignment,
            "The manual partition assignment includes a partition with " + std::to_string(sorted.size()) +
                " replica(s), but this is not consistent with previous partitions, which have " +
                std::to_string(*replication_factor) + " replica(s)."};
  }
  return {};
}

api_error replication_control::manual_assignment(const metadata_image& image,
                                                 const msg::create_topics_request::creatable_topic& topic,
                                                 new_partitions& parts) {
  if (topic.replication_factor != -1) {
    return {error_code::invalid_request,
            "A manual partition assignment was specified, but replication factor was not set to -1."};
  }
  if (topic.num_partitions != -1) {
    return {error_code::invalid_request,
            "A manual partition assignment was specified, but numPartitions was not set to -1."};
  }
  std::optional<size_t> replication_factor;
  for (const auto& a : topic.assignments) {
    if (parts.count(a.partition_index)) {
      return {error_code::invalid_replica_assignment,
              "Found multiple manual partition assignments for partition " + std::to_string(a.partition_index)};
    }
    const std::vector<node_id> replicas = storage::named_list<node_id>(a.broker_ids);
    if (api_error e = validate_manual_assignment(image, replicas, replication_factor); !e.ok()) return e;
    replication_factor = replicas.size();
    std::vector<node_id> isr = active_replicas(image, replicas);
    if (isr.empty()) {
      return {error_code::invalid_replica_assignment,
              "All brokers specified in the manual partition assignment for partition " +
                  std::to_string(a.partition_index) + " are fenced or in controlled shutdown."};
    }
    parts[a.partition_index] = {replicas, std::move(isr)};
  }
  for (int32_t i = 0; i < static_cast<int32_t>(parts.size()); ++i) {
    if (!parts.count(i)) {
      return {error_code::invalid_replica_assignment, "partitions should be a consecutive 0-based integer sequence"};
    }
  }
  return {};
}

api_error replication_control::placed_assignment(const metadata_image& image,
                                                 const msg::create_topics_request::creatable_topic& topic,
                                                 new_partitions& parts) {
  if (topic.replication_factor < -1 || topic.replication_factor == 0) {
    return {error_code::invalid_replication_factor,
            "Replication factor must be larger than 0, or -1 to use the default value."};
  }
  if (topic.num_partitions < -1 || topic.num_partitions == 0) {
    return {error_code::invalid_partitions, "Number of partitions was set to an invalid non-positive value."};
  }
  int32_t num_partitions = topic.num_partitions == -1 ? options_.num_partitions : topic.num_partitions;
  int32_t rf = topic.replication_factor == -1 ? options_.default_replication_factor : topic.replication_factor;
  std::string why;
  auto placed = place(image, num_partitions, rf, &why);
  if (!placed) {
    return {error_code::invalid_replication_factor,
            "Unable to replicate the partition " + std::to_string(rf) + " time(s): " + why};
  }
  for (int32_t p = 0; p < num_partitions; ++p) {
    std::vector<node_id> isr = active_replicas(image, (*placed)[static_cast<size_t>(p)]);
    if (isr.empty()) {
      return {error_code::invalid_replication_factor,
              "Unable to replicate the partition " + std::to_string(rf) +
                  " time(s): All brokers are currently fenced or in controlled shutdown."};
    }
    parts[p] = {(*placed)[static_cast<size_t>(p)], std::move(isr)};
  }
  return {};
}

api_error replication_control::create_topic(const metadata_image& image,
                                            const msg::create_topics_request::creatable_topic& topic,
                                            std::vector<metadata_record>& records,
                                            msg::create_topics_response::creatable_topic_result& result,
                                            const partition_change_quota& quota) {
  new_partitions parts;
  api_error assigned = topic.assignments.empty() ? placed_assignment(image, topic, parts) : manual_assignment(image, topic, parts);
  if (!assigned.ok()) return assigned;
  if (quota && !quota(static_cast<int32_t>(parts.size()))) return throttled_by_quota();

  topic_id id(protocol::uuid::random(random_));
  while (image.topics_by_id.count(id)) id = topic_id(protocol::uuid::random(random_));
  result.topic_id = id.value;
  result.error_code = 0;
  result.error_message = std::nullopt;
  result.num_partitions = static_cast<int32_t>(parts.size());
  result.replication_factor = static_cast<int16_t>(parts.begin()->second.first.size());
  result.topic_config_error_code = 0;
  std::map<std::string, std::string> overrides;
  for (const auto& c : topic.configs) overrides[c.name] = c.value.value_or("");
  if (options_.effective_topic_configs) {
    for (const effective_config& c : options_.effective_topic_configs(overrides, image)) {
      result.configs->push_back({c.name, c.sensitive ? std::nullopt : c.value, c.read_only, c.source, c.sensitive, {}});
    }
  }

  msg::topic_record record;
  record.name = topic.name;
  record.topic_id = id.value;
  // TopicRecord, then its ConfigRecords (already in `records`' tail order
  // by the caller), then the PartitionRecords.
  records.insert(records.begin(), record);
  for (auto& [p, replicas_isr] : parts) {
    records.push_back(new_partition(image, id, p, replicas_isr.first, replicas_isr.second));
  }
  return {};
}

controller_result<msg::create_topics_response> replication_control::create_topics(
    const metadata_image& image, const msg::create_topics_request& request, const partition_change_quota& quota) {
  controller_result<msg::create_topics_response> out;
  std::map<std::string, api_error> errors = validate_new_topics(image, request);
  std::map<std::string, msg::create_topics_response::creatable_topic_result> successes;
  for (const auto& t : request.topics) {
    if (errors.count(t.name) || successes.count(t.name)) continue;
    std::vector<metadata_record> topic_records;
    api_error e = configs_.new_topic_config_records(image, t, topic_records);
    msg::create_topics_response::creatable_topic_result result;
    result.name = t.name;
    if (e.ok()) e = create_topic(image, t, topic_records, result, quota);
    if (!e.ok()) {
      errors[t.name] = e;
      continue;
    }
    out.records.insert(out.records.end(), topic_records.begin(), topic_records.end());
    successes[t.name] = std::move(result);
  }

  std::set<std::string> answered;
  for (const auto& t : request.topics) {
    if (!answered.insert(t.name).second) continue;
    auto err = errors.find(t.name);
    if (err != errors.end()) {
      msg::create_topics_response::creatable_topic_result r;
      r.name = t.name;
      set_error(r, err->second);
      out.response.topics.push_back(std::move(r));
    } else {
      out.response.topics.push_back(successes.at(t.name));
    }
  }
  if (request.validate_only) out.records.clear();
  return out;
}

controller_result<msg::delete_topics_response> replication_control::delete_topics(
    const metadata_image& image, const msg::delete_topics_request& request, int16_t version,
    const partition_change_quota& quota) const {
  controller_result<msg::delete_topics_response> out;
  auto answer = [&](std::optional<std::string> name, topic_id id, api_error e) {
    msg::delete_topics_response::deletable_topic_result r;
    r.name = std::move(name);
    r.topic_id = id.value;
    r.error_code = static_cast<int16_t>(e.code);
    if (!e.ok()) r.error_message = e.message.empty() ? std::nullopt : std::optional<std::string>(e.message);
    out.response.responses.push_back(std::move(r));
  };
  // Requests before v6 name topics; v6 names or ids them.
  std::vector<std::pair<std::optional<std::string>, topic_id>> wanted;
  if (version < 6) {
    for (const auto& n : request.topic_names) wanted.emplace_back(n, topic_id{});
  } else {
    for (const auto& t : request.topics) wanted.emplace_back(t.name, topic_id(t.topic_id));
  }
  std::set<std::string> names;
  std::set<topic_id> ids;
  std::set<topic_id> deleting;
  for (const auto& [name, id] : wanted) {
    if (name && !id.is_zero()) {
      answer(name, id, {error_code::invalid_request, "You may not specify both topic name and topic id."});
      continue;
    }
    if (!name && id.is_zero()) {
      answer(name, id, {error_code::invalid_request, "Neither topic name nor id were specified."});
      continue;
    }
    if (name && !names.insert(*name).second) {
      answer(name, id, {error_code::invalid_request, "Duplicate topic name."});
      continue;
    }
    if (!name && !ids.insert(id).second) {
      answer(name, id, {error_code::invalid_request, "Duplicate topic id."});
      continue;
    }
    const topic_image* topic = name ? image.topic(*name) : image.topic(id);
    if (!topic) {
      if (name) answer(name, id, {error_code::unknown_topic_or_partition, "This server does not host this topic-partition."});
      else answer(name, id, {error_code::unknown_topic_id, "This server does not host this topic ID."});
      continue;
    }
    if (!deleting.insert(topic->id).second) {
      answer(name, id, {error_code::invalid_request, "The provided topic name maps to an ID that was already supplied."});
      continue;
    }
    if (!options_.delete_topic_enable) {
      answer(topic->name, topic->id, {error_code::topic_deletion_disabled, "Topic deletion is disabled."});
      continue;
    }
    if (quota && !quota(static_cast<int32_t>(topic->partitions.size()))) {
      answer(topic->name, topic->id, throttled_by_quota());
      continue;
    }
    msg::remove_topic_record record;
    record.topic_id = topic->id.value;
    out.records.push_back(record);
    answer(topic->name, topic->id, {});
  }
  return out;
}

api_error replication_control::create_partitions_of(const metadata_image& image,
                                                    const msg::create_partitions_request::create_partitions_topic& t,
                                                    std::vector<metadata_record>& records,
                                                    const partition_change_quota& quota) {
  const topic_image* topic = image.topic(t.name);
  if (!topic) return {error_code::unknown_topic_or_partition, "This server does not host this topic-partition."};
  auto current = static_cast<int32_t>(topic->partitions.size());
  if (t.count == current) {
    return {error_code::invalid_partitions, "Topic already has " + std::to_string(current) + " partition(s)."};
  }
  if (t.count < current) {
    return {error_code::invalid_partitions, "The topic " + t.name + " currently has " + std::to_string(current) +
                                                " partition(s); " + std::to_string(t.count) + " would not be an increase."};
  }
  int32_t additional = t.count - current;
  if (t.assignments && static_cast<int32_t>(t.assignments->size()) != additional) {
    return {error_code::invalid_replica_assignment, "Attempted to add " + std::to_string(additional) +
                                                        " additional partition(s), but only " +
                                                        std::to_string(t.assignments->size()) + " assignment(s) were specified."};
  }
  if (quota && !quota(additional)) return throttled_by_quota();
  if (topic->partitions.empty()) {
    return {error_code::unknown_server_error, "Invalid state: topic " + t.name + " appears to have no partitions."};
  }
  auto rf = static_cast<int32_t>(topic->partitions.begin()->second.replicas.size());
  std::vector<std::vector<node_id>> assignments;
  if (t.assignments) {
    for (size_t i = 0; i < t.assignments->size(); ++i) {
      const auto replicas = storage::named_list<node_id>((*t.assignments)[i].broker_ids);
      if (api_error e = validate_manual_assignment(image, replicas, static_cast<size_t>(rf)); !e.ok()) return e;
      if (std::none_of(replicas.begin(), replicas.end(), [&](node_id r) { return image.active_broker(r); })) {
        return {error_code::invalid_replica_assignment,
                "All brokers specified in the manual partition assignment for partition " +
                    std::to_string(current + static_cast<int32_t>(i)) + " are fenced or in controlled shutdown."};
      }
      assignments.push_back(replicas);
    }
  } else {
    std::string why;
    auto placed = place(image, additional, rf, &why);
    if (!placed) return {error_code::invalid_replication_factor, why};
    assignments = std::move(*placed);
  }
  int32_t partition = current;
  for (const auto& replicas : assignments) {
    std::vector<node_id> isr = active_replicas(image, replicas);
    if (isr.empty()) {
      return {error_code::invalid_replication_factor,
              "Unable to replicate the partition " + std::to_string(rf) +
                  " time(s): All brokers are currently fenced or in controlled shutdown."};
    }
    records.push_back(new_partition(image, topic->id, partition++, replicas, isr));
  }
  return {};
}

controller_result<msg::create_partitions_response> replication_control::create_partitions(
    const metadata_image& image, const msg::create_partitions_request& request, const partition_change_quota& quota) {
  controller_result<msg::create_partitions_response> out;
  std::set<std::string> names;
  for (const auto& t : request.topics) {
    msg::create_partitions_response::create_partitions_topic_result r;
    r.name = t.name;
    api_error e;
    if (!names.insert(t.name).second) {
      e = {error_code::invalid_request, "Duplicate topic name."};
    } else {
      std::vector<metadata_record> records;
      e = create_partitions_of(image, t, records, quota);
      if (e.ok()) out.records.insert(out.records.end(), records.begin(), records.end());
    }
    if (e.ok()) r.error_code = 0;
    else set_error(r, e);
    out.response.results.push_back(std::move(r));
  }
  if (request.validate_only) out.records.clear();
  return out;
}

}  // namespace hw::controller
