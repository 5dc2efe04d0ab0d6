// kafka-configs.sh --describe (ConfigCommand.describeConfig): the configs
// of one entity, or of every entity of its type, each under its header;
// only the dynamic ones unless --all.

#include <algorithm>
#include <ostream>

#include "tools/commands/configs.h"

namespace hw::tools::configs {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// What getResourceConfig asks for an entity: its resource type and the
// source its dynamic configs have (none for loggers: all are shown).
struct resource_view {
  resource_type type;
  std::optional<int8_t> dynamic_source;
};

std::optional<failure> resource_of(std::string_view entity_type, const std::string& name, resource_view* out) {
  if (entity_type == topics) {
    if (!name.empty())
      if (auto bad = invalid_topic_name(name); !bad.empty()) return plain(bad);
    *out = {resource_type::topic, 1};
  } else if (entity_type == brokers) {
    if (!name.empty() && !java_int(name))
      return plain("The entity name for brokers must be a valid integer broker id, found: " + name);
    *out = {resource_type::broker, static_cast<int8_t>(name.empty() ? 3 : 2)};
  } else if (entity_type == broker_loggers) {
    if (!name.empty() && !java_int(name))
      return plain("The entity name for broker-loggers must be a valid integer broker id, found: " + name);
    *out = {resource_type::broker_logger, std::nullopt};
  } else if (entity_type == client_metrics) {
    *out = {resource_type::client_metrics, 7};
  } else {
    *out = {resource_type::group, 8};
  }
  return std::nullopt;
}

// The non---all check that a named entity exists; *exists false prints
// the "doesn't exist" line instead of its configs.
std::optional<failure> check_exists(config_admin& admin, std::string_view type, const std::string& name, bool* exists) {
  std::vector<std::string> known;
  if (type == topics) {
    if (auto bad = invalid_topic_name(name); !bad.empty()) return plain(bad);
    if (auto f = admin.topic_names(&known)) return f;
    *exists = contains(known, name);
  } else if (type == brokers || type == broker_loggers) {
    if (auto f = admin.node_ids(&known)) return f;
    *exists = contains(known, name) || name.empty();
  } else if (type == client_metrics) {
    bool unsupported = false;
    if (auto f = admin.config_resources(resource_type::client_metrics, &known, &unsupported)) return f;
    *exists = contains(known, name);
  } else {
    if (auto f = admin.group_ids(&known)) return f;
    std::vector<std::string> with_configs;
    bool unsupported = false;
    auto f = admin.config_resources(resource_type::group, &with_configs, &unsupported);
    if (f && !unsupported) return f;
    // A broker that cannot list group configs leaves the group to DescribeConfigs.
    *exists = contains(known, name) || f || contains(with_configs, name);
  }
  return std::nullopt;
}

// Every entity of the type, in the order Kafka's tool visits them.
std::optional<failure> all_entities(config_admin& admin, std::string_view type, std::vector<std::string>* out) {
  if (type == topics) return admin.topic_names(out);
  if (type == brokers || type == broker_loggers) {
    if (auto f = admin.node_ids(out)) return f;
    out->push_back("");  // the cluster's defaults
    return std::nullopt;
  }
  bool unsupported = false;
  if (type == client_metrics) return admin.config_resources(resource_type::client_metrics, out, &unsupported);
  std::vector<std::string> ids, with_configs;
  if (auto f = admin.group_ids(&ids)) return f;
  if (auto f = admin.config_resources(resource_type::group, &with_configs, &unsupported); f && !unsupported) return f;
  // A Scala Set of the listed groups, then those with configs added.
  for (const auto& g : with_configs)
    if (!contains(ids, g)) ids.push_back(g);
  *out = scala_hash_order(ids);
  return std::nullopt;
}

std::optional<failure> describe_resources(config_admin& admin, std::string_view type,
                                          const std::optional<std::string>& name, bool all, std::ostream& out) {
  if (!all && name) {
    bool exists = true;
    if (auto f = check_exists(admin, type, *name, &exists)) return f;
    if (!exists) {
      out << missing_line(type, *name) << '\n';
      return std::nullopt;
    }
  }
  std::vector<std::string> entities;
  if (name) entities = {*name};
  else if (auto f = all_entities(admin, type, &entities)) return f;
  for (const auto& entity : entities) {
    out << describe_header(type, entity, all) << '\n';
    resource_view view{};
    if (auto f = resource_of(type, entity, &view)) return f;
    std::vector<config_entry> entries;
    if (auto f = admin.describe(view.type, entity, true, &entries)) return f;
    for (const auto& e : filter_and_sort(std::move(entries), all ? std::nullopt : view.dynamic_source))
      out << entry_line(e) << '\n';
    out.flush();
  }
  return std::nullopt;
}

}  // namespace

std::optional<failure> describe_configs(config_admin& admin, const command_line& c, std::ostream& out) {
  const std::string& type = c.entity_types.front();
  if (type == users || type == clients || type == ips) {
    // describeQuotaConfigs, then (users alone, none of them the default)
    // describeUserScramCredentials of the same names.
    std::vector<quota_description> quotas;
    if (auto f = admin.describe_quotas(quota_components(c), &quotas)) return f;
    for (const auto& q : quotas) out << quota_line(q) << '\n';
    out.flush();
    if (type == ips || contains(c.entity_types, std::string(clients)) || contains(c.entity_names, "")) return std::nullopt;
    std::vector<std::string> lines;
    if (auto f = admin.describe_scram(c.entity_names, &lines)) return f;
    for (const auto& line : lines) out << line << '\n';
    return std::nullopt;
  }
  std::optional<std::string> name;
  if (!c.entity_names.empty()) name = c.entity_names.front();
  return describe_resources(admin, type, name, c.all, out);
}

}  // namespace hw::tools::configs
