// AssignReplicasToDirs (key 73), version 0, on controller listeners only: a
// broker with several log dirs tells the active controller which dir holds
// each of its replicas (KIP-858), so that a failed dir's replicas are
// known. Kafka's rules (ReplicationControlManager.handleAssignReplicasToDirs)
// live in replication_control: UNSUPPORTED_VERSION before 3.7-IV2, a stale
// broker epoch refuses the whole request; each partition answers
// UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER (not
// a replica there). A node that is not the active controller answers
// NOT_CONTROLLER and the broker asks again. CLUSTER_ACTION on the cluster.

#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/assign_replicas_to_dirs.h"

namespace hw::broker {
namespace {

using protocol::msg::assign_replicas_to_dirs_request;
using protocol::msg::assign_replicas_to_dirs_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<assign_replicas_to_dirs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (auto refused = top_level_refusal<assign_replicas_to_dirs_response>(ctx, api_acl(73, "cluster")))
    co_return respond(ctx, *refused);
  const assign_replicas_to_dirs_request& req = *request;
  auto response = co_await call_active_controller<assign_replicas_to_dirs_response>(
      *ctx.services, false, ctx.api_key, ctx.api_version, req,
      [&](controller::quorum_controller& qc, int64_t, storage::offset) { return qc.assign_replicas_to_dirs(req); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler assign_replicas_to_dirs_handler() { return {73, 0, 0, &handle}; }

}  // namespace hw::broker
