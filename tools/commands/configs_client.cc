// kafka-configs.sh: the admin calls ConfigCommand makes (configs.h), sent
// where Kafka's admin client sends them: a broker's own configs and its
// loggers to that broker, the rest to any broker, or to the active
// controller under --bootstrap-controller.

#include <thread>

#include "protocol/messages/describe_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/list_config_resources.h"
#include "protocol/messages/list_groups.h"
#include "tools/client/connection.h"
#include "tools/commands/configs.h"
#include "tools/commands/get_offsets_client.h"
#include "tools/commands/java.h"

namespace hw::tools::configs {
namespace {

namespace msg = protocol::msg;

const char* const k_unsupported_endpoint =
    "org.apache.kafka.common.errors.UnsupportedEndpointTypeException: This Admin API is not yet supported when "
    "communicating directly with the controller quorum.";

failure node_timeout(const std::string& call) {
  return execution("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: " +
                   call);
}

failure unsupported_version(const std::string& api) {
  return execution("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support " + api);
}

// The node a resource's calls must go to (describeConfigs' nodeFor): the
// broker itself for its own configs and its loggers.
std::optional<int32_t> node_for(resource_type type, const std::string& name) {
  int32_t id = 0;
  if ((type == resource_type::broker && !name.empty()) || type == resource_type::broker_logger) {
    if (java_int(name, &id)) return id;
  }
  return std::nullopt;
}

config_entry entry_of(const msg::describe_configs_response::describe_configs_resource_result& c) {
  config_entry e{c.name, c.value, c.config_source, c.is_sensitive, {}};
  for (const auto& s : c.synonyms) e.synonyms.push_back({s.name, s.value, s.source});
  return e;
}

}  // namespace

admin_client* config_admin::client(const std::string& call, std::optional<failure>* f) {
  if (admin_) return admin_.get();
  std::string why;
  admin_ = connect_(&why);
  if (admin_) return admin_.get();
  if (why.find("not supported by the native tools") != std::string::npos || why.rfind("Invalid value", 0) == 0)
    *f = plain(why);
  else if (connection::authentication_failure(why))
    *f = execution(why);  // Kafka's admin client fails the call with the authentication error
  else
    *f = node_timeout(call);
  return nullptr;
}

int32_t config_admin::any_or_controller() const {
  if (!admin_->bootstrap_controllers()) return admin_client::any_node;
  for (const auto& n : admin_->nodes())
    if (n.id == admin_->controller_id()) return n.id;
  return admin_client::any_node;
}

bool config_admin::wait_for_node(int32_t node, clock::time_point deadline) {
  auto known = [&] {
    for (const auto& n : admin_->nodes())
      if (n.id == node) return true;
    return false;
  };
  while (!known()) {
    if (clock::now() + std::chrono::milliseconds(100) >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string ignored;
    admin_->refresh(&ignored);
  }
  return true;
}

std::optional<failure> config_admin::describe(resource_type type, const std::string& name, bool synonyms,
                                              std::vector<config_entry>* out) {
  std::optional<failure> unconnected;
  if (!client("describeConfigs", &unconnected)) return unconnected;
  // ConfigCommand waits 30 s for the future; the call itself gives up at
  // default.api.timeout.ms.
  const auto wait_limit = clock::now() + std::chrono::seconds(30);
  const bool call_first = admin_->deadline() < wait_limit;
  const auto deadline = call_first ? admin_->deadline() : wait_limit;
  auto timed_out = [&] { return call_first ? node_timeout("describeConfigs") : thrown("java.util.concurrent.TimeoutException"); };
  const auto fixed = node_for(type, name);
  const int32_t node = fixed ? *fixed : any_or_controller();
  if (fixed && !wait_for_node(node, deadline)) return timed_out();
  msg::describe_configs_request req;
  auto& r = req.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(type);
  r.resource_name = name;
  r.configuration_keys.reset();
  req.include_synonyms = synonyms;
  msg::describe_configs_response resp;
  std::string error;
  while (!admin_->call(node, req, &resp, &error)) {
    if (admin_client::unsupported(error)) return unsupported_version("DESCRIBE_CONFIGS");
    if (clock::now() + std::chrono::milliseconds(100) >= deadline) return timed_out();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  out->clear();
  for (const auto& result : resp.results) {
    if (result.resource_type != r.resource_type || result.resource_name != name) continue;
    if (result.error_code != 0) return execution(kafka_exception(result.error_code, result.error_message));
    for (const auto& c : result.configs) out->push_back(entry_of(c));
  }
  return std::nullopt;
}

std::optional<failure> config_admin::alter(resource_type type, const std::string& name, const std::vector<alter_op>& ops,
                                           bool* unsupported) {
  std::optional<failure> unconnected;
  if (!client("incrementalAlterConfigs", &unconnected)) return unconnected;
  *unsupported = false;
  const auto deadline = std::min(admin_->deadline(), clock::now() + std::chrono::seconds(30));
  auto fixed = node_for(type, name);
  if (admin_->bootstrap_controllers() && type != resource_type::broker_logger) fixed.reset();
  const int32_t node = fixed ? *fixed : any_or_controller();
  if (fixed && !wait_for_node(node, deadline)) return node_timeout("incrementalAlterConfigs");
  msg::incremental_alter_configs_request req;
  auto& r = req.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(type);
  r.resource_name = name;
  for (const auto& op : ops) {
    auto& c = r.configs.emplace_back();
    c.name = op.name;
    c.config_operation = op.remove ? 1 : 0;
    c.value = op.value;
  }
  msg::incremental_alter_configs_response resp;
  std::string error;
  while (!admin_->call(node, req, &resp, &error)) {
    if (admin_client::unsupported(error)) {
      *unsupported = true;
      return unsupported_version("INCREMENTAL_ALTER_CONFIGS");
    }
    if (clock::now() + std::chrono::milliseconds(100) >= deadline) return node_timeout("incrementalAlterConfigs");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const auto& result : resp.responses)
    if (result.error_code != 0) return execution(kafka_exception(result.error_code, result.error_message));
  return std::nullopt;
}

std::optional<failure> config_admin::topic_names(std::vector<std::string>* out) {
  std::optional<failure> unconnected;
  if (!client("listTopics", &unconnected)) return unconnected;
  if (admin_->bootstrap_controllers()) return execution(k_unsupported_endpoint);
  std::vector<get_offsets::topic_info> topics;
  std::string error;
  while (!get_offsets::fetch_topics(*admin_, std::nullopt, &topics, &error))
    if (!admin_->back_off()) return node_timeout("listTopics");
  std::vector<std::string> names;
  for (const auto& t : topics) names.push_back(t.name);
  *out = java::hash_map_order(names);
  return std::nullopt;
}

std::optional<failure> config_admin::node_ids(std::vector<std::string>* out) {
  std::optional<failure> unconnected;
  if (!client("listNodes", &unconnected)) return unconnected;
  java::hash_order order;
  const auto& nodes = admin_->nodes();
  for (size_t i = 0; i < nodes.size(); ++i) order.put(nodes[i].id, i);  // Integer.hashCode is the value
  out->clear();
  for (size_t i : order.order()) out->push_back(std::to_string(nodes[i].id));
  return std::nullopt;
}

std::optional<failure> config_admin::group_ids(std::vector<std::string>* out) {
  std::optional<failure> unconnected;
  if (!client("listGroups", &unconnected)) return unconnected;
  if (admin_->bootstrap_controllers())
    return execution("org.apache.kafka.common.KafkaException: Failed to find brokers to send ListGroups");
  std::vector<std::string> ids;
  for (const auto& node : admin_->nodes()) {
    msg::list_groups_request req;
    msg::list_groups_response resp;
    std::string error;
    while (!admin_->call(node.id, req, &resp, &error)) {
      if (admin_client::unsupported(error)) return unsupported_version("LIST_GROUPS");
      if (!admin_->back_off()) return node_timeout("listGroups");
    }
    if (resp.error_code != 0) return execution(kafka_exception(resp.error_code, std::nullopt));
    for (const auto& g : resp.groups)
      if (std::find(ids.begin(), ids.end(), g.group_id) == ids.end()) ids.push_back(g.group_id);
  }
  *out = java::hash_map_order(ids);
  return std::nullopt;
}

std::optional<failure> config_admin::config_resources(resource_type type, std::vector<std::string>* out,
                                                      bool* unsupported) {
  *unsupported = false;
  std::optional<failure> unconnected;
  if (!client("listConfigResources", &unconnected)) return *unconnected;
  if (admin_->bootstrap_controllers()) return execution(k_unsupported_endpoint);
  msg::list_config_resources_request req;
  req.resource_types = {static_cast<int8_t>(type)};
  msg::list_config_resources_response resp;
  std::string error;
  int16_t version = 0;
  while (!admin_->call(admin_client::any_node, req, &resp, &error, &version)) {
    if (admin_client::unsupported(error)) {
      *unsupported = true;
      return unsupported_version("LIST_CONFIG_RESOURCES");
    }
    if (!admin_->back_off()) return node_timeout("listConfigResources");
  }
  if (version == 0 && type != resource_type::client_metrics) {
    *unsupported = true;
    return execution("org.apache.kafka.common.errors.UnsupportedVersionException: The v0 ListConfigResources only "
                     "supports CLIENT_METRICS");
  }
  if (resp.error_code == 35) *unsupported = true;  // UNSUPPORTED_VERSION: the broker cannot list this type
  if (resp.error_code != 0) return execution(kafka_exception(resp.error_code, std::nullopt));
  out->clear();
  for (const auto& r : resp.config_resources) out->push_back(r.resource_name);
  return std::nullopt;
}

failure unsupported_endpoint() { return execution(k_unsupported_endpoint); }

}  // namespace hw::tools::configs
