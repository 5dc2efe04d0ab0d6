// UnregisterBroker (key 64), versions 0: retires a broker's registration
// (kafka-cluster.sh unregister). Served on broker listeners, which forward it
// to the active controller, and on controller listeners.
//
// Kafka's rules (ClusterControlManager.unregisterBroker) live in
// cluster_control: an id with no registration is BROKER_ID_NOT_REGISTERED;
// otherwise the broker leaves every ISR and ELR and its registration goes.
// Like Kafka 4.3, the controller does not refuse a broker that still hosts
// replicas: reassign them away first (README, "Operations").

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/unregister_broker.h"

namespace hw::broker {
namespace {

using protocol::msg::unregister_broker_request;
using protocol::msg::unregister_broker_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<unregister_broker_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (const api_acl_check& check = api_acl(64, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, refused_response(*request, ctx.api_version, check.refusal,
                                            cluster_refusal_message(ctx, check.operation)));
  const unregister_broker_request& req = *request;
  auto response = co_await call_controller<unregister_broker_response>(
      ctx, req, [&](controller::quorum_controller& qc, int64_t) { return qc.unregister_broker(req); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler unregister_broker_handler() { return {64, 0, 0, &handle}; }

}  // namespace hw::broker
