#include "controller/metadata/acl_authorizer.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

#include "protocol/java_string.h"

namespace hw::controller {
namespace {

constexpr std::string_view wildcard_principal = "User:*";

bool usable(const acl_entry& acl) {
  return acl.resource_type != acl_resource_type::unknown && acl.resource_type != acl_resource_type::any &&
         (acl.pattern_type == acl_pattern_type::literal || acl.pattern_type == acl_pattern_type::prefixed) &&
         acl.operation != acl_operation::unknown && acl.operation != acl_operation::any &&
         (acl.permission == acl_permission::allow || acl.permission == acl_permission::deny);
}

// The reverse order of names puts, after a name, every shorter name it
// starts with: a search for a resource's name starts there and meets its
// literal ACLs and the prefixes that could cover it without visiting the
// ACLs of unrelated names.
bool index_less(const acl_entry& a, const acl_entry& b) {
  if (a.resource_type != b.resource_type) return a.resource_type < b.resource_type;
  if (a.resource_name != b.resource_name) return a.resource_name > b.resource_name;
  return std::tie(a.pattern_type, a.operation, a.principal, a.host, a.permission) <
         std::tie(b.pattern_type, b.operation, b.principal, b.host, b.permission);
}

using acl_iterator = std::vector<acl_entry>::const_iterator;

// The first ACL at or after `from` whose type is `type` and whose name sorts
// at or below `name`: where the ACLs on `name` and on names below it begin.
acl_iterator first_at_or_below(acl_iterator from, acl_iterator end, acl_resource_type type, std::string_view name) {
  return std::partition_point(from, end, [&](const acl_entry& acl) {
    return acl.resource_type < type || (acl.resource_type == type && acl.resource_name > name);
  });
}

size_t common_prefix(std::string_view a, std::string_view b) {
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin()).first -
                             a.begin());
}

bool implies(acl_operation granted, acl_operation asked) {
  switch (asked) {
    case acl_operation::describe:
      return granted == acl_operation::describe || granted == acl_operation::read || granted == acl_operation::write ||
             granted == acl_operation::remove || granted == acl_operation::alter;
    case acl_operation::describe_configs:
      return granted == acl_operation::describe_configs || granted == acl_operation::alter_configs;
    default:
      return granted == asked;
  }
}

// Whether an ACL that applies to the resource also matches the request.
// Implication widens ALLOWs only: a DENY of READ leaves DESCRIBE alone.
bool matches_request(const acl_entry& acl, std::string_view principal, std::string_view host, acl_operation op) {
  if (acl.principal != principal && acl.principal != wildcard_principal) return false;
  if (acl.host != acl_wildcard && acl.host != host) return false;
  if (acl.operation == acl_operation::all) return true;
  return acl.permission == acl_permission::allow ? implies(acl.operation, op) : acl.operation == op;
}

// Collects a decision as ACLs that apply to the resource are met: the first
// matching DENY settles it; of ALLOWs, the last met is the one reported (as
// Kafka's search reports it).
struct decision_builder {
  std::string_view principal;
  std::string_view host;
  acl_operation op;
  bool resource_has_acls = false;
  const acl_entry* allow = nullptr;
  const acl_entry* deny = nullptr;

  // False once a DENY matched: nothing after can change the answer.
  bool consider(const acl_entry& acl) {
    resource_has_acls = true;
    if (!matches_request(acl, principal, host, op)) return true;
    if (acl.permission == acl_permission::deny) {
      deny = &acl;
      return false;
    }
    allow = &acl;
    return true;
  }

  acl_decision build(bool allow_if_no_acl) const {
    if (deny) return {false, acl_rule::matching_deny, deny};
    if (allow) return {true, acl_rule::matching_allow, allow};
    if (!resource_has_acls) return {allow_if_no_acl, acl_rule::no_acl_found, nullptr};
    return {false, acl_rule::no_matching_acl, nullptr};
  }
};

std::string_view pascal_type_name(acl_resource_type type) {
  switch (type) {
    case acl_resource_type::any: return "Any";
    case acl_resource_type::topic: return "Topic";
    case acl_resource_type::group: return "Group";
    case acl_resource_type::cluster: return "Cluster";
    case acl_resource_type::transactional_id: return "TransactionalId";
    case acl_resource_type::delegation_token: return "DelegationToken";
    case acl_resource_type::user: return "User";
    default: return "Unknown";
  }
}

using op = acl_operation;
constexpr std::array topic_operations{op::read,   op::write,    op::create,           op::describe,
                                      op::remove, op::alter,    op::describe_configs, op::alter_configs};
