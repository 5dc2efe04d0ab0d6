// JoinGroup (key 11), versions 0-9: a member joins a classic group and
// waits at the join barrier; the answer comes when the group's shard
// completes the join (possibly after the rebalance timeout). The rules
// live in broker/group (group_metadata_manager_join.cc); this file routes the request
// to the shard coordinating the group.

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/quota/request_quotas.h"
#include "broker/security/authorization.h"
#include "protocol/messages/join_group.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::join_group_request;
using protocol::msg::join_group_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<join_group_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  const group::client_info client = group::client_of(ctx);
  error_code failure = error_code::none;
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.join_group(token, version, client, *request, now_ms);
  };
  // READ on the group first.
  std::optional<join_group_response> answer;
  if (authorize(ctx, api_acl(11, "group"), request->group_id)) {
    quota::parked parked(&ctx);  // a rebalance's wait is not handling time
    answer = co_await group::call_shard<join_group_response>(ctx, request->group_id, issue, &failure);
  } else {
    failure = error_code::group_authorization_failed;
  }
  if (answer) co_return respond(ctx, *answer);
  join_group_response response;
  response.error_code = static_cast<int16_t>(failure);
  response.generation_id = -1;
  if (version < 7) response.protocol_name = std::string();
  else response.protocol_name = std::nullopt;
  co_return respond(ctx, response);
}

}  // namespace

api_handler join_group_handler() { return {11, 0, 9, &handle}; }

}  // namespace hw::broker
