#pragma once
// What a broker answers an admin request it forwards to the active
// controller when no controller answered within request.timeout.ms (no
// quorum leader known, or it did not reply): Kafka's ForwardingManager
// answers with the request's error response for a TimeoutException, so
// each resource the request names gets REQUEST_TIMED_OUT, without a
// message, and so does the top level where the response has an error code.
// Clients retry it until their own timeout, as they do against Kafka.
// refused_response builds the same answer with any error and message: what
// Kafka answers a request its authorizer refused as a whole (a refused
// cluster operation names the request, cluster_refusal_message).
// (Heartbeats, registrations and AlterPartition keep NOT_CONTROLLER: their
// senders retry on it.)

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/error_code.h"

#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/update_features.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/list_partition_reassignments.h"
#include "protocol/messages/unregister_broker.h"

namespace hw::broker {

namespace msg = protocol::msg;

msg::create_topics_response refused_response(const msg::create_topics_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::delete_topics_response refused_response(const msg::delete_topics_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::create_partitions_response refused_response(const msg::create_partitions_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::elect_leaders_response refused_response(const msg::elect_leaders_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::incremental_alter_configs_response refused_response(const msg::incremental_alter_configs_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::alter_configs_response refused_response(const msg::alter_configs_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::list_partition_reassignments_response refused_response(const msg::list_partition_reassignments_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::alter_partition_reassignments_response refused_response(const msg::alter_partition_reassignments_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::alter_user_scram_credentials_response refused_response(const msg::alter_user_scram_credentials_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);

msg::create_acls_response refused_response(const msg::create_acls_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::delete_acls_response refused_response(const msg::delete_acls_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
// AlterClientQuotas answers every entry with the error's default text,
// whatever the message (admin/client_quotas.h).
msg::alter_client_quotas_response refused_response(const msg::alter_client_quotas_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
msg::unregister_broker_response refused_response(const msg::unregister_broker_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);
// UpdateFeatures: the top-level error alone (Kafka's createWithErrors with
// no per-feature results).
msg::update_features_response refused_response(const msg::update_features_request& request, int16_t version,
                             protocol::error_code error, const std::optional<std::string>& message);


// The timeout case: REQUEST_TIMED_OUT, no message.
template <class Request>
auto timed_out_response(const Request& request, int16_t version)
    -> decltype(refused_response(request, version, protocol::error_code::none, std::nullopt)) {
  return refused_response(request, version, protocol::error_code::request_timed_out, std::nullopt);
}

}  // namespace hw::broker
