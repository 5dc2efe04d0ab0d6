// DescribeGroups (key 15), versions 0-6: state, protocol and members of
// classic groups. Each group is asked of the shard that coordinates it; a
// group whose shard is not here is answered with the coordinator error
// (NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS) and empty fields, as
// Kafka's DescribeGroupsResponse.groupError does.

#include <map>

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/describe_groups.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_groups_request;
using protocol::msg::describe_groups_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_groups_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);

  // Groups the principal may not describe are answered first (Kafka's
  // order), GROUP_AUTHORIZATION_FAILED; the shards describe the others.
  describe_groups_response response;
  std::vector<std::string> allowed;
  for (const auto& id : request->groups) {
    if (authorize(ctx, api_acl(15, "group"), id)) {
      allowed.push_back(id);
      continue;
    }
    auto& d = response.groups.emplace_back();
    d.group_id = id;
    d.error_code = static_cast<int16_t>(error_code::group_authorization_failed);
  }
  using described_group = describe_groups_response::described_group;
  const std::function<std::vector<described_group>(const group::group_shard&, const std::vector<std::string>&)>
      describe = [](const group::group_shard& shard, const std::vector<std::string>& ids) {
        return shard.describe_groups(ids);
      };
  auto described = co_await group::describe_on_shards<described_group>(ctx, allowed, describe);
  // In the order asked (a group named twice is described twice).
  const size_t first_described = response.groups.size();
  for (const auto& id : allowed) response.groups.push_back(described.at(id));
  for (size_t i = first_described; i < response.groups.size(); ++i) {
    auto& g = response.groups[i];
    if (g.error_code != 0) continue;
    // The shard describes a group it does not know as Dead; from v6 Kafka
    // answers GROUP_ID_NOT_FOUND instead.
    if (ctx.api_version >= 6 && g.group_state == "Dead") {
      g.error_code = static_cast<int16_t>(error_code::group_id_not_found);
      // A consumer group's id: the shard says it is not a classic group.
      if (!g.error_message) g.error_message = "Group " + g.group_id + " not found.";
      continue;
    }
    // Without an authorizer every operation on a group (READ, DELETE,
    // DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS), as Kafka 4.3 answers.
    if (ctx.api_version >= 3 && request->include_authorized_operations)
      g.authorized_operations = authorized_operations(ctx, controller::acl_resource_type::group, g.group_id);
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler describe_groups_handler() { return {15, 0, 6, &handle}; }

}  // namespace hw::broker
