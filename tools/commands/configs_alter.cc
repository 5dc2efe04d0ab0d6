// kafka-configs.sh --alter (ConfigCommand.alterConfig): the configs to add
// and delete checked as Kafka checks them for the entity type, then one
// IncrementalAlterConfigs (deletions first), or the client quota and SCRAM
// APIs for users, clients and ips.

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "tools/commands/configs.h"

namespace hw::tools::configs {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool is_scram(const std::string& key) { return key == "SCRAM-SHA-256" || key == "SCRAM-SHA-512"; }

bool is_quota(const std::string& key) {
  return key == "producer_byte_rate" || key == "consumer_byte_rate" || key == "request_percentage" ||
         key == "controller_mutation_rate";
}

std::string value_of(const properties& props, const std::string& key) {
  for (const auto& [k, v] : props)
    if (k == key) return v;
  return "";
}

// A Scala Set built from `items` in order (distinct).
std::vector<std::string> scala_set(const std::vector<std::string>& items) {
  std::vector<std::string> distinct;
  for (const auto& x : items)
    if (!contains(distinct, x)) distinct.push_back(x);
  return scala_hash_order(distinct);
}

template <class Pred>
std::vector<std::string> filtered(const std::vector<std::string>& items, Pred keep) {
  std::vector<std::string> out;
  std::copy_if(items.begin(), items.end(), std::back_inserter(out), keep);
  return out;
}

std::vector<alter_op> operations(const std::vector<std::string>& keys, const properties& added,
                                 const std::vector<std::string>& deleted) {
  std::vector<alter_op> ops;
  for (const auto& k : deleted) ops.push_back({k, true, ""});
  for (const auto& k : keys) ops.push_back({k, false, value_of(added, k)});
  return ops;
}

// Matches "(?:iterations=(-?[0-9]*),)?password=(.*)": *iterations is the
// first group when present, *password the second.
bool credential_syntax(const std::string& value, std::optional<std::string>* iterations, std::string* password) {
  std::string_view rest = value;
  if (rest.starts_with("iterations=")) {
    rest.remove_prefix(11);
    size_t n = rest.starts_with("-") ? 1 : 0;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
    *iterations = std::string(rest.substr(0, n));
    if (rest.substr(n, 1) != ",") return false;
    rest.remove_prefix(n + 1);
  }
  // '.' matches no line terminator.
  if (!rest.starts_with("password=") || rest.find_first_of("\n\r") != std::string_view::npos) return false;
  *password = std::string(rest.substr(9));
  return true;
}

// The SCRAM credential a "SCRAM-SHA-256=[iterations=8192,password=secret]" sets.
std::optional<failure> check_credential(const std::string& mechanism, const std::string& value, scram_upsert* out) {
  const std::string java_name = mechanism == "SCRAM-SHA-256" ? "SCRAM_SHA_256" : "SCRAM_SHA_512";
  std::optional<std::string> text;
  if (!credential_syntax(value, &text, &out->password))
    return plain("Invalid credential property " + java_name + "=" + value);
  int32_t iterations = 4096;
  if (text && *text != "-1" && !java_int(*text, &iterations)) return plain("For input string: \"" + *text + "\"");
  if (iterations < 4096)
    return plain("Iterations " + std::to_string(iterations) + " is less than the minimum 4096 required for " + mechanism);
  out->mechanism = *protocol::parse_scram_mechanism(mechanism);
  out->iterations = iterations;
  return std::nullopt;
}

// The users/clients rules, then the quota or SCRAM call.
// alterQuotaConfigs: the entity's quotas read first (a deletion of a key
// it does not hold is refused), the values parsed as doubles, then one
// alteration: the added keys in their map's order, then the deletions.
std::optional<failure> alter_quotas(config_admin& admin, const command_line& c, const std::vector<std::string>& keys,
                                    const properties& added) {
  if (c.entity_types.size() != c.entity_names.size())
    return plain("Exactly one entity name must be specified for every entity type");
  std::vector<quota_description> current;
  if (auto f = admin.describe_quotas(quota_components(c), &current)) return f;
  std::vector<std::string> invalid;
  for (const auto& k : c.delete_config) {
    bool held = false;
    if (!current.empty())
      for (const auto& [key, value] : current.front().values) held |= key == k;
    if (!held) invalid.push_back(k);
  }
  if (!invalid.empty()) return plain("Invalid config(s): " + join(invalid, ","));
  std::vector<std::pair<std::string, std::optional<std::string>>> entity;
  for (const auto& q : quota_components(c)) entity.emplace_back(q.entity_type, q.name);
  std::vector<std::pair<std::string, std::optional<double>>> ops;
  for (const auto& k : keys) {
    double value = 0;
    if (!java_parse_double(value_of(added, k), &value))
      return plain("Cannot parse quota configuration value for " + k + ": " + value_of(added, k));
    ops.emplace_back(k, value);
  }
  for (const auto& k : c.delete_config) ops.emplace_back(k, std::nullopt);
  return admin.alter_quotas(entity, ops);
}

std::optional<failure> alter_users_or_clients(config_admin& admin, const command_line& c,
                                              const std::vector<std::string>& keys, const properties& added) {
  const auto& deleted = c.delete_config;
  const bool quota_add = std::any_of(keys.begin(), keys.end(), is_quota);
  const bool quota_delete = std::any_of(deleted.begin(), deleted.end(), is_quota);
  const auto scram_add = filtered(keys, is_scram);
  const auto scram_delete = filtered(deleted, is_scram);
  auto unknown = [](const std::string& k) { return !is_scram(k) && !is_quota(k); };
  const auto unknown_add = filtered(keys, unknown);
  const auto unknown_delete = filtered(deleted, unknown);
  if (c.entity_types.front() == clients || c.entity_types.size() == 2) {
    if (!unknown_add.empty() || !scram_add.empty()) {
      auto names = unknown_add;
      names.insert(names.end(), scram_add.begin(), scram_add.end());
      return plain("Only quota configs can be added for 'clients' using --bootstrap-server. Unexpected config names: " +
                   scala_string("Set", scala_set(names)));
    }
    if (!unknown_delete.empty() || !scram_delete.empty()) {
      auto names = unknown_delete;
      names.insert(names.end(), scram_delete.begin(), scram_delete.end());
      return plain("Only quota configs can be deleted for 'clients' using --bootstrap-server. Unexpected config names: " +
                   scala_string("ArrayBuffer", names));
    }
  } else {
    if (!unknown_add.empty())
      return plain("Only quota and SCRAM credential configs can be added for 'users' using --bootstrap-server. "
                   "Unexpected config names: " + scala_string("Set", unknown_add));
    if (!unknown_delete.empty())
      return plain("Only quota and SCRAM credential configs can be deleted for 'users' using --bootstrap-server. "
                   "Unexpected config names: " + scala_string("ArrayBuffer", unknown_delete));
    if (!scram_add.empty() || !scram_delete.empty()) {
      if (contains(c.entity_names, ""))
        return plain("The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using "
                     "--bootstrap-server.");
      if (quota_add || quota_delete)
        return plain("Cannot alter both quota and SCRAM credential configs simultaneously for 'users' using "
                     "--bootstrap-server.");
    }
  }
  if (quota_add || quota_delete) return alter_quotas(admin, c, keys, added);
  std::vector<scram_upsert> upsertions;
  for (const auto& mechanism : scram_add)
    if (auto f = check_credential(mechanism, value_of(added, mechanism), &upsertions.emplace_back())) return f;
  if (scram_add.empty() && scram_delete.empty()) return std::nullopt;  // nothing to send
  std::vector<protocol::scram_mechanism> deletions;
  for (const auto& mechanism : scram_delete) deletions.push_back(*protocol::parse_scram_mechanism(mechanism));
  return admin.alter_scram(c.entity_names.front(), deletions, upsertions);
}

std::optional<failure> alter_loggers(config_admin& admin, const std::string& name, const std::vector<std::string>& keys,
                                     const properties& added, const std::vector<std::string>& deleted) {
  std::vector<config_entry> loggers;
  if (auto f = admin.describe(resource_type::broker_logger, name, true, &loggers)) return f;
  std::vector<std::string> valid;
  for (const auto& l : loggers) valid.push_back(l.name);
  std::vector<std::string> invalid;
  for (const auto& k : deleted)
    if (!contains(valid, k)) invalid.push_back(k);
  for (const auto& k : keys)
    if (!contains(valid, k)) invalid.push_back(k);
  if (!invalid.empty()) return plain("Invalid broker logger(s): " + join(invalid, ","));
  bool unsupported = false;
  return admin.alter(resource_type::broker_logger, name, operations(keys, added, deleted), &unsupported);
}

std::optional<failure> alter_resource(config_admin& admin, std::string_view type, const std::string& name,
                                      const std::vector<std::string>& keys, const properties& added,
                                      const std::vector<std::string>& deleted) {
  resource_type resource = resource_type::group;
  if (type == topics) resource = resource_type::topic;
  else if (type == client_metrics) resource = resource_type::client_metrics;
  else if (type == brokers) {
    if (!name.empty() && !java_int(name))
      return plain("The entity name for brokers must be a valid integer broker id, found: " + name);
    resource = resource_type::broker;
  }
  bool unsupported = false;
  auto f = admin.alter(resource, name, operations(keys, added, deleted), &unsupported);
  if (f && unsupported)
    return plain("The INCREMENTAL_ALTER_CONFIGS API is not supported by the cluster. The API is supported starting "
                 "from version 2.3.0. You may want to use an older version of this tool to interact with your cluster, "
                 "or upgrade your brokers to version 2.3.0 or newer to avoid this error.");
  return f;
}

}  // namespace

