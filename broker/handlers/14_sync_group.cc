// SyncGroup (key 14), versions 0-5: the leader hands in the assignment and
// every member waits for its share. Routed to the group's shard; a
// follower's answer comes when the leader's assignment is durable.

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/quota/request_quotas.h"
#include "broker/security/authorization.h"
#include "protocol/messages/sync_group.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::sync_group_request;
using protocol::msg::sync_group_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<sync_group_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  // From v5 protocol type and name are mandatory: Kafka answers a request
  // without them INCONSISTENT_GROUP_PROTOCOL before it reaches the group.
  if (version >= 5 && (!request->protocol_type || !request->protocol_name)) {
    sync_group_response response;
    response.error_code = static_cast<int16_t>(error_code::inconsistent_group_protocol);
    co_return respond(ctx, response);
  }
  error_code failure = error_code::none;
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.sync_group(token, version, *request, now_ms);
  };
  // READ on the group, after the protocol check.
  std::optional<sync_group_response> answer;
  if (authorize(ctx, api_acl(14, "group"), request->group_id)) {
    quota::parked parked(&ctx);  // a rebalance's wait is not handling time
    answer = co_await group::call_shard<sync_group_response>(ctx, request->group_id, issue, &failure);
  } else {
    failure = error_code::group_authorization_failed;
  }
  if (answer) co_return respond(ctx, *answer);
  sync_group_response response;
  response.error_code = static_cast<int16_t>(failure);
  co_return respond(ctx, response);
}

}  // namespace

api_handler sync_group_handler() { return {14, 0, 5, &handle}; }

}  // namespace hw::broker
