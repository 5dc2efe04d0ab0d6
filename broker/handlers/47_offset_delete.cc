// OffsetDelete (key 47), version 0: removes a group's committed offsets
// for partitions it no longer consumes. Routed to the group's shard; when
// the shard is not here the whole request gets the coordinator error.
// Authorization: DELETE on the group (else GROUP_AUTHORIZATION_FAILED for
// the request), READ on each topic (TOPIC_AUTHORIZATION_FAILED for its
// partitions).

#include <algorithm>
#include <iterator>

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/offset_delete.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::offset_delete_request;
using protocol::msg::offset_delete_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<offset_delete_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  error_code failure = error_code::none;
  // READ on each topic: the others' partitions are refused here and never
  // reach the group.
  std::vector<offset_delete_response::offset_delete_response_topic> refused;
  if (authorizer_configured(ctx)) {
    authorized_names may_read(ctx, api_acl(47, "topic"));
    std::erase_if(request->topics, [&](const auto& t) {
      if (may_read(t.name)) return false;
      auto& r = refused.emplace_back();
      r.name = t.name;
      for (const auto& p : t.partitions)
        r.partitions.push_back({p.partition_index, static_cast<int16_t>(error_code::topic_authorization_failed), {}});
      return true;
    });
  }
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t) {
    shard.delete_offsets(token, *request);
  };
  // DELETE on the group first.
  std::optional<offset_delete_response> answer;
  if (authorize(ctx, api_acl(47, "group"), request->group_id))
    answer = co_await group::call_shard<offset_delete_response>(ctx, request->group_id, issue, &failure);
  else
    failure = error_code::group_authorization_failed;
  if (answer) {
    if (answer->error_code == 0)
      answer->topics.insert(answer->topics.begin(), std::make_move_iterator(refused.begin()),
                            std::make_move_iterator(refused.end()));
    co_return respond(ctx, *answer);
  }
  offset_delete_response response;
  response.error_code = static_cast<int16_t>(failure);
  co_return respond(ctx, response);
}

}  // namespace

api_handler offset_delete_handler() { return {47, 0, 0, &handle}; }

}  // namespace hw::broker
