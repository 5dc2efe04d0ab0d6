// ControllerRegistration (key 70), version 0, on controller listeners only:
// a controller of the quorum registers its controller listeners and
// supported features with the active controller (Kafka's
// ControllerApis.handleControllerRegistration; ClusterControlManager's
// rules in quorum_controller: UNSUPPORTED_VERSION before 3.7-IV0). A node
// that is not the active controller answers NOT_CONTROLLER. CLUSTER_ACTION
// on the cluster.

#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/controller_registration.h"

namespace hw::broker {
namespace {

using protocol::msg::controller_registration_request;
using protocol::msg::controller_registration_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<controller_registration_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (auto refused = top_level_refusal<controller_registration_response>(ctx, api_acl(70, "cluster")))
    co_return respond(ctx, *refused);
  const controller_registration_request& req = *request;
  auto response = co_await call_active_controller<controller_registration_response>(
      *ctx.services, false, ctx.api_key, ctx.api_version, req,
      [&](controller::quorum_controller& qc, int64_t, storage::offset) { return qc.register_controller(req); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler controller_registration_handler() { return {70, 0, 0, &handle}; }

}  // namespace hw::broker
