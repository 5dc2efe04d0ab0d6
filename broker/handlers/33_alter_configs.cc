// AlterConfigs (key 33), versions 0-2: the legacy whole-resource config
// replacement, forwarded to the active controller (its rules follow
// Kafka's ConfigurationControlManager; validate_only writes nothing). The
// answer waits until this broker has applied the records, so the topic's
// logs already run with the new settings and a DescribeConfigs right after
// shows them. BROKER resources are first checked here, as Kafka's broker
// does (admin/broker_config_checks.h).

#include "broker/admin/broker_config_checks.h"
#include "broker/metadata/controller_call.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/alter_configs.h"

namespace hw::broker {
namespace {

using protocol::msg::alter_configs_request;
using protocol::msg::alter_configs_response;

constexpr int8_t broker_resource_type = 4;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<alter_configs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const auto& resources = request->resources;
  std::vector<std::optional<config_refusal>> refused(resources.size());
  alter_configs_request forwarded = *request;
  forwarded.resources.clear();
  for (size_t i = 0; i < resources.size(); ++i) {
    // On a controller listener the controller answers alone, as Kafka's does.
    if (resources[i].resource_type == broker_resource_type && !ctx.services->is_controller_listener(ctx.listener_name)) {
      std::vector<broker_config_set> sets;
      for (const auto& c : resources[i].configs)
        if (c.value) sets.push_back({c.name, *c.value});
      refused[i] = check_broker_config_change(ctx.services->node_id, resources[i].resource_name, sets);
    }
    // ALTER_CONFIGS on the resource (the cluster for brokers), after the
    // broker's own checks, as Kafka's controller checks what its brokers
    // forward.
    if (!refused[i]) {
      if (const auto e = config_resource_refusal(ctx, resources[i].resource_type, resources[i].resource_name);
          e != protocol::error_code::none)
        refused[i] = config_refusal{e, std::string(authorization_error_message(e))};
    }
    if (!refused[i]) forwarded.resources.push_back(resources[i]);
  }
  alter_configs_response answered;
  if (!forwarded.resources.empty()) {
    answered = co_await call_controller<alter_configs_response>(
        ctx, forwarded, [&](controller::quorum_controller& qc, int64_t) { return qc.alter_configs(forwarded); });
  }
  auto response = merge_config_answers(resources, refused, std::move(answered));
  co_return respond(ctx, response);
}

}  // namespace

api_handler alter_configs_handler() { return {33, 0, 2, &handle}; }

}  // namespace hw::broker
