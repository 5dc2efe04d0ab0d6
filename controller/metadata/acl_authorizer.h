#pragma once
// Who may do what: the decisions Kafka's StandardAuthorizer takes from the
// ACLs of a metadata image, for every request a broker serves.
//
// An acl_authorizer is built from the image's ACLs and the authorizer's
// settings (super.users, allow.everyone.if.no.acl.found) and never changes
// after: when the ACLs change, the publisher builds a new one and swaps the
// std::shared_ptr<const acl_authorizer> the handlers read, so a request
// decides everything against one set of ACLs without a lock.
//
// The rules, as Kafka applies them to a principal ("User:alice"), the
// client's address and an operation on a named resource:
// - a super user is allowed everything;
// - an ACL applies to the resource when its pattern does: LITERAL with the
//   same name, LITERAL "*" (every name), PREFIXED with a name the resource's
//   starts with;
// - among those, it matches the request when its principal is the same or
//   "User:*", its host is the client's address or "*", and its operation is
//   the one asked, or ALL, or (ALLOW only) one that implies it: READ, WRITE,
//   DELETE and ALTER imply DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS;
// - a matching DENY beats any matching ALLOW;
// - nothing matching is a denial, unless no ACL at all applies to the
//   resource (whoever it names): allow.everyone.if.no.acl.found decides then.
//
// Pure; usable anywhere.

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "controller/metadata/acls.h"
#include "protocol/wire/uuid.h"

namespace hw::controller {

struct authorizer_settings {
  std::set<std::string, std::less<>> super_users;  // "User:admin", compared as written
  bool allow_everyone_if_no_acl_found = false;
};

// super.users as Kafka reads it: principals separated by semicolons, each
// trimmed, empty ones skipped. A principal without a colon between its type
// and its name is refused, with Kafka's message ("expected a string in
// format principalType:principalName but got bob").
std::variant<std::set<std::string, std::less<>>, std::string> parse_super_users(std::string_view text);

// Why a request was allowed or denied, as Kafka's audit log names the rule.
enum class acl_rule {
  super_user,       // "SuperUser"
  matching_allow,   // "MatchingAcl(acl=...)": an ALLOW matched and no DENY did
  matching_deny,    // "MatchingAcl(acl=...)": a DENY matched
  no_acl_found,     // "DefaultAllow" or "DefaultDeny": no ACL applies to the resource
  no_matching_acl,  // "DefaultDeny": ACLs apply to the resource, none matches the request
};

struct acl_decision {
  bool allowed = false;
  acl_rule rule = acl_rule::no_acl_found;
  // The ACL that decided, for matching_allow and matching_deny; it lives in
  // the authorizer that answered, so it is valid while that is held.
  const acl_entry* acl = nullptr;
};

// The rule as Kafka's audit log writes it after "based on rule ".
std::string rule_text(const acl_decision& decision);

// Kafka's audit line for one decision: "Principal = User:bob is Denied
// operation = READ from host = 127.0.0.1 on resource = Topic:LITERAL:alpha
// for request = Fetch with resourceRefCount = 1 based on rule ...". The
// broker logs it at INFO when a denied resource was asked for by name, at
// DEBUG when allowed; api_name is the request's ("Fetch").
std::string audit_text(const acl_decision& decision, std::string_view principal, std::string_view host,
                       acl_operation operation, acl_resource_type resource_type, std::string_view resource_name,
                       std::string_view api_name, int32_t resource_ref_count);

// The operations Kafka reports in authorized_operations for a resource type
// (AclEntry.supportedOperations), and their bits (1 << id) all together:
// what a broker without an authorizer answers.
std::span<const acl_operation> supported_operations(acl_resource_type type);
int32_t supported_operations_bits(acl_resource_type type);

class acl_authorizer {
 public:
  // ACLs no CreateAcls could have made (an UNKNOWN or filter-only type,
  // pattern, operation or permission) are left out.
  acl_authorizer(const std::map<protocol::uuid, acl_entry>& acls, authorizer_settings settings);

  // principal is "Type:name", host the client's address as Kafka writes it
  // (InetAddress.getHostAddress), the resource a name (never a pattern).
  acl_decision authorize(std::string_view principal, std::string_view host, acl_operation operation,
                         acl_resource_type resource_type, std::string_view resource_name) const;

  // Kafka's Authorizer.authorizeByResourceType: may the principal do the
  // operation on some resource of the type? Used where no name is known
  // yet (idempotent InitProducerId, topic auto-creation). The operation and
  // type must be concrete (not ANY or UNKNOWN); a filter value is denied.
  bool authorize_by_resource_type(std::string_view principal, std::string_view host, acl_operation operation,
                                  acl_resource_type resource_type) const;

  // The bits (1 << id) of the supported operations of the resource's type
  // that are allowed on it: the authorized_operations of Metadata,
  // DescribeCluster and DescribeGroups answers.
  int32_t authorized_operations(std::string_view principal, std::string_view host,
                                acl_resource_type resource_type, std::string_view resource_name) const;

  size_t acl_count() const { return acls_.size(); }
  const authorizer_settings& settings() const { return settings_; }

 private:
  authorizer_settings settings_;
  // Sorted as Kafka's StandardAcl: resource type, then name in reverse
  // order, then pattern type, operation, principal, host, permission.
  std::vector<acl_entry> acls_;
};

}  // namespace hw::controller