std::optional<failure> configs_to_add(const command_line& c, properties* out) {
  out->clear();
  if (c.add_config_file) {
    if (c.add_config_file_count > 1)
      return plain("Found multiple arguments for option add-config-file, but you asked for only one");
    if (!std::filesystem::exists(*c.add_config_file))
      return thrown("java.nio.file.NoSuchFileException: " + *c.add_config_file);
    std::vector<std::pair<std::string, std::string>> loaded;
    std::string error;
    if (!load_properties_file(*c.add_config_file, &loaded, &error)) return thrown("java.io.IOException: " + error);
    for (const auto& [k, v] : loaded) set_property(out, k, v);
  }
  if (c.add_config) {
    if (c.add_config_count > 1) return plain("Found multiple arguments for option add-config, but you asked for only one");
    std::string error;
    if (!parse_add_config(*c.add_config, out, &error)) return plain(error);
  }
  if (auto bad = invalid_key(*out)) return plain("Invalid character found for config key: " + *bad);
  return std::nullopt;
}

std::optional<failure> alter_configs(config_admin& admin, const command_line& c, const properties& added,
                                     std::ostream& out) {
  const std::string& type = c.entity_types.front();
  const std::string& name = c.entity_names.front();
  const auto keys = scala_map_keys(added);
  std::optional<failure> f;
  if (type == topics || type == client_metrics || type == brokers || type == groups) {
    f = alter_resource(admin, type, name, keys, added, c.delete_config);
  } else if (type == broker_loggers) {
    f = alter_loggers(admin, name, keys, added, c.delete_config);
  } else if (type == users || type == clients) {
    f = alter_users_or_clients(admin, c, keys, added);
  } else {
    auto names = keys;
    names.insert(names.end(), c.delete_config.begin(), c.delete_config.end());
    auto unknown = filtered(scala_set(names), [](const std::string& k) { return k != "connection_creation_rate"; });
    if (!unknown.empty())
      return plain("Only connection quota configs can be added for 'ips' using --bootstrap-server. Unexpected config "
                   "names: " + join(unknown, ","));
    if (!f) f = alter_quotas(admin, c, keys, added);
  }
  if (f) return f;
  if (!name.empty())
    out << "Completed updating config for " << type.substr(0, type.size() - 1) << " " << name << ".\n";
  else
    out << "Completed updating default config for " << type << " in the cluster.\n";
  return std::nullopt;
}

}  // namespace hw::tools::configs
