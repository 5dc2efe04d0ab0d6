#include "controller/metadata/quotas.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "protocol/error_code.h"

namespace hw::controller {

namespace {

namespace msg = protocol::msg;

using describe_response = msg::describe_client_quotas_response;

describe_response describe_refused(protocol::error_code code, std::string message) {
  describe_response out;
  out.error_code = static_cast<int16_t>(code);
  out.error_message = std::move(message);
  out.entries.reset();
  return out;
}

// DescribeClientQuotasRequest's match types.
constexpr int8_t match_exact = 0, match_default = 1, match_specified = 2;

bool matches(const quota_entity& entity, const quota_entity& exact, const std::set<std::string>& typed,
             bool strict) {
  if (strict && entity.size() != exact.size() + typed.size()) return false;
  for (const auto& [type, name] : exact) {
    auto it = entity.find(type);
    if (it == entity.end() || it->second != name) return false;
  }
  for (const auto& type : typed)
    if (!entity.count(type)) return false;
  return true;
}

std::vector<std::string> types_of(const quota_entity& entity) {
  std::vector<std::string> types;
  for (const auto& [type, name] : entity) types.push_back(type);
  return types;
}

}  // namespace

// A byte that starts no valid sequence counts as U+FFFD, as Java decodes it.
uint32_t java_string_hash(std::string_view s) {
  uint32_t h = 0;
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    uint32_t cp = 0xfffd;
    size_t len = 1;
    if (b < 0x80) {
      cp = b;
    } else if ((b >> 5) == 0x6 || (b >> 4) == 0xe || (b >> 3) == 0x1e) {
      len = (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : 4;
      if (i + len <= s.size()) {
        cp = b & (0x7f >> len);
        for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
      } else {
        len = 1;
      }
    }
    i += len;
    if (cp >= 0x10000) {
      const uint32_t v = cp - 0x10000;
      h = 31 * h + (0xd800 + (v >> 10));
      h = 31 * h + (0xdc00 + (v & 0x3ff));
    } else {
      h = 31 * h + cp;
    }
  }
  return h;
}

std::vector<std::string> java_map_order(const std::vector<std::string>& keys, size_t capacity_hint) {
  std::vector<std::string> unique;
  for (const auto& k : keys)
    if (std::find(unique.begin(), unique.end(), k) == unique.end()) unique.push_back(k);
  // HashMap(n): a table of the next power of two (at least 1), doubled
  // whenever a put takes the size past three quarters of it.
  size_t table = 1;
  while (table < capacity_hint) table <<= 1;
  size_t threshold = table * 3 / 4;
  for (size_t size = 1; size <= unique.size(); ++size) {
    if (size > threshold) {
      table <<= 1;
      threshold = table * 3 / 4;
    }
  }
  auto bucket = [table](const std::string& s) {
    uint32_t h = java_string_hash(s);
    h ^= h >> 16;
    return h & (table - 1);
  };
  std::stable_sort(unique.begin(), unique.end(),
                   [&](const std::string& a, const std::string& b) { return bucket(a) < bucket(b); });
  return unique;
}

std::string quota_entity_text(const quota_entity& entity, const std::vector<std::string>& order) {
  std::string out = "ClientQuotaEntity(entries={";
  bool first = true;
  for (const auto& type : order) {
    auto it = entity.find(type);
    if (it == entity.end()) continue;
    if (!first) out += ", ";
    first = false;
    out += type + "=" + it->second.value_or("null");
  }
  return out + "})";
}

msg::client_quota_record client_quota_record(const quota_entity& entity, const std::string& key,
                                             std::optional<double> value) {
  msg::client_quota_record r;
  // The controller builds a record's entity from a HashMap(3).
  for (const auto& type : java_map_order(types_of(entity), 3)) {
    auto& e = r.entity.emplace_back();
    e.entity_type = type;
    e.entity_name = entity.at(type);
  }
  r.key = key;
  r.value = value.value_or(0.0);
  r.remove = !value.has_value();
  return r;
}

describe_response describe_client_quotas(const client_quota_table& quotas,
                                         const msg::describe_client_quotas_request& request) {
  using protocol::error_code;
  quota_entity exact;
  std::set<std::string> typed;
  for (const auto& c : request.components) {
    if (c.entity_type.empty()) return describe_refused(error_code::invalid_request, "Invalid empty entity type.");
    if (exact.count(c.entity_type) || typed.count(c.entity_type))
      return describe_refused(error_code::invalid_request,
                              "Entity type " + c.entity_type + " cannot appear more than once in the filter.");
    if (c.entity_type != quota_ip && c.entity_type != quota_user && c.entity_type != quota_client_id)
      return describe_refused(error_code::unsupported_version, "Unsupported entity type " + c.entity_type);
    switch (c.match_type) {
      case match_exact:
        if (!c.match)
          return describe_refused(error_code::invalid_request,
                                  "Request specified MATCH_TYPE_EXACT, but set match string to null.");
        exact[c.entity_type] = c.match;
        break;
      case match_default:
        if (c.match)
          return describe_refused(error_code::invalid_request,
                                  "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
        exact[c.entity_type] = std::nullopt;
        break;
      case match_specified:
        if (c.match)
          return describe_refused(error_code::invalid_request,
                                  "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
        typed.insert(c.entity_type);
        break;
      default:
        return describe_refused(error_code::invalid_request, "Unknown match type " + std::to_string(c.match_type));
    }
  }
  auto named = [&](std::string_view type) { return exact.count(std::string(type)) || typed.count(std::string(type)); };
  if (named(quota_ip) && (named(quota_user) || named(quota_client_id)))
    return describe_refused(error_code::invalid_request,
                            "Invalid entity filter component combination. IP filter component should not be used "
                            "with user or clientId filter component.");
  describe_response out;
  out.error_code = 0;
  out.error_message = "";  // Kafka's answer keeps the field's default, an empty string
  for (const auto& [entity, values] : quotas) {
    if (!matches(entity, exact, typed, request.strict)) continue;
    auto& entry = out.entries->emplace_back();
    // The image's entities are HashMaps of the default capacity.
    for (const auto& type : java_map_order(types_of(entity), 16)) {
      auto& e = entry.entity.emplace_back();
      e.entity_type = type;
      e.entity_name = entity.at(type);
    }
    // Kafka lists the values in its HashMap's order, which depends on the
    // entity's history; clients read them as a map. Here: by key.
    for (const auto& [key, value] : values) {
      auto& v = entry.values.emplace_back();
      v.key = key;
      v.value = value;
    }
  }
  return out;
}

}  // namespace hw::controller
