// AlterClientQuotas (key 49), versions 0-1: client quotas set or removed by
// the active controller (controller/quota_control.h: Kafka's checks, texts
// and per-entity answers), forwarded as Kafka's broker forwards it. ALTER_CONFIGS
// on the cluster, else every entry CLUSTER_AUTHORIZATION_FAILED with the
// error's default text (admin/client_quotas.h). The answer waits until this
// broker has applied the records, so a Describe right after sees them.

#include "broker/admin/client_quotas.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/security/authorization.h"

namespace hw::broker {
namespace {

using protocol::msg::alter_client_quotas_request;
using protocol::msg::alter_client_quotas_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<alter_client_quotas_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (const api_acl_check& check = api_acl(49, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, alter_client_quotas_refused(*request, check.refusal));
  auto response = co_await call_controller<alter_client_quotas_response>(
      ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.alter_client_quotas(*request); });
  // A controller answers at least one entity when asked about any; none
  // means no controller took it (an inactive controller asked on its own
  // listener): NOT_CONTROLLER for each entry.
  if (response.entries.empty() && !request->entries.empty())
    response = alter_client_quotas_refused(*request, protocol::error_code::not_controller);
  co_return respond(ctx, response);
}

}  // namespace

api_handler alter_client_quotas_handler() { return {49, 0, 1, &handle}; }

}  // namespace hw::broker
