// Dynamic configs: IncrementalAlterConfigs and the legacy AlterConfigs, for
// TOPIC, BROKER and GROUP resources (ConfigurationControlManager's rules).

#include <algorithm>
#include <charconv>
#include <set>
#include <string>

#include "controller/configuration_control.h"
#include "controller/feature_control.h"
#include "controller/topic_name.h"

namespace hw::controller {

namespace {

constexpr std::string_view min_isr_key = "min.insync.replicas";
constexpr size_t max_config_value_bytes = 32767;

std::string_view type_name(config_resource_type t) {
  switch (t) {
    case config_resource_type::topic: return "TOPIC";
    case config_resource_type::broker: return "BROKER";
    case config_resource_type::broker_logger: return "BROKER_LOGGER";
    case config_resource_type::client_metrics: return "CLIENT_METRICS";
    case config_resource_type::group: return "GROUP";
    default: return "UNKNOWN";
  }
}

// Topic configs whose type is LIST (APPEND/SUBTRACT work on them), with the
// default the first APPEND starts from.
std::optional<std::string_view> list_config_default(config_resource_type type, std::string_view key) {
  if (type != config_resource_type::topic) return std::nullopt;
  if (key == "cleanup.policy") return "delete";
  if (key == "leader.replication.throttled.replicas" || key == "follower.replication.throttled.replicas") return "";
  return std::nullopt;
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string_view::npos) comma = s.size();
    out.emplace_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

msg::config_record config_change(const config_resource& r, std::string key, std::optional<std::string> value) {
  msg::config_record c;
  c.resource_type = static_cast<int8_t>(r.type);
  c.resource_name = r.name;
  c.name = std::move(key);
  c.value = std::move(value);
  return c;
}

// Applies one IncrementalAlterConfigs operation (SET 0, DELETE 1, APPEND 2,
// SUBTRACT 3) to a key's current value.
api_error apply_config_op(config_resource_type type, const std::string& key, int8_t op,
                          const std::optional<std::string>& operand, std::optional<std::string>& value) {
  switch (op) {
    case 0:
      value = operand;
      return {};
    case 1:
      value.reset();
      return {};
    case 2:
    case 3: {
      auto list_default = list_config_default(type, key);
      if (!list_default) {
        return {error_code::invalid_config,
                std::string("Can't ") + (op == 2 ? "APPEND" : "SUBTRACT") + " to key " + key + " because its type is not LIST."};
      }
      std::vector<std::string> parts;
      for (auto& p : split(value ? *value : std::string(*list_default))) {
        if (!p.empty()) parts.push_back(std::move(p));
      }
      for (const auto& v : split(operand.value_or(""))) {
        bool present = std::find(parts.begin(), parts.end(), v) != parts.end();
        if (op == 2 && !present) parts.push_back(v);
        if (op == 3) std::erase(parts, v);
      }
      std::string joined;
      for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "," : "") + parts[i];
      value = joined;
      return {};
    }
    default:
      return {error_code::invalid_request, "Unknown config operation " + std::to_string(op)};
  }
}

// What Kafka's broker refuses before forwarding: a value set to null (SET
// in IncrementalAlterConfigs, any entry of the legacy AlterConfigs).
api_error null_value_error(const auto& configs, auto is_set) {
  for (const auto& c : configs) {
    if (is_set(c) && !c.value) return {error_code::invalid_request, "Null value not supported for : " + c.name};
  }
  return {};
}

void set_result(auto& response, int8_t type, const std::string& name, const api_error& e) {
  auto& r = response.responses.emplace_back();
  r.error_code = static_cast<int16_t>(e.code);
  r.error_message = e.ok() ? std::nullopt : std::optional<std::string>(e.message);
  r.resource_type = type;
  r.resource_name = name;
}

}  // namespace

configuration_control::configuration_control(configuration_control_options options)
    : options_(std::move(options)),
      resolver_(options_.static_config ? options_.static_config : std::make_shared<const config::broker_config>(),
                options_.node_id) {}

