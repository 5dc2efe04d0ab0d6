// AlterUserScramCredentials (key 51), version 0: SCRAM credentials added,
// replaced or deleted by the active controller (controller/scram_control.h:
// Kafka's refusals, the keys derived there from the client's salted
// password), forwarded as Kafka's broker forwards it. The answer waits
// until this broker has applied the records, so a Describe right after
// sees them.

#include "broker/admin/scram_credentials.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/controller_call.h"

namespace hw::broker {
namespace {

using protocol::msg::alter_user_scram_credentials_request;
using protocol::msg::alter_user_scram_credentials_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<alter_user_scram_credentials_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // The whole request needs its cluster operation (Kafka's
  // authorizeClusterOperation): a refusal answers every resource.
  if (const api_acl_check& check = api_acl(51, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, refused_response(*request, ctx.api_version, check.refusal, cluster_refusal_message(ctx, check.operation)));
  auto response = co_await call_controller<alter_user_scram_credentials_response>(
      ctx, *request,
      [&](controller::quorum_controller& qc, int64_t) { return qc.alter_user_scram_credentials(*request); });
  // A controller always answers every user it was asked about; no result
  // for a request that named users means no controller took it (an inactive
  // controller asked on its own listener): NOT_CONTROLLER for each.
  if (response.results.empty() && (!request->deletions.empty() || !request->upsertions.empty()))
    response = alter_scram_credentials_refused(*request, protocol::error_code::not_controller);
  co_return respond(ctx, response);
}

}  // namespace

api_handler alter_user_scram_credentials_handler() { return {51, 0, 0, &handle}; }

}  // namespace hw::broker
