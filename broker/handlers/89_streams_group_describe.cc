// StreamsGroupDescribe (key 89), version 0: streams groups (KIP-1071) with
// their epochs, topology and members, each group asked of the shard that
// coordinates it. Groups the principal may not describe are answered
// GROUP_AUTHORIZATION_FAILED first, as Kafka orders them; with an
// authorizer, a group whose topology names a topic the principal may not
// describe is answered TOPIC_AUTHORIZATION_FAILED without its members or
// topology.

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/streams_group_describe.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::streams_group_describe_request;
using protocol::msg::streams_group_describe_response;
using described_group = streams_group_describe_response::described_group;

bool shows_hidden_topic(const described_group& g, authorized_names& described) {
  if (!g.topology || !g.topology->subtopologies) return false;
  for (const auto& s : *g.topology->subtopologies) {
    for (const auto& name : s.source_topics)
      if (!described(name)) return true;
    for (const auto& name : s.repartition_sink_topics)
      if (!described(name)) return true;
    for (const auto& t : s.repartition_source_topics)
      if (!described(t.name)) return true;
    for (const auto& t : s.state_changelog_topics)
      if (!described(t.name)) return true;
  }
  return false;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<streams_group_describe_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  streams_group_describe_response response;
  if (!group::streams_protocol_enabled(ctx)) {
    for (const auto& id : request->group_ids) {
      auto& d = response.groups.emplace_back();
      d.group_id = id;
      d.error_code = static_cast<int16_t>(error_code::unsupported_version);
    }
    co_return respond(ctx, response);
  }
  const std::function<std::vector<described_group>(const group::group_shard&, const std::vector<std::string>&)>
      describe = [](const group::group_shard& shard, const std::vector<std::string>& ids) {
        return shard.describe_streams_groups(ids);
      };
  response.groups = co_await group::describe_authorized_groups<described_group>(
      ctx, request->group_ids, api_acl(89, "group"), request->include_authorized_operations, describe);
  authorized_names topics(ctx, api_acl(89, "topic"), false);
  if (authorizer_configured(ctx)) {
    for (auto& g : response.groups) {
      if (!shows_hidden_topic(g, topics)) continue;
      described_group hidden;
      hidden.group_id = g.group_id;
      hidden.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
      hidden.error_message = "The described group uses topics that the client is not authorized to describe.";
      g = std::move(hidden);
    }
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler streams_group_describe_handler() { return {89, 0, 0, &handle}; }

}  // namespace hw::broker