api_error configuration_control::validate_config_resource(const metadata_image& image,
                                                          const config_resource& resource,
                                                          const std::map<std::string, std::string>& all) const {
  const config_validator* validator = nullptr;
  switch (resource.type) {
    case config_resource_type::topic:
      if (resource.name.empty()) return {error_code::invalid_request, "Default topic resources are not allowed."};
      if (auto why = invalid_topic_name(resource.name)) return {error_code::invalid_topic_exception, *why};
      validator = &options_.validate_topic_config;
      break;
    case config_resource_type::broker:
      if (!resource.name.empty()) {
        int64_t id = 0;
        auto [p, ec] = std::from_chars(resource.name.data(), resource.name.data() + resource.name.size(), id);
        if (ec != std::errc() || p != resource.name.data() + resource.name.size()) {
          return {error_code::invalid_request, "Unable to parse broker name as a base 10 number."};
        }
        if (id < 0) return {error_code::invalid_request, "Invalid negative broker ID."};
      }
      validator = &options_.validate_broker_config;
      break;
    case config_resource_type::group:
      // A group need not exist for its configs to be set (as in Kafka).
      if (resource.name.empty()) return {error_code::invalid_request, "Default group resources are not allowed."};
      if (options_.validate_group_configs) {
        if (auto e = options_.validate_group_configs(all, image)) return {e->first, e->second};
      }
      return {};
    default:
      return {error_code::invalid_request, "Unknown resource type " + std::string(type_name(resource.type))};
  }
  if (*validator) {
    for (const auto& [key, value] : all) {
      if (auto e = (*validator)(key, value)) return {e->first, e->second};
    }
  }
  return {};
}

api_error configuration_control::alter_config_resource(const metadata_image& image, const config_resource& resource,
                                                       const std::vector<msg::config_record>& explicit_changes,
                                                       const std::vector<msg::config_record>& implicit_deletes,
                                                       bool newly_created, std::vector<metadata_record>& out) const {
  std::map<std::string, std::string> all;
  if (const auto* existing = image.config(resource)) all = *existing;
  for (const auto& c : explicit_changes) {
    if (c.value) {
      all[c.name] = *c.value;
    } else {
      all.erase(c.name);
    }
  }
  for (const auto& c : implicit_deletes) all.erase(c.name);
  if (api_error e = validate_config_resource(image, resource, all); !e.ok()) return e;
  if (!newly_created) {
    if (resource.type == config_resource_type::topic && !image.topic(resource.name)) {
      return {error_code::unknown_topic_or_partition, "The topic '" + resource.name + "' does not exist."};
    }
    if (resource.type == config_resource_type::broker && !resource.name.empty()) {
      const node_id id(std::stoi(resource.name));
      if (!image.broker(id) && !image.controllers.count(id)) {
        return {error_code::broker_id_not_registered, "No node with id " + resource.name + " found."};
      }
    }
  }
  bool elr = feature_control::elr_enabled(image);
  for (const auto& c : explicit_changes) {
    if (c.value && c.value->size() > max_config_value_bytes) {
      return {error_code::invalid_config,
              "The configuration value cannot be added because it exceeds the maximum value size of 32767 bytes."};
    }
    if (elr && resource.type == config_resource_type::broker && c.name == min_isr_key) {
      if (!resource.name.empty()) {
        return {error_code::invalid_config, "Broker-level min.insync.replicas cannot be altered while ELR is enabled."};
      }
      if (!c.value) {
        return {error_code::invalid_config, "Cluster-level min.insync.replicas cannot be removed while ELR is enabled."};
      }
    }
  }
  for (const auto& c : explicit_changes) out.push_back(c);
  for (const auto& c : implicit_deletes) out.push_back(c);
  // A new min ISR invalidates the ELRs it was computed for: clear them
  // (for the topic, or for every topic when the cluster default moves).
  if (elr) {
    for (const auto* list : {&explicit_changes, &implicit_deletes}) {
      for (const auto& c : *list) {
        if (c.name != min_isr_key) continue;
        msg::clear_elr_record clear;
        if (resource.type == config_resource_type::topic) clear.topic_name = resource.name;
        out.push_back(clear);
      }
    }
  }
  return {};
}

