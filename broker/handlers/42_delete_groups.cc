// DeleteGroups (key 42), versions 0-2: removes empty (or dead) classic
// groups and their offsets (tombstones in __consumer_offsets). Each group
// goes to its own shard; a group whose shard is not here gets the
// coordinator error.

#include <map>
#include <set>

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/delete_groups.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::delete_groups_request;
using protocol::msg::delete_groups_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<delete_groups_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  group::group_coordinator& coordinator = *ctx.services->groups;
  // Each group once; those the principal may not delete are answered
  // after the others, GROUP_AUTHORIZATION_FAILED.
  std::vector<std::string> refused;
  std::map<int32_t, std::vector<std::string>> by_partition;
  std::set<std::string_view> seen;
  for (const auto& id : request->groups_names) {
    if (!seen.insert(id).second) continue;
    if (authorize(ctx, api_acl(42, "group"), id)) by_partition[coordinator.partition_for(id)].push_back(id);
    else refused.push_back(id);
  }

  delete_groups_response response;
  for (auto& [partition, ids] : by_partition) {
    const std::vector<std::string>& wanted = ids;
    const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t) { shard.delete_groups(token, wanted); };
    auto result = co_await coordinator.submit(partition, issue);
    const auto* results = result.answer ? std::get_if<group::delete_groups_results>(&*result.answer) : nullptr;
    if (results) {
      for (const auto& r : *results) response.results.push_back(r);
      continue;
    }
    const error_code e = result.error != error_code::none ? result.error : error_code::unknown_server_error;
    for (const auto& id : ids) {
      delete_groups_response::deletable_group_result r;
      r.group_id = id;
      r.error_code = static_cast<int16_t>(e);
      response.results.push_back(std::move(r));
    }
  }
  for (const auto& id : refused) {
    delete_groups_response::deletable_group_result r;
    r.group_id = id;
    r.error_code = static_cast<int16_t>(error_code::group_authorization_failed);
    response.results.push_back(std::move(r));
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler delete_groups_handler() { return {42, 0, 2, &handle}; }

}  // namespace hw::broker
