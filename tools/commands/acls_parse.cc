// kafka-acls.sh: the pure parts (acls.h): operation and principal names,
// the resource filters the options name, and the entries each filter gets.

#include <algorithm>
#include <cctype>

#include "tools/commands/acls.h"

namespace hw::tools::acls {
namespace {

// Kafka's PascalCase form of an enum name: "IDEMPOTENT_WRITE" → "IdempotentWrite".
std::string pascal_case(std::string_view name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c))
                                   : std::tolower(static_cast<unsigned char>(c)));
    upper = false;
  }
  return out;
}

std::string upper_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

const char* const k_no_resource =
    "You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token "
    "<Delegation Token ID>";

// The entries of every principal, operation and host (getAcls), allowed
// ones first; the exception AccessControlEntry's constructor throws for
// the filter-only operation ANY.
std::optional<failure> entries_for(const std::vector<std::string>& principals, acl_permission permission,
                                   const std::vector<acl_operation>& operations, const std::vector<std::string>& hosts,
                                   std::vector<entry>* out) {
  for (const auto& principal : principals)
    for (acl_operation op : operations)
      for (const auto& host : hosts) {
        if (op == acl_operation::any) return thrown("java.lang.IllegalArgumentException: operation must not be ANY");
        add_distinct(*out, {principal, host, op, permission});
      }
  return std::nullopt;
}

// The hosts for a permission: the option's values, "*" when only its
// principals are given, none otherwise.
std::vector<std::string> hosts(bool has_hosts, const std::vector<std::string>& values, bool has_principals) {
  std::vector<std::string> out;
  if (has_hosts) {
    for (const auto& v : values)
      if (auto h = java_trim(v); std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  } else if (has_principals) {
    out.emplace_back(protocol::acl_wildcard);
  }
  return out;
}

// getAcl(opts, operations).
std::optional<failure> entries(const command_line& c, const std::vector<acl_operation>& operations,
                               std::vector<entry>* out) {
  std::vector<std::string> allowed, denied;
  if (auto f = principals(c.allow_principals, &allowed)) return f;
  if (auto f = principals(c.deny_principals, &denied)) return f;
  const auto allow_hosts = hosts(c.has_allow_host, c.allow_hosts, c.has_allow_principal);
  const auto deny_hosts = hosts(c.has_deny_host, c.deny_hosts, c.has_deny_principal);
  out->clear();
  if (auto f = entries_for(allowed, acl_permission::allow, operations, allow_hosts, out)) return f;
  return entries_for(denied, acl_permission::deny, operations, deny_hosts, out);
}

std::vector<resource> of_type(const std::vector<resource>& filters, acl_resource_type type) {
  std::vector<resource> out;
  for (const auto& f : filters)
    if (f.type == type) out.push_back(f);
  return out;
}

const resource k_cluster{acl_resource_type::cluster, "kafka-cluster", acl_pattern_type::literal};

std::optional<failure> producer_entries(const command_line& c, resource_map* out) {
  std::vector<resource> filters;
  if (auto f = resource_filters(c, true, &filters)) return f;
  std::vector<entry> topic_acls, transactional_acls, cluster_acls;
  if (auto f = entries(c, {acl_operation::write, acl_operation::describe, acl_operation::create}, &topic_acls)) return f;
  if (auto f = entries(c, {acl_operation::write, acl_operation::describe}, &transactional_acls)) return f;
  for (const auto& t : of_type(filters, acl_resource_type::topic)) entries_of(*out, t) = topic_acls;
  for (const auto& t : of_type(filters, acl_resource_type::transactional_id)) entries_of(*out, t) = transactional_acls;
  if (c.idempotent) {
    if (auto f = entries(c, {acl_operation::idempotent_write}, &cluster_acls)) return f;
    entries_of(*out, k_cluster) = cluster_acls;
  }
  return std::nullopt;
}

// --consumer's entries, added to what --producer gave the same resources.
std::optional<failure> consumer_entries(const command_line& c, resource_map* out) {
  std::vector<resource> filters;
  if (auto f = resource_filters(c, true, &filters)) return f;
  std::vector<entry> topic_acls, group_acls;
  if (auto f = entries(c, {acl_operation::read, acl_operation::describe}, &topic_acls)) return f;
  if (auto f = entries(c, {acl_operation::read}, &group_acls)) return f;
  for (const auto& t : of_type(filters, acl_resource_type::topic))
    for (const auto& e : topic_acls) add_distinct(entries_of(*out, t), e);
  for (const auto& g : of_type(filters, acl_resource_type::group))
    for (const auto& e : group_acls) add_distinct(entries_of(*out, g), e);
  return std::nullopt;
}

}  // namespace

failure usage(std::string message) { return {failure::kind::usage, std::move(message), {}}; }

failure thrown(const std::string& exception, std::vector<std::string> causes) {
  const auto colon = exception.find(": ");
  failure f{failure::kind::executing, colon == std::string::npos ? "null" : exception.substr(colon + 2), {exception}};
  for (auto& cause : causes) f.trace.push_back("Caused by: " + cause);
  return f;
}

