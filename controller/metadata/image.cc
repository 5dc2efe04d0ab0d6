#include "controller/metadata/image.h"

#include <algorithm>

namespace hw::controller {

bool partition_registration::in_isr(node_id broker) const {
  return std::find(isr.begin(), isr.end(), broker) != isr.end();
}

bool partition_registration::is_replica(node_id broker) const {
  return std::find(replicas.begin(), replicas.end(), broker) != replicas.end();
}

const broker_endpoint* broker_registration::endpoint(std::string_view listener) const {
  for (const auto& e : endpoints) {
    if (e.name == listener) return &e;
  }
  return nullptr;
}

const topic_image* metadata_image::topic(std::string_view name) const {
  auto it = topics_by_name.find(name);
  return it == topics_by_name.end() ? nullptr : topic(it->second);
}

const topic_image* metadata_image::topic(const topic_id& id) const {
  auto it = topics_by_id.find(id);
  return it == topics_by_id.end() ? nullptr : it->second.get();
}

const partition_registration* metadata_image::partition(const topic_id& id, int32_t partition) const {
  const topic_image* t = topic(id);
  if (!t) return nullptr;
  auto it = t->partitions.find(partition);
  return it == t->partitions.end() ? nullptr : &it->second;
}

const partition_registration* metadata_image::partition(std::string_view name, int32_t partition) const {
  auto it = topics_by_name.find(name);
  return it == topics_by_name.end() ? nullptr : this->partition(it->second, partition);
}

const broker_registration* metadata_image::broker(node_id id) const {
  auto it = brokers.find(id);
  return it == brokers.end() ? nullptr : &it->second;
}

bool metadata_image::active_broker(node_id id) const {
  const broker_registration* b = broker(id);
  return b && !b->fenced && !b->in_controlled_shutdown;
}

protocol::uuid metadata_image::default_log_dir(node_id id) const {
  // Kafka's reserved directory ids: MIGRATING is the zero id, UNASSIGNED 1.
  protocol::uuid migrating, unassigned;
  unassigned.bytes[15] = 1;
  const broker_registration* b = broker(id);
  if (!b) return unassigned;
  if (b->log_dirs.empty()) return migrating;
  if (b->log_dirs.size() == 1) return b->log_dirs.front();
  return unassigned;  // the broker picks one and reports it
}

std::vector<node_id> metadata_image::alive_brokers() const {
  std::vector<node_id> out;
  for (const auto& [id, b] : brokers) {
    if (!b.fenced) out.push_back(id);
  }
  return out;
}

std::vector<std::pair<node_id, broker_endpoint>> metadata_image::endpoints(std::string_view listener) const {
  std::vector<std::pair<node_id, broker_endpoint>> out;
  for (const auto& [id, b] : brokers) {
    if (const broker_endpoint* e = b.endpoint(listener)) out.emplace_back(id, *e);
  }
  return out;
}

std::optional<int16_t> metadata_image::feature_level(std::string_view name) const {
  auto it = features.find(name);
  if (it == features.end()) return std::nullopt;
  return it->second;
}

metadata_version metadata_image::version() const {
  auto level = feature_level(metadata_version::feature_name);
  return level ? metadata_version{*level} : minimum_metadata_version;
}

const std::map<std::string, std::string>* metadata_image::config(const config_resource& resource) const {
  auto it = configs.find(resource);
  return it == configs.end() ? nullptr : &it->second;
}

std::optional<std::string> metadata_image::config(config_resource_type type, std::string_view name,
                                                  std::string_view key) const {
  const auto* values = config(config_resource{type, std::string(name)});
  if (!values) return std::nullopt;
  auto it = values->find(std::string(key));
  if (it == values->end()) return std::nullopt;
  return it->second;
}

const protocol::scram_credential* metadata_image::scram_credential(protocol::scram_mechanism mechanism,
                                                                   std::string_view user) const {
  auto users = scram.find(mechanism);
  if (users == scram.end()) return nullptr;
  auto it = users->second.find(user);
  return it == users->second.end() ? nullptr : &it->second;
}

bool metadata_image::empty() const {
  return topics_by_id.empty() && brokers.empty() && controllers.empty() && configs.empty() &&
         features.empty() && next_producer_id == 0 && scram.empty() && acls.empty() && delegation_tokens.empty() &&
         client_quotas.empty();
}

}  // namespace hw::controller
