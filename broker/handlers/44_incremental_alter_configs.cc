// IncrementalAlterConfigs (key 44), versions 0-1: SET / DELETE / APPEND /
// SUBTRACT per key, forwarded to the active controller (Kafka's
// ConfigurationControlManager rules; validate_only writes nothing). The
// answer waits until this broker has applied the records, so partition
// logs of a changed topic already use the new settings (retention.ms,
// segment.bytes, ...).

#include "broker/admin/controller_call.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace hw::broker {
namespace {

using protocol::msg::incremental_alter_configs_request;
using protocol::msg::incremental_alter_configs_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<incremental_alter_configs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int16_t version = ctx.api_version;
  auto response = co_await call_controller<incremental_alter_configs_response>(ctx, *request, [&](controller::quorum_controller& qc, int64_t) { return qc.incremental_alter_configs(*request, version); });
  co_return respond(ctx, response);
}

}  // namespace

api_handler incremental_alter_configs_handler() { return {44, 0, 1, &handle}; }

}  // namespace hw::broker
