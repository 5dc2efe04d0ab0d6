#include "protocol/acl_types.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace hw::protocol {
namespace {

template <class E, size_t N>
using names = std::array<std::pair<E, std::string_view>, N>;

constexpr names<acl_resource_type, 8> resource_names{{
    {acl_resource_type::unknown, "UNKNOWN"},
    {acl_resource_type::any, "ANY"},
    {acl_resource_type::topic, "TOPIC"},
    {acl_resource_type::group, "GROUP"},
    {acl_resource_type::cluster, "CLUSTER"},
    {acl_resource_type::transactional_id, "TRANSACTIONAL_ID"},
    {acl_resource_type::delegation_token, "DELEGATION_TOKEN"},
    {acl_resource_type::user, "USER"},
}};

constexpr names<acl_pattern_type, 5> pattern_names{{
    {acl_pattern_type::unknown, "UNKNOWN"},
    {acl_pattern_type::any, "ANY"},
    {acl_pattern_type::match, "MATCH"},
    {acl_pattern_type::literal, "LITERAL"},
    {acl_pattern_type::prefixed, "PREFIXED"},
}};

constexpr names<acl_operation, 16> operation_names{{
    {acl_operation::unknown, "UNKNOWN"},
    {acl_operation::any, "ANY"},
    {acl_operation::all, "ALL"},
    {acl_operation::read, "READ"},
    {acl_operation::write, "WRITE"},
    {acl_operation::create, "CREATE"},
    {acl_operation::remove, "DELETE"},
    {acl_operation::alter, "ALTER"},
    {acl_operation::describe, "DESCRIBE"},
    {acl_operation::cluster_action, "CLUSTER_ACTION"},
    {acl_operation::describe_configs, "DESCRIBE_CONFIGS"},
    {acl_operation::alter_configs, "ALTER_CONFIGS"},
    {acl_operation::idempotent_write, "IDEMPOTENT_WRITE"},
    {acl_operation::create_tokens, "CREATE_TOKENS"},
    {acl_operation::describe_tokens, "DESCRIBE_TOKENS"},
    {acl_operation::two_phase_commit, "TWO_PHASE_COMMIT"},
}};

constexpr names<acl_permission, 4> permission_names{{
    {acl_permission::unknown, "UNKNOWN"},
    {acl_permission::any, "ANY"},
    {acl_permission::deny, "DENY"},
    {acl_permission::allow, "ALLOW"},
}};

template <class E, size_t N>
std::string_view name_of(const names<E, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "UNKNOWN";
}

// The ids are 0..N-1 in every table.
template <class E, size_t N>
E of_id(const names<E, N>& table, int8_t id) {
  for (const auto& [e, name] : table)
    if (static_cast<int8_t>(e) == id) return e;
  return table[0].first;
}

template <class E, size_t N>
std::optional<E> parse(const names<E, N>& table, std::string_view text) {
  for (const auto& [e, name] : table) {
    if (name.size() != text.size()) continue;
    if (std::equal(name.begin(), name.end(), text.begin(), [](char a, char b) {
          return a == std::toupper(static_cast<unsigned char>(b));
        }))
      return e;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(acl_resource_type t) { return name_of(resource_names, t); }
std::string_view to_string(acl_pattern_type t) { return name_of(pattern_names, t); }
std::string_view to_string(acl_operation o) { return name_of(operation_names, o); }
std::string_view to_string(acl_permission p) { return name_of(permission_names, p); }

acl_resource_type acl_resource_type_of(int8_t id) { return of_id(resource_names, id); }
acl_pattern_type acl_pattern_type_of(int8_t id) { return of_id(pattern_names, id); }
acl_operation acl_operation_of(int8_t id) { return of_id(operation_names, id); }
acl_permission acl_permission_of(int8_t id) { return of_id(permission_names, id); }

std::optional<acl_resource_type> parse_acl_resource_type(std::string_view text) {
  return parse(resource_names, text);
}
std::optional<acl_pattern_type> parse_acl_pattern_type(std::string_view text) { return parse(pattern_names, text); }
std::optional<acl_operation> parse_acl_operation(std::string_view text) { return parse(operation_names, text); }
std::optional<acl_permission> parse_acl_permission(std::string_view text) { return parse(permission_names, text); }

acl_entry acl_entry_of(int8_t resource_type, std::string resource_name, int8_t pattern_type, std::string principal,
                       std::string host, int8_t operation, int8_t permission_type) {
  return {acl_resource_type_of(resource_type), std::move(resource_name), acl_pattern_type_of(pattern_type),
          std::move(principal), std::move(host), acl_operation_of(operation), acl_permission_of(permission_type)};
}

std::string entry_text(const acl_entry& acl) {
  return "(principal=" + acl.principal + ", host=" + acl.host + ", operation=" +
         std::string(to_string(acl.operation)) + ", permissionType=" + std::string(to_string(acl.permission)) + ")";
}

std::string pattern_text(const acl_entry& acl) {
  return "ResourcePattern(resourceType=" + std::string(to_string(acl.resource_type)) + ", name=" +
         acl.resource_name + ", patternType=" + std::string(to_string(acl.pattern_type)) + ")";
}

}  // namespace hw::protocol
