#include "config/broker_config.h"

#include <algorithm>
#include <cassert>
#include <fstream>
#include <sstream>

#include "config/env.h"
#include "config/value_parse.h"

namespace hw::config {
namespace {

std::vector<std::string> csv_upper(std::string_view s) {
  std::vector<std::string> out;
  for (std::string_view item : csv(s)) out.push_back(upper(item));
  return out;
}

const config_value& value_of(const broker_config& c, std::string_view key) {
  auto it = c.values.find(key);
  assert(it != c.values.end() && "unknown configuration key");
  return it->second;
}

// A cluster whose quorum is one voter (or none named: this node alone) can
// never place a replica on a second broker, and Kafka's defaults for the
// internal topics (replication factor 3, min ISR 2) would leave consumer
// groups and transactions unavailable for good. Kafka's own sample
// server.properties, which `docker run apache/kafka` uses, sets them to 1
// for a single node; a node of a one-voter cluster that sets none of them
// gets the same. A node of a larger quorum keeps Kafka's defaults.
void single_node_internal_topics(broker_config& c) {
  if (c.controller_quorum_voters.size() > 1) return;
  for (const char* key : {"offsets.topic.replication.factor", "transaction.state.log.replication.factor",
                          "transaction.state.log.min.isr"}) {
    auto it = c.values.find(std::string_view(key));
    if (it != c.values.end() && !c.is_set(key)) it->second = int64_t{1};
  }
}

using config_errors = std::vector<std::string>;

int32_t get_i32(const broker_config& c, std::string_view key) { return static_cast<int32_t>(c.get_int(key)); }

// node.id (or its older name broker.id) and process.roles.
void resolve_identity(broker_config& c, config_errors& errors) {
  auto i32 = [&](std::string_view k) { return get_i32(c, k); };
  bool node_set = c.is_set("node.id"), broker_set = c.is_set("broker.id");
  c.node_id = i32("node.id");
  if (broker_set && !node_set) {
    c.node_id = i32("broker.id");
  } else if (broker_set && node_set && i32("broker.id") != i32("node.id")) {
    errors.push_back("broker.id (" + std::to_string(i32("broker.id")) + ") and node.id (" +
                     std::to_string(i32("node.id")) + ") must have the same value when both are set");
  }
  if (c.node_id < 0) errors.push_back("Invalid value " + std::to_string(c.node_id) +
                                      " for configuration node.id: Value must be at least 0");
  c.process_roles = c.get_list("process.roles");
  if (c.process_roles.empty())
    errors.push_back("Invalid value  for configuration process.roles: at least one of broker, controller is required");
}

// advertised.listeners, or the non-controller listeners when unset.
void resolve_advertised(broker_config& c, config_errors& errors) {
  if (!c.is_null("advertised.listeners")) {
    const std::string& adv = c.get_string("advertised.listeners");
    auto aeps = parse_listeners(adv, c.listener_security_protocols);
    if (auto* e = std::get_if<std::string>(&aeps)) {
      errors.push_back("Invalid value " + adv + " for configuration advertised.listeners: " + *e);
    } else {
      c.advertised_listeners = std::get<std::vector<listener_endpoint>>(aeps);
      for (const auto& ep : c.advertised_listeners)
        if (ep.host == "0.0.0.0" || ep.host == "::")
          errors.push_back("Invalid value " + adv + " for configuration advertised.listeners: " +
                           "cannot use the nonroutable meta-address " + ep.host + "; use a routable address");
    }
  } else {
    for (const auto& ep : c.listeners)
      if (std::find(c.controller_listener_names.begin(), c.controller_listener_names.end(), ep.name) ==
          c.controller_listener_names.end())
        c.advertised_listeners.push_back(ep);
  }
}

// listener.security.protocol.map, listeners, controller.listener.names.
// As Kafka's KafkaConfig.earlyStartListeners: the names as written (the
// listeners' own are upper case), each one a listener or a controller
// listener name.
void resolve_early_start(broker_config& c, config_errors& errors) {
  if (c.is_null("early.start.listeners")) {
    c.early_start_listeners = c.controller_listener_names;
    return;
  }
  for (std::string_view item : csv(c.get_string("early.start.listeners"))) {
    const std::string name(item);
    const bool listener = std::any_of(c.listeners.begin(), c.listeners.end(),
                                      [&](const listener_endpoint& l) { return l.name == name; });
    const bool controller = std::find(c.controller_listener_names.begin(), c.controller_listener_names.end(), name) !=
                            c.controller_listener_names.end();
    if (!listener && !controller) {
      errors.push_back("early.start.listeners contains listener " + name +
                       ", but this is not contained in listeners or controller.listener.names");
      continue;
    }
    c.early_start_listeners.push_back(name);
  }
}

void resolve_listeners(broker_config& c, config_errors& errors) {
  auto map = parse_protocol_map(c.get_string("listener.security.protocol.map"));
  if (auto* e = std::get_if<std::string>(&map)) {
    errors.push_back(*e);
    return;
  }
  c.listener_security_protocols = std::get<protocol_map>(map);
  // As Kafka in KRaft mode: with the map left at its default, controller
  // listener names missing from it are PLAINTEXT (unless the map is set,
  // `listeners=...,CONTROLLER://:9093` works as it does with Kafka).
  if (!c.is_set("listener.security.protocol.map")) {
    for (const auto& name : csv_upper(c.get_string("controller.listener.names"))) {
      bool mapped = false;
      for (const auto& [listener, proto] : c.listener_security_protocols) mapped = mapped || listener == name;
      if (!mapped) c.listener_security_protocols.emplace_back(name, "PLAINTEXT");
    }
  }
  const std::string& text = c.get_string("listeners");
  auto eps = parse_listeners(text, c.listener_security_protocols);
  if (auto* e = std::get_if<std::string>(&eps))
    errors.push_back("Invalid value " + text + " for configuration listeners: " + *e);
  else
    c.listeners = std::get<std::vector<listener_endpoint>>(eps);
  if (c.listeners.empty() && !std::holds_alternative<std::string>(eps))
    errors.push_back("Invalid value " + text + " for configuration listeners: at least one listener is required");
  c.controller_listener_names = csv_upper(c.get_string("controller.listener.names"));
  resolve_early_start(c, errors);
  resolve_advertised(c, errors);
}

// The listener brokers talk to each other on.
void resolve_inter_broker(broker_config& c, config_errors& errors) {
  if (c.is_set("inter.broker.listener.name") && c.is_set("security.inter.broker.protocol")) {
    errors.push_back("Only one of inter.broker.listener.name and security.inter.broker.protocol should be set");
  }
  c.inter_broker_listener_name = c.is_null("inter.broker.listener.name")
                                     ? c.get_string("security.inter.broker.protocol")
                                     : upper(c.get_string("inter.broker.listener.name"));
  if (c.has_role("broker") && !c.advertised_listeners.empty()) {
    bool found = false;
    std::string names;
    for (const auto& ep : c.advertised_listeners) {
      found = found || ep.name == c.inter_broker_listener_name;
      names += (names.empty() ? "" : ",") + ep.name;
    }
    if (!found)
      errors.push_back("inter.broker.listener.name must be a listener name defined in advertised.listeners; "
                       "the listener " + c.inter_broker_listener_name + " is not one of: " + names);
  }
}

// log.dirs (or log.dir) and metadata.log.dir.
void resolve_storage(broker_config& c, config_errors& errors) {
  c.log_dirs = c.is_null("log.dirs") ? c.get_list("log.dir") : c.get_list("log.dirs");
  c.log_dirs.erase(std::remove(c.log_dirs.begin(), c.log_dirs.end(), std::string()), c.log_dirs.end());
  if (c.log_dirs.empty()) errors.push_back("At least one log directory must be defined via log.dirs or log.dir");
  c.metadata_log_dir = c.is_null("metadata.log.dir") ? (c.log_dirs.empty() ? "" : c.log_dirs.front())
                                                     : c.get_string("metadata.log.dir");
}

// The typed fields read often enough to keep as members.
void resolve_fields(broker_config& c) {
  auto i32 = [&](std::string_view k) { return get_i32(c, k); };
  // Network.
  c.num_io_threads = i32("num.io.threads");
  c.num_network_threads = i32("num.network.threads");
  c.socket_request_max_bytes = i32("socket.request.max.bytes");
  c.socket_send_buffer_bytes = i32("socket.send.buffer.bytes");
  c.socket_receive_buffer_bytes = i32("socket.receive.buffer.bytes");
  c.socket_listen_backlog_size = i32("socket.listen.backlog.size");
  c.connections_max_idle_ms = c.get_int("connections.max.idle.ms");
  c.queued_max_requests = i32("queued.max.requests");
  c.max_connections = i32("max.connections");
  c.connection_max_inflight_requests = i32("highwater.connection.max.inflight.requests");

  // Topics and logs.
  c.message_max_bytes = i32("message.max.bytes");
  c.auto_create_topics_enable = c.get_bool("auto.create.topics.enable");
  c.num_partitions = i32("num.partitions");
  c.default_replication_factor = i32("default.replication.factor");
  c.min_insync_replicas = i32("min.insync.replicas");
  c.offsets_topic_num_partitions = i32("offsets.topic.num.partitions");
  c.offsets_topic_replication_factor = static_cast<int16_t>(c.get_int("offsets.topic.replication.factor"));
  c.transaction_state_log_num_partitions = i32("transaction.state.log.num.partitions");
  c.log_segment_bytes = i32("log.segment.bytes");
  int64_t retention_ms = !c.is_null("log.retention.ms")        ? c.get_int("log.retention.ms")
                         : !c.is_null("log.retention.minutes") ? c.get_int("log.retention.minutes") * 60'000
                                                               : c.get_int("log.retention.hours") * 3'600'000;
  c.log_retention_ms = retention_ms < 0 ? -1 : retention_ms;
  c.log_flush_interval_messages = c.get_int("log.flush.interval.messages");
  c.log_flush_interval_ms = c.is_null("log.flush.interval.ms") ? c.get_int("log.flush.scheduler.interval.ms")
                                                                : c.get_int("log.flush.interval.ms");
  c.group_initial_rebalance_delay_ms = i32("group.initial.rebalance.delay.ms");
  c.unclean_leader_election_enable = c.get_bool("unclean.leader.election.enable");
}

// The consumer group coordinator's bounds (Kafka's GroupCoordinatorConfig
// requirements, in its order and words).
void resolve_consumer_groups(const broker_config& c, config_errors& errors) {
  auto at_least = [&](std::string_view key, std::string_view bound) {
    if (c.get_int(key) < c.get_int(bound))
      errors.push_back(std::string(key) + " must be greater than or equal to " + std::string(bound));
  };
  auto at_most = [&](std::string_view key, std::string_view bound) {
    if (c.get_int(key) > c.get_int(bound))
      errors.push_back(std::string(key) + " must be less than or equal to " + std::string(bound));
  };
  at_least("group.consumer.max.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms");
  at_least("group.consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms");
  at_most("group.consumer.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms");
  at_least("group.consumer.max.session.timeout.ms", "group.consumer.min.session.timeout.ms");
  at_least("group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms");
  at_most("group.consumer.session.timeout.ms", "group.consumer.max.session.timeout.ms");
  if (c.get_int("group.consumer.heartbeat.interval.ms") >= c.get_int("group.consumer.session.timeout.ms"))
    errors.push_back("group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms");
  at_least("group.consumer.max.assignment.interval.ms", "group.consumer.min.assignment.interval.ms");
  at_least("group.consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms");
  at_most("group.consumer.assignment.interval.ms", "group.consumer.max.assignment.interval.ms");
}

// Fills the typed fields from the validated values; returns cross-key errors.
config_errors resolve(broker_config& c) {
  config_errors errors;
  resolve_identity(c, errors);
  resolve_listeners(c, errors);
  resolve_inter_broker(c, errors);
  c.controller_quorum_voters = c.get_list("controller.quorum.voters");
  c.controller_quorum_bootstrap_servers = c.get_list("controller.quorum.bootstrap.servers");
  single_node_internal_topics(c);
  resolve_storage(c, errors);
  resolve_consumer_groups(c, errors);
  resolve_fields(c);
  return errors;
}

std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

// -Djava.security.auth.login.config=<path> in KAFKA_OPTS (config/env.h).
std::optional<std::string> jaas_file_from_environment(const std::vector<std::string>& environment) {
  constexpr std::string_view var = "KAFKA_OPTS=";
  std::optional<std::string> found;
  for (std::string_view entry : environment)
    if (entry.starts_with(var))
      if (auto path = jaas_login_config(entry.substr(var.size()))) found = std::move(path);
  return found;
}

// -D<name>=<value> in KAFKA_OPTS.
std::optional<std::string> system_property_from_environment(const std::vector<std::string>& environment,
                                                            std::string_view name) {
  constexpr std::string_view var = "KAFKA_OPTS=";
  std::optional<std::string> found;
  for (std::string_view entry : environment)
    if (entry.starts_with(var))
      if (auto value = java_system_property(entry.substr(var.size()), name)) found = std::move(value);
  return found;
}

}  // namespace

bool broker_config::has_role(std::string_view role) const {
  return std::find(process_roles.begin(), process_roles.end(), role) != process_roles.end();
}

int64_t broker_config::get_int(std::string_view key) const { return std::get<int64_t>(value_of(*this, key)); }
bool broker_config::get_bool(std::string_view key) const { return std::get<bool>(value_of(*this, key)); }
double broker_config::get_double(std::string_view key) const { return std::get<double>(value_of(*this, key)); }
const std::string& broker_config::get_string(std::string_view key) const {
  static const std::string empty;
  const config_value& v = value_of(*this, key);
  if (std::holds_alternative<std::monostate>(v)) return empty;
  return std::get<std::string>(v);
}
const std::vector<std::string>& broker_config::get_list(std::string_view key) const {
  static const std::vector<std::string> empty;
  const config_value& v = value_of(*this, key);
  if (std::holds_alternative<std::monostate>(v)) return empty;
  return std::get<std::vector<std::string>>(v);
}
bool broker_config::is_null(std::string_view key) const {
  return std::holds_alternative<std::monostate>(value_of(*this, key));
}

load_result build_broker_config(std::span<const config_entry> entries) {
  constexpr std::string_view listener_prefix = "listener.name.";
  load_result result;
  // Later entries win; remember where each explicit value came from.
  std::map<std::string, const config_entry*, std::less<>> latest;
  for (const config_entry& e : entries) latest[e.key] = &e;

  broker_config c;
  for (const auto& [key, entry] : latest) {
    if (key.starts_with(listener_prefix)) {
      c.listener_prefixed.emplace(key, entry->value);
      continue;
    }
    if (!find_broker_key(key)) {
      result.warnings.push_back("The configuration '" + key + "' was supplied but isn't a known config (from " +
                                entry->origin + ")");
    }
  }
  for (const config_key& key : broker_config_keys()) {
    std::optional<std::string> text;
    if (auto it = latest.find(key.name); it != latest.end()) {
      text = it->second->value;
      c.explicitly_set.emplace(std::string(key.name), it->second->origin);
    } else {
      text = key.default_text();
    }
    if (!text) {
      c.values.emplace(std::string(key.name), std::monostate{});
      continue;
    }
    parse_result parsed = parse_value(key, *text);
    if (auto* err = std::get_if<std::string>(&parsed)) {
      result.errors.push_back(*err);
      continue;
    }
    c.values.emplace(std::string(key.name), std::move(std::get<config_value>(parsed)));
  }
  if (!result.errors.empty()) return result;

  std::vector<std::string> errors = resolve(c);
  if (!errors.empty()) {
    result.errors = std::move(errors);
    return result;
  }
  result.config = std::move(c);
  return result;
}

load_result load_broker_config(const config_sources& sources) {
  std::vector<config_entry> entries;
  std::vector<std::string> early_errors;

  if (sources.properties_path) {
    const std::string& path = *sources.properties_path;
    auto text = read_whole_file(path);
    if (!text) {
      early_errors.push_back("Cannot read the configuration file " + path);
    } else {
      properties_result props = parse_properties(*text);
      for (const std::string& e : props.errors) early_errors.push_back(path + ": " + e);
      for (property& p : props.entries)
        entries.push_back({std::move(p.key), std::move(p.value), path + ":" + std::to_string(p.line)});
    }
  }
  for (std::string_view var : sources.environment) {
    size_t eq = var.find('=');
    if (eq == std::string_view::npos) continue;
    auto key = env_name_to_key(var.substr(0, eq));
    if (!key) continue;
    entries.push_back({std::move(*key), std::string(var.substr(eq + 1)),
                       "environment variable " + std::string(var.substr(0, eq))});
  }
  for (const std::string& o : sources.overrides) {
    size_t eq = o.find('=');
    if (eq == std::string::npos || trim(std::string_view(o).substr(0, eq)).empty()) {
      early_errors.push_back("--override expects key=value, got '" + o + "'");
      continue;
    }
    entries.push_back({std::string(trim(std::string_view(o).substr(0, eq))), o.substr(eq + 1), "--override"});
  }

  load_result result = build_broker_config(entries);
  if (result.config) {
    result.config->jaas_file = jaas_file_from_environment(sources.environment);
    result.config->oauthbearer_allowed_urls =
        system_property_from_environment(sources.environment, "org.apache.kafka.sasl.oauthbearer.allowed.urls");
    result.config->oauthbearer_allowed_files =
        system_property_from_environment(sources.environment, "org.apache.kafka.sasl.oauthbearer.allowed.files");
    result.config->jvm_truststore = system_property_from_environment(sources.environment, "javax.net.ssl.trustStore");
    result.config->jvm_truststore_password =
        system_property_from_environment(sources.environment, "javax.net.ssl.trustStorePassword");
    result.config->jvm_truststore_type =
        system_property_from_environment(sources.environment, "javax.net.ssl.trustStoreType");
  }
  if (!early_errors.empty()) {
    result.config.reset();
    result.errors.insert(result.errors.begin(), early_errors.begin(), early_errors.end());
  }
  return result;
}

}  // namespace hw::config
