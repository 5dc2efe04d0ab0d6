// Heartbeat (key 12), versions 0-4: a member says it is alive and learns
// whether its group is rebalancing. Routed to the group's shard.

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/heartbeat.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::heartbeat_request;
using protocol::msg::heartbeat_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<heartbeat_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  error_code failure = error_code::none;
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.heartbeat(token, version, *request, now_ms);
  };
  // READ on the group first.
  std::optional<heartbeat_response> answer;
  if (authorize(ctx, api_acl(12, "group"), request->group_id))
    answer = co_await group::call_shard<heartbeat_response>(ctx, request->group_id, issue, &failure);
  else
    failure = error_code::group_authorization_failed;
  if (answer) co_return respond(ctx, *answer);
  heartbeat_response response;
  response.error_code = static_cast<int16_t>(failure);
  co_return respond(ctx, response);
}

}  // namespace

api_handler heartbeat_handler() { return {12, 0, 4, &handle}; }

}  // namespace hw::broker