failure execution(const std::string& cause) {
  return {failure::kind::executing, cause, {"java.util.concurrent.ExecutionException: " + cause, "Caused by: " + cause}};
}

acl_entry binding(const resource& r, const entry& e) {
  return {r.type, r.name, r.pattern, e.principal, e.host, e.operation, e.permission};
}
resource resource_of(const acl_entry& b) { return {b.resource_type, b.resource_name, b.pattern_type}; }
entry entry_of(const acl_entry& b) { return {b.principal, b.host, b.operation, b.permission}; }

std::vector<entry>& entries_of(resource_map& m, const resource& r) {
  for (auto& ra : m)
    if (ra.pattern == r) return ra.entries;
  return m.emplace_back(resource_acls{r, {}}).entries;
}

void add_distinct(std::vector<entry>& to, const entry& e) {
  if (std::find(to.begin(), to.end(), e) == to.end()) to.push_back(e);
}

std::string java_trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
  return s.substr(b, e - b);
}

acl_operation operation_named(const std::string& text) {
  const std::string upper = upper_case(text);
  for (int id = 0;; ++id) {
    const auto op = protocol::acl_operation_of(static_cast<int8_t>(id));
    if (id > 0 && op == acl_operation::unknown) break;
    const std::string name = pascal_case(to_string(op));
    if (text == name || upper == upper_case(name)) return op;
  }
  return acl_operation::unknown;
}

std::optional<failure> parse_principal(const std::string& text, std::string* out) {
  if (text.find(':') == std::string::npos)
    return thrown("java.lang.IllegalArgumentException: expected a string in format principalType:principalName but got " +
                  text);
  *out = text;
  return std::nullopt;
}

std::optional<failure> principals(const std::vector<std::string>& values, std::vector<std::string>* out) {
  out->clear();
  for (const auto& v : values) {
    std::string p;
    if (auto f = parse_principal(java_trim(v), &p)) return f;
    if (std::find(out->begin(), out->end(), p) == out->end()) out->push_back(p);
  }
  return std::nullopt;
}

std::optional<failure> pattern_type(const command_line& c, acl_pattern_type* out) {
  *out = acl_pattern_type::literal;
  for (const auto& v : c.pattern_type_values) {
    const std::string cannot = "joptsimple.OptionArgumentConversionException: Cannot parse argument '" + v +
                               "' of option resource-pattern-type";
    auto parsed = protocol::parse_acl_pattern_type(v);
    if (!parsed) return thrown(cannot, {"joptsimple.ValueConversionException: Value [" + v +
                                        "] is not one of [ANY|MATCH|LITERAL|PREFIXED]"});
    if (*parsed == acl_pattern_type::unknown)
      return thrown(cannot, {"joptsimple.ValueConversionException: Unknown resource-pattern-type: " + v});
    *out = *parsed;
  }
  if (c.pattern_type_values.size() > 1)
    return thrown("joptsimple.MultipleArgumentsForOptionException: Found multiple arguments for option "
                  "resource-pattern-type, but you asked for only one");
  return std::nullopt;
}

std::optional<failure> resource_filters(const command_line& c, bool need_one, std::vector<resource>* out) {
  acl_pattern_type pattern = acl_pattern_type::literal;
  if (auto f = pattern_type(c, &pattern)) return f;
  out->clear();
  auto add = [&](acl_resource_type type, const std::vector<std::string>& names, bool trim) {
    for (const auto& n : names)
      if (resource r{type, trim ? java_trim(n) : n, pattern}; std::find(out->begin(), out->end(), r) == out->end())
        out->push_back(std::move(r));
  };
  add(acl_resource_type::topic, c.topics, true);
  if (pattern == acl_pattern_type::literal && (c.cluster || c.idempotent)) out->push_back(k_cluster);
  add(acl_resource_type::group, c.groups, true);
  add(acl_resource_type::transactional_id, c.transactional_ids, false);
  add(acl_resource_type::delegation_token, c.delegation_tokens, true);
  add(acl_resource_type::user, c.user_principals, true);
  if (out->empty() && need_one) return usage(k_no_resource);
  return std::nullopt;
}

std::optional<failure> filters_to_entries(const command_line& c, resource_map* out) {
  out->clear();
  if (!c.producer && !c.consumer) {
    std::vector<acl_operation> operations;
    for (const auto& name : c.operations)
      if (auto op = operation_named(java_trim(name)); std::find(operations.begin(), operations.end(), op) == operations.end())
        operations.push_back(op);
    std::vector<entry> acls;
    if (auto f = entries(c, operations, &acls)) return f;
    std::vector<resource> filters;
    if (auto f = resource_filters(c, true, &filters)) return f;
    for (const auto& r : filters) entries_of(*out, r) = acls;
  }
  if (c.producer)
    if (auto f = producer_entries(c, out)) return f;
  if (c.consumer)
    if (auto f = consumer_entries(c, out)) return f;
  for (const auto& [r, acls] : *out)
    for (const auto& e : acls)
      if (!supports(r.type, e.operation)) return usage(supported_operations_text(r.type));
  return std::nullopt;
}

}  // namespace hw::tools::acls
