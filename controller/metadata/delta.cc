#include "controller/metadata/delta.h"

#include <algorithm>
#include <cassert>

namespace hw::controller {

namespace {

std::string id_str(const protocol::uuid& id) { return id.to_string(); }

std::map<std::string, supported_feature> features_of(const auto& list) {
  std::map<std::string, supported_feature> out;
  for (const auto& f : list) out[f.name] = {f.min_supported_version, f.max_supported_version};
  return out;
}

std::vector<node_id> nodes(const std::vector<int32_t>& ids) { return storage::named_list<node_id>(ids); }

std::vector<broker_endpoint> endpoints_of(const auto& list) {
  std::vector<broker_endpoint> out;
  for (const auto& e : list) out.push_back({e.name, e.host, e.port, e.security_protocol});
  return out;
}

}  // namespace

partition_registration merge(const partition_registration& current, const msg::partition_change_record& r) {
  partition_registration p = current;
  if (r.replicas) p.replicas = nodes(*r.replicas);
  if (r.isr) p.isr = nodes(*r.isr);
  if (r.removing_replicas) p.removing = nodes(*r.removing_replicas);
  if (r.adding_replicas) p.adding = nodes(*r.adding_replicas);
  if (r.directories) p.directories = *r.directories;
  if (r.eligible_leader_replicas) p.elr = nodes(*r.eligible_leader_replicas);
  if (r.last_known_elr) p.last_known_elr = nodes(*r.last_known_elr);
  // A leader field present (even the same leader) starts a new leader epoch.
  if (r.leader != no_leader_change) {
    p.leader = node_id(r.leader);
    ++p.leader_epoch;
  }
  if (r.leader_recovery_state != -1) p.leader_recovery_state = r.leader_recovery_state;
  ++p.partition_epoch;
  return p;
}

metadata_delta::metadata_delta(std::shared_ptr<const metadata_image> base)
    : base_(std::move(base)), next_(*base_) {}

std::optional<std::string> metadata_delta::replay(const metadata_record& record) {
  assert(!applied_);
  return std::visit([this](const auto& r) -> replay_result {
    using T = std::decay_t<decltype(r)>;
    if constexpr (std::is_same_v<T, msg::topic_record>) return replay_topic(r);
    else if constexpr (std::is_same_v<T, msg::partition_record>) return replay_partition(r);
    else if constexpr (std::is_same_v<T, msg::partition_change_record>) return replay_partition_change(r);
    else if constexpr (std::is_same_v<T, msg::remove_topic_record>) return replay_remove_topic(r);
    else if constexpr (std::is_same_v<T, msg::clear_elr_record>) return replay_clear_elr(r);
    else if constexpr (std::is_same_v<T, msg::config_record>) return replay_config(r);
    else if constexpr (std::is_same_v<T, msg::register_broker_record>) return replay_register_broker(r);
    else if constexpr (std::is_same_v<T, msg::unregister_broker_record>) return replay_unregister_broker(r);
    else if constexpr (std::is_same_v<T, msg::fence_broker_record>) {
      return replay_fencing(r.id, r.epoch, 1, 0, nullptr, nullptr);
    } else if constexpr (std::is_same_v<T, msg::unfence_broker_record>) {
      return replay_fencing(r.id, r.epoch, -1, 0, nullptr, nullptr);
    } else if constexpr (std::is_same_v<T, msg::broker_registration_change_record>) {
      return replay_fencing(r.broker_id, r.broker_epoch, r.fenced, r.in_controlled_shutdown,
                            &r.log_dirs, &r.cordoned_log_dirs);
    } else if constexpr (std::is_same_v<T, msg::feature_level_record>) return replay_feature(r);
    else if constexpr (std::is_same_v<T, msg::producer_ids_record>) return replay_producer_ids(r);
    else if constexpr (std::is_same_v<T, msg::register_controller_record>) {
      return replay_register_controller(r);
    } else if constexpr (std::is_same_v<T, msg::user_scram_credential_record>) {
      return replay_scram(r);
    } else if constexpr (std::is_same_v<T, msg::remove_user_scram_credential_record>) {
      return replay_remove_scram(r);
    } else if constexpr (std::is_same_v<T, msg::access_control_entry_record>) {
      return replay_acl(r);
    } else if constexpr (std::is_same_v<T, msg::remove_access_control_entry_record>) {
      return replay_remove_acl(r);
    } else if constexpr (std::is_same_v<T, msg::client_quota_record>) {
      return replay_client_quota(r);
    } else if constexpr (std::is_same_v<T, msg::delegation_token_record>) {
      return replay_delegation_token(r);
    } else if constexpr (std::is_same_v<T, msg::remove_delegation_token_record>) {
      return replay_remove_delegation_token(r);
    } else {
      return std::nullopt;  // not kept in the image (see the header)
    }
  }, record);
}

topic_image& metadata_delta::mutable_topic(const topic_id& id) {
  auto owned = owned_topics_.find(id);
  if (owned != owned_topics_.end()) return *owned->second;
  auto it = next_.topics_by_id.find(id);
  assert(it != next_.topics_by_id.end());
  auto copy = std::make_shared<topic_image>(*it->second);
  it->second = copy;
  owned_topics_.emplace(id, copy);
  return *copy;
}

metadata_delta::replay_result metadata_delta::replay_topic(const msg::topic_record& r) {
  if (r.topic_id.is_zero()) return "TopicRecord for '" + r.name + "' has a zero topic id";
  const topic_id id(r.topic_id);
  if (next_.topics_by_id.count(id)) {
    return "TopicRecord for '" + r.name + "': topic id " + id_str(r.topic_id) + " already exists";
  }
  if (next_.topics_by_name.count(r.name)) return "TopicRecord: topic '" + r.name + "' already exists";
  auto topic = std::make_shared<topic_image>();
  topic->name = r.name;
  topic->id = id;
  next_.topics_by_id.emplace(id, topic);
  next_.topics_by_name.emplace(r.name, id);
  owned_topics_[id] = topic;
  created_topics_.insert(id);
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_partition(const msg::partition_record& r) {
  const topic_id id(r.topic_id);
  if (!next_.topics_by_id.count(id)) {
    return "PartitionRecord " + std::to_string(r.partition_id) + " of unknown topic id " + id_str(r.topic_id);
  }
  if (r.partition_id < 0) return "PartitionRecord with partition id " + std::to_string(r.partition_id);
  if (!r.directories.empty() && r.directories.size() != r.replicas.size()) {
    return "PartitionRecord " + std::to_string(r.partition_id) + ": directories do not match replicas";
  }
  partition_registration p;
  p.replicas = nodes(r.replicas);
  p.isr = nodes(r.isr);
  p.removing = nodes(r.removing_replicas);
  p.adding = nodes(r.adding_replicas);
  p.leader = node_id(r.leader);
  p.leader_recovery_state = r.leader_recovery_state;
  p.leader_epoch = leader_epoch(r.leader_epoch);
  p.partition_epoch = partition_epoch(r.partition_epoch);
  p.directories = r.directories;
  if (r.eligible_leader_replicas) p.elr = nodes(*r.eligible_leader_replicas);
  if (r.last_known_elr) p.last_known_elr = nodes(*r.last_known_elr);
  mutable_topic(id).partitions[r.partition_id] = std::move(p);
  changed_partitions_.emplace(id, r.partition_id);
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_partition_change(const msg::partition_change_record& r) {
  const topic_id id(r.topic_id);
  const partition_registration* old = next_.partition(id, r.partition_id);
  if (!old) {
    return "PartitionChangeRecord for unknown partition " + id_str(r.topic_id) + "-" +
           std::to_string(r.partition_id);
  }
  if (r.leader_recovery_state != -1 && r.leader_recovery_state != 0 && r.leader_recovery_state != 1) {
    return "PartitionChangeRecord with leader recovery state " + std::to_string(r.leader_recovery_state);
  }
  mutable_topic(id).partitions[r.partition_id] = merge(*old, r);
  changed_partitions_.emplace(id, r.partition_id);
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_remove_topic(const msg::remove_topic_record& r) {
  const topic_id id(r.topic_id);
  auto it = next_.topics_by_id.find(id);
  if (it == next_.topics_by_id.end()) return "RemoveTopicRecord for unknown topic id " + id_str(r.topic_id);
  std::string name = it->second->name;
  auto base_topic = base_->topics_by_id.find(id);
  if (base_topic != base_->topics_by_id.end()) deleted_topics_.emplace(id, base_topic->second);
  next_.topics_by_id.erase(it);
  next_.topics_by_name.erase(name);
  owned_topics_.erase(id);
  created_topics_.erase(id);
  std::erase_if(changed_partitions_, [&](const auto& key) { return key.first == id; });
  config_resource resource{config_resource_type::topic, name};
  if (next_.configs.erase(resource)) changed_configs_.insert(resource);
  return std::nullopt;
}

void metadata_delta::clear_elr(topic_image& topic) {
  for (auto& [id, p] : topic.partitions) {
    if (p.elr.empty() && p.last_known_elr.empty()) continue;
    p.elr.clear();
    p.last_known_elr.clear();
    ++p.partition_epoch;
    changed_partitions_.emplace(topic.id, id);
  }
}

metadata_delta::replay_result metadata_delta::replay_clear_elr(const msg::clear_elr_record& r) {
  auto has_elr = [](const topic_image& t) {
    return std::any_of(t.partitions.begin(), t.partitions.end(),
                       [](const auto& e) { return !e.second.elr.empty() || !e.second.last_known_elr.empty(); });
  };
  if (!r.topic_name.empty()) {
    auto it = next_.topics_by_name.find(r.topic_name);
    if (it == next_.topics_by_name.end()) return "ClearElrRecord for unknown topic '" + r.topic_name + "'";
    // Only a topic with something to clear is copied.
    if (has_elr(*next_.topics_by_id.at(it->second))) clear_elr(mutable_topic(it->second));
    return std::nullopt;
  }
  std::vector<topic_id> ids;
  for (const auto& [id, t] : next_.topics_by_id) {
    if (has_elr(*t)) ids.push_back(id);
  }
  for (const auto& id : ids) clear_elr(mutable_topic(id));
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_config(const msg::config_record& r) {
  config_resource resource{static_cast<config_resource_type>(r.resource_type), r.resource_name};
  if (r.value) {
    next_.configs[resource][r.name] = *r.value;
  } else {
    auto it = next_.configs.find(resource);
    if (it != next_.configs.end()) {
      it->second.erase(r.name);
      if (it->second.empty()) next_.configs.erase(it);
    }
  }
  changed_configs_.insert(resource);
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_register_broker(const msg::register_broker_record& r) {
  if (r.broker_id < 0) return "RegisterBrokerRecord with broker id " + std::to_string(r.broker_id);
  broker_registration b;
  b.id = node_id(r.broker_id);
  b.epoch = broker_epoch(r.broker_epoch);
  b.incarnation_id = r.incarnation_id;
  b.endpoints = endpoints_of(r.end_points);
  b.rack = r.rack;
  b.fenced = r.fenced;
  b.in_controlled_shutdown = r.in_controlled_shutdown;
  b.features = features_of(r.features);
  b.log_dirs = r.log_dirs;
  if (r.cordoned_log_dirs) b.cordoned_log_dirs = *r.cordoned_log_dirs;
  next_.brokers[node_id(r.broker_id)] = std::move(b);
  changed_brokers_.insert(node_id(r.broker_id));
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_unregister_broker(const msg::unregister_broker_record& r) {
  auto it = next_.brokers.find(node_id(r.broker_id));
  if (it == next_.brokers.end()) {
    return "UnregisterBrokerRecord for broker " + std::to_string(r.broker_id) + ", which is not registered";
  }
  if (it->second.epoch != broker_epoch(r.broker_epoch)) {
    return "UnregisterBrokerRecord for broker " + std::to_string(r.broker_id) + " with epoch " +
           std::to_string(r.broker_epoch) + ", but its epoch is " + std::to_string(it->second.epoch.value);
  }
  next_.brokers.erase(it);
  changed_brokers_.insert(node_id(r.broker_id));
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_fencing(
    int32_t id, int64_t epoch, int8_t fenced, int8_t shutdown, const std::vector<protocol::uuid>* log_dirs,
    const std::optional<std::vector<protocol::uuid>>* cordoned) {
  auto it = next_.brokers.find(node_id(id));
  if (it == next_.brokers.end()) return "broker change for broker " + std::to_string(id) + ", which is not registered";
  if (it->second.epoch != broker_epoch(epoch)) {
    return "broker change for broker " + std::to_string(id) + " with epoch " + std::to_string(epoch) +
           ", but its epoch is " + std::to_string(it->second.epoch.value);
  }
  // BrokerRegistrationFencingChange: 1 fence, -1 unfence, 0 unchanged;
  // BrokerRegistrationInControlledShutdownChange: 1 entering, 0 unchanged.
  if (fenced < -1 || fenced > 1) return "broker change with fencing value " + std::to_string(fenced);
  if (shutdown < 0 || shutdown > 1) return "broker change with controlled shutdown value " + std::to_string(shutdown);
  broker_registration& b = it->second;
  if (fenced == 1) b.fenced = true;
  if (fenced == -1) b.fenced = false;
  if (shutdown == 1) b.in_controlled_shutdown = true;
  if (log_dirs && !log_dirs->empty()) b.log_dirs = *log_dirs;
  if (cordoned && cordoned->has_value()) b.cordoned_log_dirs = **cordoned;
  changed_brokers_.insert(node_id(id));
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_feature(const msg::feature_level_record& r) {
  if (r.name == metadata_version::feature_name) {
    if (metadata_version{r.feature_level}.name().empty()) {
      return "FeatureLevelRecord with unknown metadata.version level " + std::to_string(r.feature_level);
    }
  }
  if (r.feature_level == 0 && r.name != metadata_version::feature_name) {
    next_.features.erase(r.name);
  } else {
    next_.features[r.name] = r.feature_level;
  }
  features_changed_ = true;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_producer_ids(const msg::producer_ids_record& r) {
  if (r.next_producer_id <= next_.next_producer_id) {
    return "ProducerIdsRecord moves the next producer id from " + std::to_string(next_.next_producer_id) +
           " back to " + std::to_string(r.next_producer_id);
  }
  next_.next_producer_id = r.next_producer_id;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_register_controller(const msg::register_controller_record& r) {
  controller_registration c;
  c.id = node_id(r.controller_id);
  c.incarnation_id = r.incarnation_id;
  c.endpoints = endpoints_of(r.end_points);
  c.features = features_of(r.features);
  next_.controllers[node_id(r.controller_id)] = std::move(c);
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_scram(const msg::user_scram_credential_record& r) {
  auto mechanism = protocol::scram_mechanism_from_type(r.mechanism);
  if (!mechanism) {
    return "UserScramCredentialRecord for user " + r.name + " has unknown mechanism type " +
           std::to_string(r.mechanism);
  }
  protocol::scram_credential& c = next_.scram[*mechanism][r.name];
  c.salt = r.salt;
  c.stored_key = r.stored_key;
  c.server_key = r.server_key;
  c.iterations = r.iterations;
  scram_changed_ = true;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_remove_scram(const msg::remove_user_scram_credential_record& r) {
  auto mechanism = protocol::scram_mechanism_from_type(r.mechanism);
  auto users = mechanism ? next_.scram.find(*mechanism) : next_.scram.end();
  if (users == next_.scram.end() || users->second.erase(r.name) == 0) {
    return "RemoveUserScramCredentialRecord for user " + r.name + " and mechanism type " +
           std::to_string(r.mechanism) + ": no such credential";
  }
  if (users->second.empty()) next_.scram.erase(users);
  scram_changed_ = true;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_delegation_token(const msg::delegation_token_record& r) {
  if (r.token_id.empty()) return std::string("DelegationTokenRecord has an empty token id");
  delegation_token& t = next_.delegation_tokens[r.token_id];
  t.token_id = r.token_id;
  t.owner = r.owner;
  t.requester = r.requester;
  t.renewers = r.renewers;
  t.issue_ms = r.issue_timestamp;
  t.max_ms = r.max_timestamp;
  t.expiry_ms = r.expiration_timestamp;
  delegation_tokens_changed_ = true;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_remove_delegation_token(
    const msg::remove_delegation_token_record& r) {
  // Kafka's image forgets a token it does not hold without complaint.
  if (next_.delegation_tokens.erase(r.token_id) != 0) delegation_tokens_changed_ = true;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_acl(const msg::access_control_entry_record& r) {
  if (r.id.is_zero()) return std::string("AccessControlEntryRecord has a zero id");
  acl_entry acl = protocol::acl_entry_of(r.resource_type, r.resource_name, r.pattern_type, r.principal, r.host,
                                         r.operation, r.permission_type);
  if (auto why = invalid_new_acl(acl)) return "AccessControlEntryRecord " + id_str(r.id) + ": " + *why;
  next_.acls[r.id] = std::move(acl);
  acls_changed_ = true;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_remove_acl(const msg::remove_access_control_entry_record& r) {
  if (next_.acls.erase(r.id) == 0) return "RemoveAccessControlEntryRecord " + id_str(r.id) + ": no ACL with that id";
  acls_changed_ = true;
  return std::nullopt;
}

metadata_delta::replay_result metadata_delta::replay_client_quota(const msg::client_quota_record& r) {
  // As Kafka's dataToEntity: a type named twice keeps its last name.
  quota_entity entity;
  for (const auto& e : r.entity) entity[e.entity_type] = e.entity_name;
  client_quotas_changed_ = true;
  if (!r.remove) {
    next_.client_quotas[entity][r.key] = r.value;
    return std::nullopt;
  }
  auto it = next_.client_quotas.find(entity);
  if (it == next_.client_quotas.end()) return std::nullopt;
  it->second.erase(r.key);
  if (it->second.empty()) next_.client_quotas.erase(it);
  return std::nullopt;
}

std::shared_ptr<const metadata_image> metadata_delta::apply(storage::offset offset, leader_epoch epoch) {
  assert(!applied_);
  applied_ = true;
  next_.provenance = {offset, epoch};
  owned_topics_.clear();
  published_ = std::make_shared<const metadata_image>(std::move(next_));
  return published_;
}

std::vector<topic_id> metadata_delta::created_topics() const {
  return {created_topics_.begin(), created_topics_.end()};
}

std::vector<std::shared_ptr<const topic_image>> metadata_delta::deleted_topics() const {
  std::vector<std::shared_ptr<const topic_image>> out;
  for (const auto& [_, t] : deleted_topics_) out.push_back(t);
  return out;
}

std::vector<partition_change> metadata_delta::changed_partitions() const {
  std::vector<partition_change> out;
  for (const auto& [id, part] : changed_partitions_) {
    const topic_image* topic = current().topic(id);
    if (!topic) continue;
    auto after = topic->partitions.find(part);
    if (after == topic->partitions.end()) continue;
    partition_change c;
    c.topic_id = id;
    c.topic_name = topic->name;
    c.partition = part;
    if (const partition_registration* before = base_->partition(id, part)) c.before = *before;
    c.after = after->second;
    if (c.before && *c.before == c.after) continue;
    out.push_back(std::move(c));
  }
  return out;
}

std::shared_ptr<const metadata_image> replay_all(std::shared_ptr<const metadata_image> base,
                                                 const std::vector<metadata_record>& records,
                                                 storage::offset last_offset, leader_epoch epoch,
                                                 std::string* error) {
  metadata_delta delta(std::move(base));
  for (size_t i = 0; i < records.size(); ++i) {
    if (auto why = delta.replay(records[i])) {
      if (error) *error = "record " + std::to_string(i) + ": " + *why;
      return nullptr;
    }
  }
  return delta.apply(last_offset, epoch);
}

}  // namespace hw::controller
