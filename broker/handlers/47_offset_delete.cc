// OffsetDelete (key 47), version 0: removes a group's committed offsets
// for partitions it no longer consumes. Routed to the group's shard; when
// the shard is not here the whole request gets the coordinator error.

#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
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
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t) {
    shard.delete_offsets(token, *request);
  };
  auto answer = co_await group::call_shard<offset_delete_response>(ctx, request->group_id, issue, &failure);
  if (answer) co_return respond(ctx, *answer);
  offset_delete_response response;
  response.error_code = static_cast<int16_t>(failure);
  co_return respond(ctx, response);
}

}  // namespace

api_handler offset_delete_handler() { return {47, 0, 0, &handle}; }

}  // namespace hw::broker
