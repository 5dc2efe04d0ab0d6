#pragma once
// What the broker itself answers about SCRAM credentials (KIP-554):
// DescribeUserScramCredentials from its image's credentials, as Kafka's
// ScramImage.describe does (every user with a credential when the request
// names none; a name asked twice is DUPLICATE_RESOURCE, an unknown one
// RESOURCE_NOT_FOUND, with Kafka's texts), and the answer to an
// AlterUserScramCredentials no controller took (one result per user named,
// by name, with the error: Kafka's getErrorResponse).
//
// Results are by user name and each user's credentials by mechanism
// (SCRAM-SHA-256 first): Kafka lists both in its HashMaps' order, which
// varies between runs for the mechanisms. Only mechanisms and iterations
// leave: never a salt or key.
//
// Pure; any thread.

#include <cstdint>

#include "protocol/error_code.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/sasl/scram.h"

namespace hw::broker {

protocol::msg::describe_user_scram_credentials_response describe_scram_credentials(
    const protocol::scram_credential_table& credentials,
    const protocol::msg::describe_user_scram_credentials_request& request);

protocol::msg::alter_user_scram_credentials_response alter_scram_credentials_refused(
    const protocol::msg::alter_user_scram_credentials_request& request, protocol::error_code code,
    const std::optional<std::string>& message = std::nullopt);

}  // namespace hw::broker