constexpr std::array group_operations{op::read, op::describe, op::remove, op::describe_configs, op::alter_configs};
constexpr std::array cluster_operations{op::create,        op::cluster_action,   op::describe_configs, op::alter_configs,
                                        op::idempotent_write, op::alter,         op::describe};
constexpr std::array transactional_id_operations{op::describe, op::write, op::two_phase_commit};
constexpr std::array delegation_token_operations{op::describe};
constexpr std::array user_operations{op::create_tokens, op::describe_tokens};

}  // namespace

std::variant<std::set<std::string, std::less<>>, std::string> parse_super_users(std::string_view text) {
  std::set<std::string, std::less<>> users;
  while (true) {
    const size_t end = text.find(';');
    const std::string_view principal = protocol::java_trim(text.substr(0, end));
    if (!principal.empty()) {
      if (principal.find(':') == std::string_view::npos)
        return "expected a string in format principalType:principalName but got " + std::string(principal);
      users.emplace(principal);
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return users;
}

std::string rule_text(const acl_decision& decision) {
  switch (decision.rule) {
    case acl_rule::super_user:
      return "SuperUser";
    case acl_rule::matching_allow:
    case acl_rule::matching_deny: {
      const acl_entry& a = *decision.acl;
      return "MatchingAcl(acl=StandardAcl(resourceType=" + std::string(to_string(a.resource_type)) +
             ", resourceName=" + a.resource_name + ", patternType=" + std::string(to_string(a.pattern_type)) +
             ", principal=" + a.principal + ", host=" + a.host + ", operation=" + std::string(to_string(a.operation)) +
             ", permissionType=" + std::string(to_string(a.permission)) + "))";
    }
    case acl_rule::no_acl_found:
    case acl_rule::no_matching_acl:
      break;
  }
  return decision.allowed ? "DefaultAllow" : "DefaultDeny";
}

std::string audit_text(const acl_decision& decision, std::string_view principal, std::string_view host,
                       acl_operation operation, acl_resource_type resource_type, std::string_view resource_name,
                       std::string_view api_name, int32_t resource_ref_count) {
  std::string line = "Principal = ";
  line.append(principal).append(" is ").append(decision.allowed ? "Allowed" : "Denied");
  line.append(" operation = ").append(to_string(operation));
  line.append(" from host = ").append(host);
  line.append(" on resource = ").append(pascal_type_name(resource_type)).append(":LITERAL:").append(resource_name);
  line.append(" for request = ").append(api_name);
  line.append(" with resourceRefCount = ").append(std::to_string(resource_ref_count));
  line.append(" based on rule ").append(rule_text(decision));
  return line;
}

std::span<const acl_operation> supported_operations(acl_resource_type type) {
  switch (type) {
    case acl_resource_type::topic: return topic_operations;
    case acl_resource_type::group: return group_operations;
    case acl_resource_type::cluster: return cluster_operations;
    case acl_resource_type::transactional_id: return transactional_id_operations;
    case acl_resource_type::delegation_token: return delegation_token_operations;
    case acl_resource_type::user: return user_operations;
    default: return {};
  }
}

int32_t supported_operations_bits(acl_resource_type type) {
  int32_t bits = 0;
  for (const acl_operation o : supported_operations(type)) bits |= int32_t{1} << static_cast<int>(o);
  return bits;
}

acl_authorizer::acl_authorizer(const std::map<protocol::uuid, acl_entry>& acls, authorizer_settings settings)
    : settings_(std::move(settings)) {
  acls_.reserve(acls.size());
  for (const auto& [id, acl] : acls)
    if (usable(acl)) acls_.push_back(acl);
  std::sort(acls_.begin(), acls_.end(), index_less);
}

acl_decision acl_authorizer::authorize(std::string_view principal, std::string_view host, acl_operation operation,
                                       acl_resource_type resource_type, std::string_view resource_name) const {
  if (settings_.super_users.contains(principal)) return {true, acl_rule::super_user, nullptr};
  decision_builder found{principal, host, operation};
  const auto end = acls_.end();

  // The ACLs on the name itself and on the names it starts with. From the
  // name's place the search goes down the reverse order; an ACL whose name
  // the resource's does not start with shares some first characters with it,
  // and no name between the two can cover the resource, so the search jumps
  // to those shared characters.
  auto it = first_at_or_below(acls_.begin(), end, resource_type, resource_name);
  while (it != end && it->resource_type == resource_type) {
    const size_t shared = common_prefix(resource_name, it->resource_name);
    if (shared < it->resource_name.size()) {
      it = first_at_or_below(it, end, resource_type, resource_name.substr(0, shared));
      continue;
    }
    if (it->pattern_type == acl_pattern_type::literal && shared != resource_name.size()) {
      // LITERAL ACLs on a shorter name cover only that name: skip them to
      // the PREFIXED ones on it, which sort right after.
      const std::string_view name = it->resource_name;
      it = std::partition_point(it, end, [&](const acl_entry& acl) {
        return acl.resource_type == resource_type && acl.resource_name == name &&
               acl.pattern_type == acl_pattern_type::literal;
      });
      continue;
    }
    if (!found.consider(*it)) return found.build(settings_.allow_everyone_if_no_acl_found);
    ++it;
  }

  // The wildcard ACLs. Kafka's search treats LITERAL "*" like any literal
  // name a resource's starts with, so they do not apply to a resource whose
  // name starts with "*" (other than "*" itself, met above): a group named
  // "*x" is not covered by ACLs on every group. Kept, so that the same ACLs
  // decide the same here.
  if (!resource_name.starts_with(acl_wildcard)) {
    for (it = first_at_or_below(acls_.begin(), end, resource_type, acl_wildcard);
         it != end && it->resource_type == resource_type && it->resource_name == acl_wildcard &&
         it->pattern_type == acl_pattern_type::literal;
         ++it) {
      if (!found.consider(*it)) break;
    }
  }
  return found.build(settings_.allow_everyone_if_no_acl_found);
}

bool acl_authorizer::authorize_by_resource_type(std::string_view principal, std::string_view host,
                                                acl_operation operation, acl_resource_type resource_type) const {
  if (resource_type == acl_resource_type::any || resource_type == acl_resource_type::unknown ||
      operation == acl_operation::any || operation == acl_operation::unknown)
    return false;
  // Kafka first asks about a made-up name, so that a super user (and, with
  // allow.everyone.if.no.acl.found, anyone when no ACL covers that name, or
  // an ACL on the wildcard or a prefix of it allows) passes whatever DENYs
  // exist elsewhere.
  if (authorize(principal, host, operation, resource_type, "hardcode").allowed) return true;

  // Then: some ALLOW of the type that no DENY dominates. Only exact
  // operations and ALL count here, without implication.
  std::set<std::string_view> deny_literal, deny_prefixed, allow_literal, allow_prefixed;
  bool wildcard_allow = false;
  const auto end = acls_.end();
  for (auto it = std::partition_point(acls_.begin(), end,
                                      [&](const acl_entry& acl) { return acl.resource_type < resource_type; });
       it != end && it->resource_type == resource_type; ++it) {
    const acl_entry& acl = *it;
    if (acl.host != host && acl.host != acl_wildcard) continue;
    if (acl.principal != principal && acl.principal != wildcard_principal) continue;
    if (acl.operation != operation && acl.operation != acl_operation::all) continue;
    const bool literal = acl.pattern_type == acl_pattern_type::literal;
    if (acl.permission == acl_permission::deny) {
      // A DENY on every name leaves nothing to allow.
      if (literal && acl.resource_name == acl_wildcard) return false;
      (literal ? deny_literal : deny_prefixed).insert(acl.resource_name);
    } else if (literal && acl.resource_name == acl_wildcard) {
      wildcard_allow = true;
    } else {
      (literal ? allow_literal : allow_prefixed).insert(acl.resource_name);
    }
  }
  if (wildcard_allow) return true;

  // An ALLOW is dominated by a PREFIXED DENY on any start of its name (its
  // whole name included), and a LITERAL ALLOW also by a LITERAL DENY on the
  // same name; a PREFIXED ALLOW is not cancelled by a LITERAL DENY.
  const auto dominated_by_prefix = [&](std::string_view name) {
    for (size_t n = 1; n <= name.size(); ++n)
      if (deny_prefixed.contains(name.substr(0, n))) return true;
    return false;
  };
  for (const std::string_view name : allow_literal)
    if (!deny_literal.contains(name) && !dominated_by_prefix(name)) return true;
  for (const std::string_view name : allow_prefixed)
    if (!dominated_by_prefix(name)) return true;
  return false;
}

int32_t acl_authorizer::authorized_operations(std::string_view principal, std::string_view host,
                                              acl_resource_type resource_type, std::string_view resource_name) const {
  int32_t bits = 0;
  for (const acl_operation o : supported_operations(resource_type))
    if (authorize(principal, host, o, resource_type, resource_name).allowed) bits |= int32_t{1} << static_cast<int>(o);
  return bits;
}

}  // namespace hw::controller
