#pragma once
// ACLs as the metadata log holds them (AccessControlEntryRecord), with
// Kafka's enumerations and their ids, and the filters DescribeAcls and
// DeleteAcls match them with (Kafka's AclBindingFilter).
//
// An acl_entry is one binding: a resource pattern (type, name, pattern
// type LITERAL or PREFIXED; the name "*" with LITERAL is the wildcard) and
// an access control entry (principal "User:alice" or "User:*", host an
// address or "*", operation, ALLOW or DENY). The image keeps them by the
// record's id; who may do what is the authorizer's question
// (controller/metadata/acl_authorizer.h).
//
// Pure; usable anywhere.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hw::controller {

// Kafka's ResourceType ids.
enum class acl_resource_type : int8_t {
  unknown = 0,
  any = 1,
  topic = 2,
  group = 3,
  cluster = 4,
  transactional_id = 5,
  delegation_token = 6,
  user = 7,
};

// Kafka's PatternType ids. ANY and MATCH are for filters only.
enum class acl_pattern_type : int8_t {
  unknown = 0,
  any = 1,
  match = 2,
  literal = 3,
  prefixed = 4,
};

// Kafka's AclOperation ids. ANY is for filters only.
enum class acl_operation : int8_t {
  unknown = 0,
  any = 1,
  all = 2,
  read = 3,
  write = 4,
  create = 5,
  remove = 6,  // DELETE
  alter = 7,
  describe = 8,
  cluster_action = 9,
  describe_configs = 10,
  alter_configs = 11,
  idempotent_write = 12,
  create_tokens = 13,
  describe_tokens = 14,
};

// Kafka's AclPermissionType ids. ANY is for filters only.
enum class acl_permission : int8_t {
  unknown = 0,
  any = 1,
  deny = 2,
  allow = 3,
};

// Kafka's names, upper case with underscores ("TRANSACTIONAL_ID",
// "PREFIXED", "IDEMPOTENT_WRITE", "ALLOW"); "UNKNOWN" for an id Kafka does
// not define.
std::string_view to_string(acl_resource_type t);
std::string_view to_string(acl_pattern_type t);
std::string_view to_string(acl_operation o);
std::string_view to_string(acl_permission p);

// The enumeration for a wire id; unknown for ids outside Kafka's.
acl_resource_type acl_resource_type_of(int8_t id);
acl_pattern_type acl_pattern_type_of(int8_t id);
acl_operation acl_operation_of(int8_t id);
acl_permission acl_permission_of(int8_t id);

// Kafka's fromString: case-insensitive, underscores as written
// ("transactional_id", "Idempotent_Write"); nothing for other text.
std::optional<acl_resource_type> parse_acl_resource_type(std::string_view text);
std::optional<acl_pattern_type> parse_acl_pattern_type(std::string_view text);
std::optional<acl_operation> parse_acl_operation(std::string_view text);
std::optional<acl_permission> parse_acl_permission(std::string_view text);

inline constexpr std::string_view acl_wildcard = "*";  // resource name, principal name, host

struct acl_entry {
  acl_resource_type resource_type = acl_resource_type::unknown;
  std::string resource_name;
  acl_pattern_type pattern_type = acl_pattern_type::literal;
  std::string principal;  // "User:alice"; "User:*" is every user
  std::string host;       // "*" is every host
  acl_operation operation = acl_operation::unknown;
  acl_permission permission = acl_permission::unknown;

  auto operator<=>(const acl_entry&) const = default;
  bool operator==(const acl_entry&) const = default;
};

// AclBindingFilter: a field left empty (nullopt) or ANY matches everything.
// A resource pattern filter with pattern type MATCH matches, for a name N,
// the LITERAL pattern N, the LITERAL wildcard "*" and every PREFIXED
// pattern N starts with; with LITERAL or PREFIXED it matches that pattern
// type and name only (a filter's name "*" then means the wildcard pattern
// itself, not every name).
struct acl_filter {
  acl_resource_type resource_type = acl_resource_type::any;
  std::optional<std::string> resource_name;
  acl_pattern_type pattern_type = acl_pattern_type::any;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  acl_operation operation = acl_operation::any;
  acl_permission permission = acl_permission::any;

  bool matches(const acl_entry& acl) const;
};

// Kafka's AclControlManager.validateFilter, for a DeleteAcls filter: empty
// when valid, else the InvalidRequestException's message ("Unknown
// patternFilter." for an UNKNOWN resource or pattern type, "Unknown
// entryFilter." for an UNKNOWN operation or permission).
std::optional<std::string> invalid_delete_filter(const acl_filter& filter);

// Kafka's AclControlManager.validateNewAcl, for a binding to be created:
// empty when valid, else the InvalidRequestException's message.
std::optional<std::string> invalid_new_acl(const acl_entry& acl);

// "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"
// and "ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)",
// as Kafka's toString writes them (logs and tool output).
std::string entry_text(const acl_entry& acl);
std::string pattern_text(const acl_entry& acl);

}  // namespace hw::controller
