// kafka-configs.sh and client quotas (users, clients, ips):
// describeClientQuotas and alterClientQuotas as Kafka's admin client makes
// them for ConfigCommand, and the lines ConfigCommand prints. The admin
// client collects a description in HashMaps (entities by
// ClientQuotaEntity's hash, each one's values by key) and the tool prints
// them in those maps' order; values print as Java's Double.toString.

#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>

#include "protocol/json/json_out.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/describe_client_quotas.h"
#include "tools/commands/configs.h"
#include "tools/commands/java.h"

namespace hw::tools::configs {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_not_controller = 41;

failure quota_timeout(const std::string& call) {
  return execution("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: " +
                   call);
}

// ClientQuotaEntity.hashCode: Objects.hash(entries), the map's hash the sum
// of (type hash ^ name hash), a null name 0.
int32_t entity_hash(const std::vector<std::pair<std::string, std::optional<std::string>>>& entity) {
  uint32_t h = 0;
  for (const auto& [type, name] : entity)
    h += static_cast<uint32_t>(java::string_hash(type)) ^ (name ? static_cast<uint32_t>(java::string_hash(*name)) : 0u);
  return static_cast<int32_t>(31u + h);
}

std::string quota_entity_type(const std::string& config_type) {
  if (config_type == users) return "user";
  if (config_type == clients) return "client-id";
  return "ip";
}

}  // namespace

std::optional<failure> config_admin::describe_quotas(const std::vector<quota_component>& components,
                                                     std::vector<quota_description>* out) {
  std::optional<failure> unconnected;
  if (!client("describeClientQuotas", &unconnected)) return unconnected;
  // DescribeClientQuotas' listeners are the brokers'.
  if (admin_->bootstrap_controllers()) return unsupported_endpoint();
  msg::describe_client_quotas_request req;
  for (const auto& c : components) {
    auto& x = req.components.emplace_back();
    x.entity_type = c.entity_type;
    x.match = c.name;
    // ofEntityType: SPECIFIED; ofDefaultEntity: DEFAULT; ofEntity: EXACT.
    x.match_type = c.any ? 2 : c.name ? 0 : 1;
    if (c.any) x.match = std::nullopt;
  }
  req.strict = true;  // ClientQuotaFilter.containsOnly
  msg::describe_client_quotas_response resp;
  std::string error;
  while (!admin_->call(any_or_controller(), req, &resp, &error)) {
    if (admin_client::unsupported(error))
      return execution("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support "
                       "DESCRIBE_CLIENT_QUOTAS");
    if (!admin_->back_off()) return quota_timeout("describeClientQuotas");
  }
  if (resp.error_code != 0) return execution(kafka_exception(resp.error_code, resp.error_message));
  out->clear();
  if (!resp.entries) return std::nullopt;
  // new HashMap<>(entries.size()) keyed by entity; a repeated entity keeps
  // its first place and its last values.
  java::hash_order order(static_cast<int32_t>(resp.entries->size()));
  std::vector<quota_description> found;
  for (const auto& e : *resp.entries) {
    quota_description d;
    for (const auto& x : e.entity) d.entity.emplace_back(x.entity_type, x.entity_name);
    std::vector<std::string> keys;
    std::map<std::string, double> values;
    for (const auto& v : e.values) {
      if (!values.count(v.key)) keys.push_back(v.key);
      values[v.key] = v.value;
    }
    for (const auto& k : java::hash_map_order(keys, static_cast<int32_t>(e.values.size())))
      d.values.emplace_back(k, values[k]);
    std::map<std::string, std::optional<std::string>> as_map(d.entity.begin(), d.entity.end());
    bool repeated = false;
    for (auto& f : found) {
      if (std::map<std::string, std::optional<std::string>>(f.entity.begin(), f.entity.end()) == as_map) {
        f.values = d.values;
        repeated = true;
      }
    }
    if (repeated) continue;
    order.put(entity_hash({as_map.begin(), as_map.end()}), found.size());
    found.push_back(std::move(d));
  }
  for (size_t i : order.order()) out->push_back(std::move(found[i]));
  return std::nullopt;
}

