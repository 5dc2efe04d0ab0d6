// ConsumerGroupDescribe (key 69), versions 0-1: consumer groups (KIP-848)
// with their epochs, assignor and members, each group asked of the shard
// that coordinates it. Groups the principal may not describe are answered
// GROUP_AUTHORIZATION_FAILED first, as Kafka orders them; a group showing
// a topic the principal may not describe is answered
// TOPIC_AUTHORIZATION_FAILED without its members.

#include <map>
#include <set>

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/consumer_group_describe.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::consumer_group_describe_request;
using protocol::msg::consumer_group_describe_response;
using described_group = consumer_group_describe_response::described_group;

// Whether any member holds or is to hold a partition of a topic the
// principal may not describe.
bool shows_hidden_topic(const described_group& g, authorized_names& described) {
  for (const auto& m : g.members) {
    for (const auto& tp : m.assignment.topic_partitions)
      if (!described(tp.topic_name)) return true;
    for (const auto& tp : m.target_assignment.topic_partitions)
      if (!described(tp.topic_name)) return true;
  }
  return false;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<consumer_group_describe_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  consumer_group_describe_response response;
  if (!group::consumer_protocol_enabled(ctx)) {
    // Kafka's error response: every group with the error.
    for (const auto& id : request->group_ids) {
      auto& d = response.groups.emplace_back();
      d.group_id = id;
      d.error_code = static_cast<int16_t>(error_code::unsupported_version);
    }
    co_return respond(ctx, response);
  }
  const std::function<std::vector<described_group>(const group::group_shard&, const std::vector<std::string>&)>
      describe = [](const group::group_shard& shard, const std::vector<std::string>& ids) {
        return shard.describe_consumer_groups(ids);
      };
  response.groups = co_await group::describe_authorized_groups<described_group>(
      ctx, request->group_ids, api_acl(69, "group"), request->include_authorized_operations, describe);
  authorized_names topics(ctx, api_acl(3, "topic"), false);
  for (auto& g : response.groups) {
    if (g.error_code == 0 && authorizer_configured(ctx) && shows_hidden_topic(g, topics)) {
      described_group hidden;
      hidden.group_id = g.group_id;
      hidden.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
      hidden.error_message = "The group has described topic(s) that the client is not authorized to describe.";
      g = std::move(hidden);
    }
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler consumer_group_describe_handler() { return {69, 0, 1, &handle}; }

}  // namespace hw::broker
