// LeaveGroup (key 13), versions 0-5: members leave a classic group (v0-2
// one member at top level, v3+ a batch). The old shape is converted to
// the batch the shard takes, and the answer folded back (legacy_forms.h).

#include "broker/group/legacy_forms.h"
#include "broker/handlers/group_request_support.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "protocol/messages/leave_group.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::leave_group_request;
using protocol::msg::leave_group_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto decoded = decode_request<leave_group_request>(ctx, &error);
  if (!decoded) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  const leave_group_request request = group::leave_group_members(*decoded, version);
  error_code failure = error_code::none;
  const group::group_coordinator::issue_fn issue = [&](group::group_shard& shard, group::request_token token,
                                                         int64_t now_ms) {
    shard.leave_group(token, version, request, now_ms);
  };
  // READ on the group first.
  std::optional<leave_group_response> answer;
  if (authorize(ctx, api_acl(13, "group"), request.group_id))
    answer = co_await group::call_shard<leave_group_response>(ctx, request.group_id, issue, &failure);
  else
    failure = error_code::group_authorization_failed;
  leave_group_response response;
  if (answer) {
    response = std::move(*answer);
    group::fold_legacy_leave(response, version);
  } else {
    response.error_code = static_cast<int16_t>(failure);
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler leave_group_handler() { return {13, 0, 5, &handle}; }

}  // namespace hw::broker
