#pragma once
// ACLs in Kafka's words: the resource types, pattern types, operations
// and permission types with their wire ids and names, and a binding (a
// resource pattern and an access control entry) with the text Kafka's
// toString gives it. Shared by the controller (the metadata's ACLs) and the
// tools (kafka-acls.sh); filters, validation and authorization live with
// their users.
//
// A binding's resource pattern is a type, a name and a pattern type
// (LITERAL or PREFIXED; the name "*" with LITERAL is the wildcard); its
// entry a principal ("User:alice", "User:*" for every user), a host (an
// address or "*"), an operation and ALLOW or DENY.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hw::protocol {

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
  two_phase_commit = 15,  // KIP-939, on transactional ids
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

// A binding from the wire's fields (ids as the records and the ACL APIs
// carry them; unknown for ids Kafka does not define).
acl_entry acl_entry_of(int8_t resource_type, std::string resource_name, int8_t pattern_type, std::string principal,
                       std::string host, int8_t operation, int8_t permission_type);

// "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"
// and "ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)",
// as Kafka's toString writes them (logs and tool output; a pattern filter
// prints the same way, with ANY or MATCH).
std::string entry_text(const acl_entry& acl);
std::string pattern_text(const acl_entry& acl);

}  // namespace hw::protocol
