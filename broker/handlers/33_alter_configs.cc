// AlterConfigs (key 33), versions 0-2: the legacy whole-resource config
// replacement, forwarded to the active controller (its rules follow
// Kafka's ConfigurationControlManager; validate_only writes nothing). The
// answer waits until this broker has applied the records, so the topic's
// logs already run with the new settings and a DescribeConfigs right after
// shows them.

#include "broker/admin/controller_call.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/alter_configs.h"

namespace hw::broker {
namespace {

using protocol::msg::alter_configs_request;
using protocol::msg::alter_configs_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<alter_configs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  auto response = co_await call_controller<alter_configs_response>(ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.alter_configs(*request, version); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler alter_configs_handler() { return {33, 0, 2, &handle}; }

}  // namespace hw::broker
