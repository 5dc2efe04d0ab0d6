// AlterPartitionReassignments (key 45), versions 0-1: start, change or
// cancel (null replicas) the reassignment of partitions, forwarded to the
// active controller (controller/quorum_controller_reassignment.cc). v1's
// AllowReplicationFactorChange=false refuses a new replica count with
// INVALID_REPLICATION_FACTOR. The answer waits until this broker has
// applied the change, so the new replicas are fetching already.

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/alter_partition_reassignments.h"

namespace hw::broker {
namespace {

using protocol::msg::alter_partition_reassignments_request;
using protocol::msg::alter_partition_reassignments_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<alter_partition_reassignments_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // The whole request needs its cluster operation (Kafka's
  // authorizeClusterOperation): a refusal answers every resource.
  if (const api_acl_check& check = api_acl(45, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, refused_response(*request, ctx.api_version, check.refusal, cluster_refusal_message(ctx, check.operation)));
  const int16_t version = ctx.api_version;
  const auto timeout = std::chrono::milliseconds(std::max(request->timeout_ms, 0));
  auto response = co_await call_controller<alter_partition_reassignments_response>(
      ctx, *request,
      [&](controller::quorum_controller& qc, int64_t) { return qc.alter_partition_reassignments(*request, version); },
      timeout);
  co_return respond(ctx, response);
}

}  // namespace

api_handler alter_partition_reassignments_handler() { return {45, 0, 1, &handle}; }

}  // namespace hw::broker
