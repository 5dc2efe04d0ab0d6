// ListPartitionReassignments (key 46), version 0: the partitions being
// reassigned (all of them, or those of the topics and partitions asked),
// with their replicas, adding and removing lists, as the active controller
// sees them (forwarded to it, as Kafka's brokers do).

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/list_partition_reassignments.h"

namespace hw::broker {
namespace {

using protocol::msg::list_partition_reassignments_request;
using protocol::msg::list_partition_reassignments_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<list_partition_reassignments_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // The whole request needs its cluster operation (Kafka's
  // authorizeClusterOperation): a refusal answers every resource.
  if (const api_acl_check& check = api_acl(46, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, refused_response(*request, ctx.api_version, check.refusal, cluster_refusal_message(ctx, check.operation)));
  auto response = co_await call_controller<list_partition_reassignments_response>(
      ctx, *request, [&](controller::quorum_controller& qc, int64_t) {
        return controller::controller_result<list_partition_reassignments_response>{
            {}, qc.list_partition_reassignments(*request)};
      });
  co_return respond(ctx, response);
}

}  // namespace

api_handler list_partition_reassignments_handler() { return {46, 0, 0, &handle}; }

}  // namespace hw::broker
