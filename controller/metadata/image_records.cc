#include "controller/metadata/image_records.h"

#include "controller/metadata/delta.h"

namespace hw::controller {

namespace {

// Kafka's snapshot writer keeps ELRs only while the feature is on
// (FeaturesImage.isElrEnabled), whatever the record version allows.
bool elr_enabled(const metadata_image& image) {
  return image.version().elr_supported() &&
         image.feature_level("eligible.leader.replicas.version").value_or(0) >= 1;
}

template <class Record>
void add_endpoints_and_features(Record& r, const std::vector<broker_endpoint>& endpoints,
                                const std::map<std::string, supported_feature>& features) {
  for (const auto& e : endpoints) {
    auto& out = r.end_points.emplace_back();
    out.name = e.name;
    out.host = e.host;
    out.port = e.port;
    out.security_protocol = e.security_protocol;
  }
  for (const auto& [name, range] : features) {
    auto& out = r.features.emplace_back();
    out.name = name;
    out.min_supported_version = range.min_version;
    out.max_supported_version = range.max_version;
  }
}

void write_features(const metadata_image& image, std::vector<metadata_record>& out) {
  // metadata.version first: it decides how the records after it are read.
  // An image that never had one (only in tests) gets none, so that replaying
  // the snapshot gives the same image.
  if (auto level = image.feature_level(metadata_version::feature_name)) {
    msg::feature_level_record r;
    r.name = std::string(metadata_version::feature_name);
    r.feature_level = *level;
    out.emplace_back(std::move(r));
  }
  for (const auto& [name, level] : image.features) {
    if (name == metadata_version::feature_name) continue;
    msg::feature_level_record r;
    r.name = name;
    r.feature_level = level;
    out.emplace_back(std::move(r));
  }
}

msg::register_broker_record broker_record(const broker_registration& b, metadata_version mv) {
  msg::register_broker_record r;
  r.broker_id = b.id.value;
  r.broker_epoch = b.epoch.value;
  r.incarnation_id = b.incarnation_id;
  r.rack = b.rack;
  r.fenced = b.fenced;
  r.in_controlled_shutdown = b.in_controlled_shutdown;
  if (mv.directory_assignment_supported()) r.log_dirs = b.log_dirs;
  // Kafka 4.3 writes the (usually empty) list for every broker registered
  // at 4.3-IV0; the image does not tell an empty list from none.
  if (mv.cordoned_log_dirs_supported()) r.cordoned_log_dirs = b.cordoned_log_dirs;
  add_endpoints_and_features(r, b.endpoints, b.features);
  return r;
}

msg::register_controller_record controller_record(const controller_registration& c) {
  msg::register_controller_record r;
  r.controller_id = c.id.value;
  r.incarnation_id = c.incarnation_id;
  add_endpoints_and_features(r, c.endpoints, c.features);
  return r;
}

void write_cluster(const metadata_image& image, std::vector<metadata_record>& out) {
  const metadata_version mv = image.version();
  for (const auto& [id, b] : image.brokers) out.emplace_back(broker_record(b, mv));
  if (!mv.controller_registration_supported()) return;
  for (const auto& [id, c] : image.controllers) out.emplace_back(controller_record(c));
}

msg::partition_record partition_record(const topic_image& topic, int32_t id, const partition_registration& p,
                                       metadata_version mv, bool elr) {
  msg::partition_record r;
  r.partition_id = id;
  r.topic_id = topic.id.value;
  r.replicas = storage::plain_list(p.replicas);
  r.isr = storage::plain_list(p.isr);
  r.removing_replicas = storage::plain_list(p.removing);
  r.adding_replicas = storage::plain_list(p.adding);
  r.leader = p.leader.value;
  r.leader_recovery_state = p.leader_recovery_state;
  r.leader_epoch = p.leader_epoch.value;
  r.partition_epoch = p.partition_epoch.value;
  // Tagged fields: only written when there is something in them.
  if (elr && !p.elr.empty()) r.eligible_leader_replicas = storage::plain_list(p.elr);
  if (elr && !p.last_known_elr.empty()) r.last_known_elr = storage::plain_list(p.last_known_elr);
  if (mv.directory_assignment_supported()) r.directories = p.directories;
  return r;
}

void write_topics(const metadata_image& image, std::vector<metadata_record>& out) {
  const metadata_version mv = image.version();
  const bool elr = elr_enabled(image);
  for (const auto& [id, topic] : image.topics_by_id) {
    msg::topic_record t;
    t.name = topic->name;
    t.topic_id = topic->id.value;
    out.emplace_back(std::move(t));
    for (const auto& [partition, p] : topic->partitions) {
      out.emplace_back(partition_record(*topic, partition, p, mv, elr));
    }
  }
}

void write_configs(const metadata_image& image, std::vector<metadata_record>& out) {
  for (const auto& [resource, values] : image.configs) {
    for (const auto& [name, value] : values) {
      msg::config_record r;
      r.resource_type = static_cast<int8_t>(resource.type);
      r.resource_name = resource.name;
      r.name = name;
      r.value = value;
      out.emplace_back(std::move(r));
    }
  }
}

void write_producer_ids(const metadata_image& image, std::vector<metadata_record>& out) {
  // Our empty image starts at 0, where Kafka's starts at -1: a block of 0
  // was never handed out, and replay refuses a record that does not move
  // the next id forward.
  if (image.next_producer_id <= 0) return;
  msg::producer_ids_record r;
  r.broker_id = -1;
  r.broker_epoch = -1;
  r.next_producer_id = image.next_producer_id;
  out.emplace_back(std::move(r));
}

// Client quotas after the configs and before the producer ids, as Kafka
// writes them: one record per value, by entity then key.
void write_client_quotas(const metadata_image& image, std::vector<metadata_record>& out) {
  for (const auto& [entity, values] : image.client_quotas)
    for (const auto& [key, value] : values) out.emplace_back(client_quota_record(entity, key, value));
}

// ACLs after the producer ids, by id.
void write_acls(const metadata_image& image, std::vector<metadata_record>& out) {
  for (const auto& [id, acl] : image.acls) out.emplace_back(acl_record(id, acl));
}

// Kafka writes them after the ACLs, by mechanism then user.
void write_scram(const metadata_image& image, std::vector<metadata_record>& out) {
  for (const auto& [mechanism, users] : image.scram) {
    for (const auto& [user, c] : users) {
      msg::user_scram_credential_record r;
      r.name = user;
      r.mechanism = protocol::scram_mechanism_type(mechanism);
      r.salt = c.salt;
      r.stored_key = c.stored_key;
      r.server_key = c.server_key;
      r.iterations = c.iterations;
      out.emplace_back(std::move(r));
    }
  }
}

// Kafka writes them last, by token id.
void write_delegation_tokens(const metadata_image& image, std::vector<metadata_record>& out) {
  for (const auto& [id, t] : image.delegation_tokens) out.emplace_back(delegation_token_record_of(t, t.expiry_ms));
}

}  // namespace

msg::delegation_token_record delegation_token_record_of(const delegation_token& t, int64_t expiry_ms) {
  msg::delegation_token_record r;
  r.token_id = t.token_id;
  r.owner = t.owner;
  r.requester = t.requester;
  r.renewers = t.renewers;
  r.issue_timestamp = t.issue_ms;
  r.max_timestamp = t.max_ms;
  r.expiration_timestamp = expiry_ms;
  return r;
}

std::vector<metadata_record> image_records(const metadata_image& image) {
  std::vector<metadata_record> out;
  write_features(image, out);
  write_cluster(image, out);
  write_topics(image, out);
  write_configs(image, out);
  write_client_quotas(image, out);
  write_producer_ids(image, out);
  write_acls(image, out);
  write_scram(image, out);
  write_delegation_tokens(image, out);
  return out;
}

std::vector<std::vector<uint8_t>> image_record_values(const metadata_image& image) {
  const metadata_version mv = image.version();
  std::vector<std::vector<uint8_t>> out;
  for (const auto& record : image_records(image)) out.push_back(encode_record_value(record, mv));
  return out;
}

std::shared_ptr<const metadata_image> image_from_record_values(std::span<const std::vector<uint8_t>> values,
                                                               storage::offset last_offset, leader_epoch epoch,
                                                               std::string* error) {
  metadata_delta delta(std::make_shared<const metadata_image>());
  for (size_t i = 0; i < values.size(); ++i) {
    metadata_record record;
    std::string why;
    if (!decode_record_value(values[i], &record, &why)) {
      *error = "record " + std::to_string(i) + ": " + why;
      return nullptr;
    }
    if (auto refused = delta.replay(record)) {
      *error = "record " + std::to_string(i) + " (" + std::string(record_name(record)) + "): " + *refused;
      return nullptr;
    }
  }
  return delta.apply(last_offset, epoch);
}

}  // namespace hw::controller
