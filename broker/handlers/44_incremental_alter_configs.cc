// IncrementalAlterConfigs (key 44), versions 0-1: SET / DELETE / APPEND /
// SUBTRACT per key, forwarded to the active controller (Kafka's
// ConfigurationControlManager rules; validate_only writes nothing). The
// answer waits until this broker has applied the records, so partition
// logs of a changed topic already use the new settings (retention.ms,
// segment.bytes, ...). BROKER resources are first checked here, as Kafka's
// broker does (admin/broker_config_checks.h); those it refuses are not
// forwarded.

#include "broker/admin/broker_config_checks.h"
#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/services.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace hw::broker {
namespace {

using protocol::msg::incremental_alter_configs_request;
using protocol::msg::incremental_alter_configs_response;

constexpr int8_t broker_resource_type = 4;
constexpr int8_t delete_op = 1;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<incremental_alter_configs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const auto& resources = request->resources;
  std::vector<std::optional<config_refusal>> refused(resources.size());
  incremental_alter_configs_request forwarded = *request;
  forwarded.resources.clear();
  for (size_t i = 0; i < resources.size(); ++i) {
    // On a controller listener the controller answers alone, as Kafka's does.
    if (resources[i].resource_type == broker_resource_type && !ctx.services->is_controller_listener(ctx.listener_name)) {
      std::vector<broker_config_set> sets;
      for (const auto& c : resources[i].configs)
        if (c.config_operation != delete_op && c.value) sets.push_back({c.name, *c.value});
      refused[i] = check_broker_config_change(ctx.services->node_id, resources[i].resource_name, sets);
    }
    if (!refused[i]) forwarded.resources.push_back(resources[i]);
  }
  incremental_alter_configs_response answered;
  if (!forwarded.resources.empty()) {
    answered = co_await call_controller<incremental_alter_configs_response>(
        ctx, forwarded, [&](controller::quorum_controller& qc, int64_t) {
          return qc.incremental_alter_configs(forwarded);
        });
  }
  auto response = merge_config_answers(resources, refused, std::move(answered));
  co_return respond(ctx, response);
}

}  // namespace

api_handler incremental_alter_configs_handler() { return {44, 0, 1, &handle}; }

}  // namespace hw::broker
