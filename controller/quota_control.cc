#include "controller/quota_control.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace hw::controller {

namespace {

using entry_result = msg::alter_client_quotas_response::entry_data;

enum class value_type { long_value, int_value, double_value };

// Kafka's QuotaConfig: the keys of users and client ids, and of ips.
const std::map<std::string, value_type, std::less<>>& user_client_keys() {
  static const std::map<std::string, value_type, std::less<>> keys{
      {"producer_byte_rate", value_type::long_value},
      {"consumer_byte_rate", value_type::long_value},
      {"request_percentage", value_type::double_value},
      {"controller_mutation_rate", value_type::double_value},
  };
  return keys;
}
const std::map<std::string, value_type, std::less<>>& ip_keys() {
  static const std::map<std::string, value_type, std::less<>> keys{
      {"connection_creation_rate", value_type::int_value},
  };
  return keys;
}

// An entity as Kafka's request parser makes it: a HashMap sized for the
// entity list, a type named twice keeping its last name.
struct request_entity {
  quota_entity entity;
  std::vector<std::string> order;  // the HashMap's iteration order
};

request_entity entity_of(const std::vector<msg::alter_client_quotas_request::entity_data>& list) {
  request_entity out;
  std::vector<std::string> types;
  for (const auto& e : list) {
    out.entity[e.entity_type] = e.entity_name;
    types.push_back(e.entity_type);
  }
  out.order = java_map_order(types, list.size());
  return out;
}

std::optional<api_error> invalid(std::string message) {
  return api_error{error_code::invalid_request, std::move(message)};
}

// ClientQuotaControlManager.validateEntity: the types in the map's order.
std::optional<api_error> refused_entity(const request_entity& e) {
  if (e.entity.empty()) return invalid("Invalid empty client quota entity");
  for (const auto& type : e.order) {
    if (type != quota_user && type != quota_client_id && type != quota_ip)
      return invalid("Unhandled client quota entity type: " + type);
    const auto& name = e.entity.at(type);
    if (name && name->empty()) return invalid("Empty " + type + " not supported");
  }
  return std::nullopt;
}

// configKeysForEntityType: which keys the entity's kind takes.
std::optional<api_error> keys_for(const quota_entity& entity, const quota_control::host_check& resolves,
                                  const std::map<std::string, value_type, std::less<>>** keys) {
  const bool user = entity.count(std::string(quota_user)), client = entity.count(std::string(quota_client_id));
  auto ip = entity.find(std::string(quota_ip));
  if (ip != entity.end()) {
    // Kafka's text lacks the space between "should" and "not".
    if (user || client)
      return invalid("Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId");
    if (ip->second && !resolves(*ip->second)) return invalid(*ip->second + " is not a valid IP or resolvable host.");
    *keys = &ip_keys();
  } else {
    *keys = &user_client_keys();
  }
  return std::nullopt;
}

// validateQuotaKeyValue.
std::optional<api_error> refused_value(const std::map<std::string, value_type, std::less<>>& keys,
                                       const std::string& key, double value) {
  auto it = keys.find(key);
  if (it == keys.end()) return invalid("Invalid configuration key " + key);
  if (value <= 0.0) return invalid("Quota " + key + " must be greater than 0");
  switch (it->second) {
    case value_type::double_value:
      return std::nullopt;
    case value_type::int_value:
      if (value > static_cast<double>(std::numeric_limits<int32_t>::max()))
        return invalid("Proposed value for " + key + " is too large for an INT.");
      break;
    case value_type::long_value:
      if (value > static_cast<double>(std::numeric_limits<int64_t>::max()))
        return invalid("Proposed value for " + key + " is too large for a LONG.");
      break;
  }
  // Java's % on doubles is fmod; NaN passes every check, as in Kafka.
  if (std::fabs(std::fmod(value, 1.0)) > 1e-6) return invalid(key + " cannot be a fractional value.");
  return std::nullopt;
}

// Double.equals: by bits, every NaN alike.
bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// alterClientQuotaEntity: the records of one entry, or why it is refused.
std::optional<api_error> alter_entity(const metadata_image& image, const request_entity& e,
                                      const std::vector<std::pair<std::string, std::optional<double>>>& ops,
                                      const quota_control::host_check& resolves,
                                      std::vector<metadata_record>& records) {
  if (auto why = refused_entity(e)) return why;
  const std::map<std::string, value_type, std::less<>>* keys = nullptr;
  if (auto why = keys_for(e.entity, resolves, &keys)) return why;
  static const quota_values none;
  auto held = image.client_quotas.find(e.entity);
  const quota_values& current = held == image.client_quotas.end() ? none : held->second;
  std::vector<metadata_record> out;
  for (const auto& [key, value] : ops) {
    auto now = current.find(key);
    if (!value) {
      if (now != current.end()) out.emplace_back(client_quota_record(e.entity, key, std::nullopt));
      continue;
    }
    if (auto why = refused_value(*keys, key, *value)) return why;
    if (now == current.end() || !same_double(now->second, *value))
      out.emplace_back(client_quota_record(e.entity, key, *value));
  }
  records.insert(records.end(), out.begin(), out.end());
  return std::nullopt;
}

// ClientQuotaEntity.hashCode: Objects.hash(entries), the map's hash the
// sum of its entries' (key hash ^ value hash, null 0).
uint32_t entity_hash(const quota_entity& entity) {
  uint32_t h = 0;
  for (const auto& [type, name] : entity) h += java_string_hash(type) ^ (name ? java_string_hash(*name) : 0);
  return 31 + h;
}

// The answers keyed by entity in a HashMap of the default capacity: put
// order kept for a repeated entity, iteration by bucket.
struct result_map {
  struct slot {
    request_entity entity;
    api_error error;
  };
  std::vector<slot> slots;