std::optional<failure> config_admin::alter_quotas(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& entity,
    const std::vector<std::pair<std::string, std::optional<double>>>& ops) {
  std::optional<failure> unconnected;
  if (!client("alterClientQuotas", &unconnected)) return unconnected;
  msg::alter_client_quotas_request req;
  auto& e = req.entries.emplace_back();
  // The entity's HashMap, built in the command line's order.
  std::vector<std::string> types;
  for (const auto& [type, name] : entity) types.push_back(type);
  for (const auto& type : java::hash_map_order(types)) {
    auto& d = e.entity.emplace_back();
    d.entity_type = type;
    for (const auto& [t, name] : entity)
      if (t == type) d.entity_name = name;
  }
  for (const auto& [key, value] : ops) {
    auto& op = e.ops.emplace_back();
    op.key = key;
    op.value = value.value_or(0.0);
    op.remove = !value;
  }
  req.validate_only = false;
  msg::alter_client_quotas_response resp;
  for (;;) {
    std::string error;
    if (admin_->call(any_or_controller(), req, &resp, &error)) {
      bool not_controller = false;
      for (const auto& r : resp.entries) not_controller |= r.error_code == k_not_controller;
      if (!not_controller) break;
    } else if (admin_client::unsupported(error)) {
      return execution("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support "
                       "ALTER_CLIENT_QUOTAS");
    }
    if (!admin_->back_off()) return quota_timeout("alterClientQuotas");
  }
  for (const auto& r : resp.entries)
    if (r.error_code != 0) return execution(kafka_exception(r.error_code, r.error_message));
  return std::nullopt;
}

std::vector<quota_component> quota_components(const command_line& c) {
  std::vector<quota_component> out;
  for (size_t i = 0; i < c.entity_types.size(); ++i) {
    quota_component q;
    q.entity_type = quota_entity_type(c.entity_types[i]);
    if (i >= c.entity_names.size()) q.any = true;
    else if (!c.entity_names[i].empty()) q.name = c.entity_names[i];
    out.push_back(std::move(q));
  }
  return out;
}

std::string quota_line(const quota_description& d) {
  auto part = [&](const std::string& type, const std::string& shown) -> std::optional<std::string> {
    for (const auto& [t, name] : d.entity)
      if (t == type) return name ? shown + " '" + *name + "'" : "the default " + shown;
    return std::nullopt;
  };
  std::string entity;
  for (const auto& p : {part("user", "user-principal"), part("client-id", "client-id"), part("ip", "ip")}) {
    if (!p) continue;
    if (!entity.empty()) entity += ", ";
    entity += *p;
  }
  std::string values;
  for (const auto& [key, value] : d.values) {
    if (!values.empty()) values += ", ";
    values += key + "=" + protocol::json::java_double(value);
  }
  return "Quota configs for " + entity + " are " + values;
}

bool java_parse_double(const std::string& text, double* out) {
  // Double.parseDouble: trimmed of characters <= ' ', Java's floating
  // literal (a trailing f or d allowed), NaN and Infinity signed or not.
  size_t b = 0, e = text.size();
  while (b < e && static_cast<unsigned char>(text[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(text[e - 1]) <= ' ') --e;
  std::string t = text.substr(b, e - b);
  static const std::regex decimal(R"([+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)))");
  static const std::regex hex(R"([+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?)");
  if (!std::regex_match(t, decimal) && !std::regex_match(t, hex)) return false;
  // What is left of a matched literal ending in f, F, d or D is its suffix
  // (a hex literal ends in its exponent's digits).
  if (t.back() == 'f' || t.back() == 'F' || t.back() == 'd' || t.back() == 'D') t.pop_back();
  const bool negative = !t.empty() && t[0] == '-';
  const std::string body = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? t.substr(1) : t;
  if (body == "NaN") *out = std::nan("");
  else if (body == "Infinity") *out = negative ? -HUGE_VAL : HUGE_VAL;
  else *out = std::strtod(t.c_str(), nullptr);
  return true;
}

}  // namespace hw::tools::configs
