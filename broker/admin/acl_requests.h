#pragma once
// What the broker itself answers about ACLs: DescribeAcls from its image's
// ACLs (Kafka's broker answers from its authorizer, which holds the same
// ACLs), the answers to CreateAcls and DeleteAcls no controller takes or
// that no authorizer may serve (one result per creation or filter, as
// Kafka's getErrorResponse writes them), and the check Kafka's request
// parsers make: a binding or filter with an UNKNOWN field cannot be read
// and the connection is closed.
//
// DescribeAcls groups the matching ACLs by resource pattern, patterns in
// (type, name, pattern type) order and each one's entries in (principal,
// host, operation, permission) order; Kafka lists both in its hash sets'
// order, which a client cannot rely on.
//
// Pure; any thread.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "controller/metadata/acls.h"
#include "protocol/error_code.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/wire/uuid.h"

namespace hw::broker {

namespace msg = protocol::msg;

msg::describe_acls_response describe_acls(const std::map<protocol::uuid, controller::acl_entry>& acls,
                                          const msg::describe_acls_request& request);

// One result per creation (filter), each with code and message (nullopt:
// null on the wire).
msg::create_acls_response create_acls_refused(const msg::create_acls_request& request, protocol::error_code code,
                                              std::optional<std::string> message = std::nullopt);
msg::delete_acls_response delete_acls_refused(const msg::delete_acls_request& request, protocol::error_code code,
                                              std::optional<std::string> message = std::nullopt);

// Why Kafka could not read the request (it names an UNKNOWN resource type,
// pattern type, operation or permission), or nothing.
std::optional<std::string> unreadable(const msg::create_acls_request& request);
std::optional<std::string> unreadable(const msg::delete_acls_request& request);
std::optional<std::string> unreadable(const msg::describe_acls_request& request);

}  // namespace hw::broker