  slot* find(const quota_entity& entity) {
    for (auto& s : slots)
      if (s.entity.entity == entity) return &s;
    return nullptr;
  }
  void put(const request_entity& entity, api_error error) {
    if (slot* s = find(entity.entity)) {
      s->error = std::move(error);
      return;
    }
    slots.push_back({entity, std::move(error)});
  }
  std::vector<entry_result> answers() const {
    size_t table = 16;
    while (slots.size() > table * 3 / 4) table <<= 1;
    auto bucket = [table](const slot& s) {
      uint32_t h = entity_hash(s.entity.entity);
      return (h ^ (h >> 16)) & (table - 1);
    };
    std::vector<const slot*> ordered;
    for (const auto& s : slots) ordered.push_back(&s);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [&](const slot* a, const slot* b) { return bucket(*a) < bucket(*b); });
    std::vector<entry_result> out;
    for (const slot* s : ordered) {
      auto& r = out.emplace_back();
      r.error_code = static_cast<int16_t>(s->error.code);
      if (s->error.ok()) r.error_message = std::nullopt;
      else r.error_message = s->error.message;
      for (const auto& type : s->entity.order) {
        auto& d = r.entity.emplace_back();
        d.entity_type = type;
        d.entity_name = s->entity.entity.at(type);
      }
    }
    return out;
  }
};

}  // namespace

controller_result<msg::alter_client_quotas_response> quota_control::alter_client_quotas(
    const metadata_image& image, const msg::alter_client_quotas_request& request, const host_check& resolves) {
  controller_result<msg::alter_client_quotas_response> out;
  result_map results;
  for (const auto& entry : request.entries) {
    const request_entity e = entity_of(entry.entity);
    const std::string text = quota_entity_text(e.entity, e.order);
    // The ops in a HashMap sized for them: the first of a repeated key
    // stays, and the entry is answered as a duplicate.
    std::vector<std::string> keys;
    std::map<std::string, std::optional<double>> values;
    for (const auto& op : entry.ops) {
      if (values.count(op.key)) {
        results.put(e, *invalid("Duplicate quota key " + op.key + " not updating quota for this entity " + text));
        continue;
      }
      values[op.key] = op.remove ? std::nullopt : std::optional<double>(op.value);
      keys.push_back(op.key);
    }
    if (results.find(e.entity)) {
      results.put(e, *invalid("Ignoring duplicate entity " + text));
      continue;
    }
    std::vector<std::pair<std::string, std::optional<double>>> ops;
    for (const auto& key : java_map_order(keys, entry.ops.size())) ops.emplace_back(key, values.at(key));
    auto why = alter_entity(image, e, ops, resolves, out.records);
    results.put(e, why ? *why : api_error{});
  }
  out.response.entries = results.answers();
  // Kafka bounds one operation's records (MAX_RECORDS_PER_USER_OP): past
  // it the whole alteration fails, even when only validated, answered as
  // Kafka's error response is: every entry as the request gave it, in its
  // order, with POLICY_VIOLATION.
  if (out.records.size() > max_records_per_operation) {
    out.records.clear();
    out.response.entries.clear();
    for (const auto& asked : request.entries) {
      auto& answer = out.response.entries.emplace_back();
      for (const auto& e : asked.entity) {
        auto& who = answer.entity.emplace_back();
        who.entity_type = e.entity_type;
        who.entity_name = e.entity_name;
      }
      answer.error_code = static_cast<int16_t>(error_code::policy_violation);
      answer.error_message = "Request parameters do not satisfy the configured policy.";
    }
  }
  if (request.validate_only) out.records.clear();
  return out;
}

bool quota_control::resolvable_host(const std::string& name) {
  std::string host = name;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    in6_addr v6;
    return inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &v6) == 1;
  }
  in_addr v4;
  in6_addr v6;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1) return true;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  freeaddrinfo(found);
  return true;
}

}  // namespace hw::controller
