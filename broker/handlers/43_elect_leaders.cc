// ElectLeaders (key 43), versions 0-2: preferred (0) or unclean (1)
// elections, forwarded to the active controller (Kafka's
// ReplicationControlManager.electLeaders rules: a null partition list
// means every partition, ELECTION_NOT_NEEDED when the leader already is
// the one the election would pick, ELIGIBLE_LEADERS_NOT_AVAILABLE /
// PREFERRED_LEADER_NOT_AVAILABLE otherwise). The answer waits until this
// broker has applied the new leaderships.

#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/elect_leaders.h"

namespace hw::broker {
namespace {

using protocol::msg::elect_leaders_request;
using protocol::msg::elect_leaders_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<elect_leaders_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // The whole request needs its cluster operation (Kafka's
  // authorizeClusterOperation): a refusal answers every resource.
  if (const api_acl_check& check = api_acl(43, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, refused_response(*request, ctx.api_version, check.refusal, cluster_refusal_message(ctx, check.operation)));
  const int16_t version = ctx.api_version;
  const auto timeout = std::chrono::milliseconds(std::max(request->timeout_ms, 0));
  auto response = co_await call_controller<elect_leaders_response>(ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.elect_leaders(*request, version); },
      timeout);
  co_return respond(ctx, response);
}

}  // namespace

api_handler elect_leaders_handler() { return {43, 0, 2, &handle}; }

}  // namespace hw::broker
