// ListGroups (key 16), versions 0-5: the groups of every shard on this
// broker, filtered by state (v4+) and type (v5+). As in Kafka, a shard
// that cannot answer (still loading) sets the top-level error while the
// groups of the others are still listed.

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/list_groups.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::list_groups_request;
using protocol::msg::list_groups_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<list_groups_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  group::group_coordinator& coordinator = *ctx.services->groups;
  list_groups_response response;
  for (int32_t partition : coordinator.shard_partitions()) {
    error_code shard_error = error_code::none;
    const group::group_coordinator::read_fn list = [&](const group::group_shard& shard) {
      shard_error = shard.list_groups(request->states_filter, request->types_filter, response.groups);
    };
    const error_code e = co_await coordinator.read(partition, list);
    if (e == error_code::not_coordinator) continue;  // unloaded meanwhile: no longer ours to list
    const error_code got = e != error_code::none ? e : shard_error;
    if (got != error_code::none && got != error_code::not_coordinator)
      response.error_code = static_cast<int16_t>(got);
  }
  // DESCRIBE on the cluster lists every group; else only the groups the
  // principal may describe (neither refusal logged).
  if (authorizer_configured(ctx) && !authorize(ctx, api_acl(16, "cluster"), {}, false))
    std::erase_if(response.groups,
                  [&](const auto& g) { return !authorize(ctx, api_acl(16, "group"), g.group_id, false); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler list_groups_handler() { return {16, 0, 5, &handle}; }

}  // namespace hw::broker
