// BrokerHeartbeat (key 63), versions 0-2, on controller listeners only: a
// registered broker reports the metadata offset it has applied and whether
// it wants to shut down; the controller answers whether it is caught up,
// fenced, and may shut down.
//
// Kafka's rules (ControllerApis.handleBrokerHeartBeatRequest,
// ClusterControlManager / BrokerHeartbeatManager) live in
// quorum_controller: an unknown broker or a stale broker epoch is
// STALE_BROKER_EPOCH (or BROKER_ID_NOT_REGISTERED). A node that is not the
// active controller answers NOT_CONTROLLER.

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/broker_heartbeat.h"

namespace hw::broker {
namespace {

using protocol::msg::broker_heartbeat_request;
using protocol::msg::broker_heartbeat_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<broker_heartbeat_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<broker_heartbeat_response>(ctx, api_acl(63, "cluster")))
    co_return respond(ctx, *refused);
  const broker_heartbeat_request& req = *request;
  // Answered here or NOT_CONTROLLER: the broker asks the active controller.
  auto response = co_await call_active_controller<broker_heartbeat_response>(
      *ctx.services, false, ctx.api_key, ctx.api_version, req,
      [&](controller::quorum_controller& qc, int64_t now, storage::offset next) {
        return qc.broker_heartbeat(req, next.value, now);
      });
  co_return respond(ctx, response);
}

}  // namespace

api_handler broker_heartbeat_handler() { return {63, 0, 2, &handle}; }

}  // namespace hw::broker