controller_result<msg::incremental_alter_configs_response> configuration_control::incremental_alter_configs(
    const metadata_image& image, const msg::incremental_alter_configs_request& request) const {
  controller_result<msg::incremental_alter_configs_response> out;
  std::map<config_resource, int> occurrences;
  for (const auto& res : request.resources) {
    ++occurrences[{static_cast<config_resource_type>(res.resource_type), res.resource_name}];
  }
  for (const auto& res : request.resources) {
    config_resource resource{static_cast<config_resource_type>(res.resource_type), res.resource_name};
    // What Kafka's broker refuses before forwarding (ConfigAdminManager).
    std::set<std::string> keys;
    bool duplicate_keys = false;
    for (const auto& op : res.configs) duplicate_keys |= !keys.insert(op.name).second;
    if (occurrences[resource] > 1 || duplicate_keys) {
      set_result(out.response, res.resource_type, res.resource_name,
                 {error_code::invalid_request,
                  duplicate_keys ? "Error due to duplicate config keys" : "Each resource must appear at most once."});
      continue;
    }
    api_error e = null_value_error(res.configs, [](const auto& c) { return c.config_operation == 0; });
    std::vector<msg::config_record> changes;
    for (const auto& op : res.configs) {
      if (!e.ok()) break;
      std::optional<std::string> old = image.config(resource.type, resource.name, op.name);
      std::optional<std::string> value = old;
      e = apply_config_op(resource.type, op.name, op.config_operation, op.value, value);
      if (!e.ok()) break;
      // Broker configs are rewritten even when unchanged, so brokers reload
      // them (KAFKA-14136).
      if (value != old || resource.type == config_resource_type::broker) {
        changes.push_back(config_change(resource, op.name, value));
      }
    }
    std::vector<metadata_record> records;
    if (e.ok()) e = alter_config_resource(image, resource, changes, {}, false, records);
    if (e.ok()) out.records.insert(out.records.end(), records.begin(), records.end());
    set_result(out.response, res.resource_type, res.resource_name, e);
  }
  if (request.validate_only) out.records.clear();
  return out;
}

controller_result<msg::alter_configs_response> configuration_control::alter_configs(
    const metadata_image& image, const msg::alter_configs_request& request) const {
  controller_result<msg::alter_configs_response> out;
  for (const auto& res : request.resources) {
    config_resource resource{static_cast<config_resource_type>(res.resource_type), res.resource_name};
    std::map<std::string, std::string> current;
    if (const auto* c = image.config(resource)) current = *c;
    std::vector<msg::config_record> changes;
    std::set<std::string> keys;
    for (const auto& c : res.configs) {
      keys.insert(c.name);
      auto it = current.find(c.name);
      std::optional<std::string> old = it == current.end() ? std::nullopt : std::optional<std::string>(it->second);
      if (c.value != old || resource.type == config_resource_type::broker) {
        changes.push_back(config_change(resource, c.name, c.value));
      }
    }
    // What the request leaves out is removed.
    std::vector<msg::config_record> deletes;
    for (const auto& [key, _] : current) {
      if (!keys.count(key)) deletes.push_back(config_change(resource, key, std::nullopt));
    }
    std::vector<metadata_record> records;
    api_error e = null_value_error(res.configs, [](const auto&) { return true; });
    if (e.ok()) e = alter_config_resource(image, resource, changes, deletes, false, records);
    if (e.ok()) out.records.insert(out.records.end(), records.begin(), records.end());
    set_result(out.response, res.resource_type, res.resource_name, e);
  }
  if (request.validate_only) out.records.clear();
  return out;
}

api_error configuration_control::new_topic_config_records(const metadata_image& image,
                                                          const msg::create_topics_request::creatable_topic& t,
                                                          std::vector<metadata_record>& out) const {
  if (t.configs.empty()) return {};
  // Kafka's map of changes: one record per key, in key order.
  std::map<std::string, std::optional<std::string>> values;
  for (const auto& c : t.configs) values[c.name] = c.value;
  const config_resource resource{config_resource_type::topic, t.name};
  std::vector<msg::config_record> changes;
  for (const auto& [key, value] : values) changes.push_back(config_change(resource, key, value));
  return alter_config_resource(image, resource, changes, {}, true, out);
}

std::vector<metadata_record> configuration_control::elr_safety_records(const metadata_image& image) const {
  std::vector<metadata_record> out;
  auto record = [](std::string broker, std::optional<std::string> value) {
    msg::config_record r;
    r.resource_type = static_cast<int8_t>(config_resource_type::broker);
    r.resource_name = std::move(broker);
    r.name = std::string(min_isr_key);
    r.value = std::move(value);
    return r;
  };
  if (!image.config(config_resource_type::broker, "", min_isr_key))
    out.push_back(record("", std::to_string(resolver_.static_config().min_insync_replicas)));
  std::map<int64_t, std::string> brokers;
  for (const auto& [resource, configs] : image.configs)
    if (resource.type == config_resource_type::broker && !resource.name.empty() && configs.count(std::string(min_isr_key))) {
      int64_t id = 0;
      std::from_chars(resource.name.data(), resource.name.data() + resource.name.size(), id);
      brokers.emplace(id, resource.name);
    }
  for (const auto& [id, name] : brokers) out.push_back(record(name, std::nullopt));
  return out;
}

}  // namespace hw::controller
