#pragma once
// ACLs as the metadata log holds them (AccessControlEntryRecord), with
// Kafka's enumerations and their ids (protocol/acl_types.h, shared with the
// tools, named here too), and the filters DescribeAcls and DeleteAcls match
// them with (Kafka's AclBindingFilter).
//
// An acl_entry is one binding: a resource pattern (type, name, pattern
// type LITERAL or PREFIXED; the name "*" with LITERAL is the wildcard) and
// an access control entry (principal "User:alice" or "User:*", host an
// address or "*", operation, ALLOW or DENY). The image keeps them by the
// record's id; who may do what is the authorizer's question
// (controller/metadata/acl_authorizer.h).
//
// Pure; usable anywhere.

#include <optional>
#include <string>

#include "protocol/acl_types.h"
#include "protocol/messages/metadata_records.h"
#include "protocol/wire/uuid.h"

namespace hw::controller {

using protocol::acl_entry;
using protocol::acl_operation;
using protocol::acl_operation_of;
using protocol::acl_pattern_type;
using protocol::acl_pattern_type_of;
using protocol::acl_permission;
using protocol::acl_permission_of;
using protocol::acl_resource_type;
using protocol::acl_resource_type_of;
using protocol::acl_wildcard;
using protocol::entry_text;
using protocol::parse_acl_operation;
using protocol::parse_acl_pattern_type;
using protocol::parse_acl_permission;
using protocol::parse_acl_resource_type;
using protocol::pattern_text;
using protocol::to_string;

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

// The one name a CLUSTER resource has.
inline constexpr std::string_view acl_cluster_name = "kafka-cluster";

// The binding's fields into a message that carries them under Kafka's
// names (AccessControlEntryRecord, DeleteAcls' matching ACLs).
template <class M>
void write_binding(const acl_entry& acl, M& out) {
  out.resource_type = static_cast<int8_t>(acl.resource_type);
  out.resource_name = acl.resource_name;
  out.pattern_type = static_cast<int8_t>(acl.pattern_type);
  out.principal = acl.principal;
  out.host = acl.host;
  out.operation = static_cast<int8_t>(acl.operation);
  out.permission_type = static_cast<int8_t>(acl.permission);
}

// The AccessControlEntryRecord that writes acl under id.
protocol::msg::access_control_entry_record acl_record(const protocol::uuid& id, const acl_entry& acl);

}  // namespace hw::controller
