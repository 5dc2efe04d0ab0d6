#pragma once
// What a broker answers an admin request it forwards to the active
// controller when no controller answered within request.timeout.ms (no
// quorum leader known, or it did not reply): Kafka's ForwardingManager
// answers with the request's error response for a TimeoutException, so
// each resource the request names gets REQUEST_TIMED_OUT, without a
// message, and so does the top level where the response has an error code.
// Clients retry it until their own timeout, as they do against Kafka.
// (Heartbeats, registrations and AlterPartition keep NOT_CONTROLLER: their
// senders retry on it.)

#include <cstdint>

#include "protocol/messages/alter_configs.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/list_partition_reassignments.h"

namespace hw::broker {

namespace msg = protocol::msg;

msg::create_topics_response timed_out_response(const msg::create_topics_request& request, int16_t version);
msg::delete_topics_response timed_out_response(const msg::delete_topics_request& request, int16_t version);
msg::create_partitions_response timed_out_response(const msg::create_partitions_request& request, int16_t version);
msg::elect_leaders_response timed_out_response(const msg::elect_leaders_request& request, int16_t version);
msg::incremental_alter_configs_response timed_out_response(const msg::incremental_alter_configs_request& request,
                                                           int16_t version);
msg::alter_configs_response timed_out_response(const msg::alter_configs_request& request, int16_t version);
msg::list_partition_reassignments_response timed_out_response(
    const msg::list_partition_reassignments_request& request, int16_t version);
msg::alter_partition_reassignments_response timed_out_response(
    const msg::alter_partition_reassignments_request& request, int16_t version);
msg::alter_user_scram_credentials_response timed_out_response(const msg::alter_user_scram_credentials_request& request,
                                                              int16_t version);

msg::create_acls_response timed_out_response(const msg::create_acls_request& request, int16_t version);
msg::delete_acls_response timed_out_response(const msg::delete_acls_request& request, int16_t version);

}  // namespace hw::broker
