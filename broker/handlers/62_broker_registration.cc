// BrokerRegistration (key 62), versions 0-4, on controller listeners only: a
// broker of the cluster registers its listeners, features, rack and log
// dirs with the active controller and gets its broker epoch.
//
// Kafka's rules (ControllerApis.handleBrokerRegistration,
// ClusterControlManager.registerBroker) live in quorum_controller: a
// wrong cluster id is INCONSISTENT_CLUSTER_ID, a live registration by another
// incarnation DUPLICATE_BROKER_REGISTRATION, unsupported features
// UNSUPPORTED_VERSION. A node that is not the active controller answers
// NOT_CONTROLLER.

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/broker_registration.h"

namespace hw::broker {
namespace {

using protocol::msg::broker_registration_request;
using protocol::msg::broker_registration_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<broker_registration_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<broker_registration_response>(ctx, api_acl(62, "cluster")))
    co_return respond(ctx, *refused);
  const broker_registration_request& req = *request;
  // Answered here or NOT_CONTROLLER: the broker asks the active controller.
  auto response = co_await call_active_controller<broker_registration_response>(
      *ctx.services, false, ctx.api_key, ctx.api_version, req,
      [&](controller::quorum_controller& qc, int64_t now, storage::offset next) {
        return qc.register_broker(req, next.value, now);
      });
  co_return respond(ctx, response);
}

}  // namespace

api_handler broker_registration_handler() { return {62, 0, 4, &handle}; }

}  // namespace hw::broker
