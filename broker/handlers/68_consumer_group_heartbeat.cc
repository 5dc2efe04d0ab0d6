// ConsumerGroupHeartbeat (key 68), versions 0-1: a member of a consumer
// group (KIP-848) joins, stays, is reconciled towards its assignment or
// leaves. Routed to the group's shard, answered once its records are
// durable. Served when the consumer protocol is enabled (else
// UNSUPPORTED_VERSION, as Kafka answers).

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/consumer_group_heartbeat.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::consumer_group_heartbeat_request;
using protocol::msg::consumer_group_heartbeat_response;
using consumer_topic_filter = group::consumer::topic_filter;

handler_result refuse(request_context& ctx, error_code e) {
  consumer_group_heartbeat_response response;
  response.error_code = static_cast<int16_t>(e);
  return respond(ctx, response);
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<consumer_group_heartbeat_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (!group::consumer_protocol_enabled(ctx)) co_return refuse(ctx, error_code::unsupported_version);
  if (!authorize(ctx, api_acl(68, "group"), request->group_id))
    co_return refuse(ctx, error_code::group_authorization_failed);
  // A member may not subscribe to topics it may not see.
  if (request->subscribed_topic_names) {
    authorized_names subscribed(ctx, api_acl(68, "topic"));
    for (const auto& name : *request->subscribed_topic_names)
      if (!subscribed(name)) co_return refuse(ctx, error_code::topic_authorization_failed);
  }
  const int16_t version = ctx.api_version;
  const group::client_info client = group::client_of(ctx);
  // A regular expression resolved in this heartbeat matches only the
  // topics this member may describe (Kafka resolves it in its context).
  consumer_topic_filter may_describe;
  std::optional<authorized_names> described;
  if (authorizer_configured(ctx)) {
    described.emplace(ctx, api_acl(68, "topic"), false);
    may_describe = [&described](const std::string& topic) { return (*described)(topic); };
  }
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.consumer_group_heartbeat(token, version, client, *request, now_ms, may_describe);
  };
  error_code failure = error_code::none;
  auto answer = co_await group::call_shard<consumer_group_heartbeat_response>(ctx, request->group_id, issue, &failure);
  if (answer) co_return respond(ctx, *answer);
  co_return refuse(ctx, failure);
}

}  // namespace

api_handler consumer_group_heartbeat_handler() { return {68, 0, 1, &handle}; }

}  // namespace hw::broker
