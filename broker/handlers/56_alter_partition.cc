// AlterPartition (key 56), versions 2-3, on controller listeners only: a
// partition leader's ISR change (shrink or expand), a compare-and-set on
// the leader and partition epochs, turned into a PartitionChangeRecord.
//
// Kafka's rules (ControllerApis.handleAlterPartitionRequest,
// ReplicationControlManager.alterPartition) live in quorum_controller: a
// stale broker epoch is STALE_BROKER_EPOCH for the whole request; each
// partition gets UNKNOWN_TOPIC_ID, FENCED_LEADER_EPOCH,
// INVALID_UPDATE_VERSION, INELIGIBLE_REPLICA, NEW_LEADER_ELECTED or the
// partition as it now is. A node that is not the active controller answers
// NOT_CONTROLLER and the leader asks again.

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/alter_partition.h"

namespace hw::broker {
namespace {

using protocol::msg::alter_partition_request;
using protocol::msg::alter_partition_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<alter_partition_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<alter_partition_response>(ctx, api_acl(56, "cluster")))
    co_return respond(ctx, *refused);
  const int16_t version = ctx.api_version;
  const alter_partition_request& req = *request;
  auto response = co_await call_active_controller<alter_partition_response>(
      *ctx.services, false, ctx.api_key, ctx.api_version, req,
      [&](controller::quorum_controller& qc, int64_t, storage::offset) { return qc.alter_partition(req, version); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler alter_partition_handler() { return {56, 2, 3, &handle}; }

}  // namespace hw::broker
