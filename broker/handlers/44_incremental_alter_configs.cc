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
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/security/tls_context.h"
#include "broker/services.h"
#include "config/listener_security.h"
#include "config/value_parse.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace hw::broker {
namespace {

using protocol::msg::incremental_alter_configs_request;
using protocol::msg::incremental_alter_configs_response;

constexpr int8_t broker_resource_type = 4;
constexpr int8_t delete_op = 1;

// A change to this broker's listener key or trust stores must leave TLS
// contexts that load, as Kafka's SslFactory validates a reconfiguration:
// the stores the change would give are loaded now, and a failure refuses it
// (the old certificate keeps serving).
std::optional<config_refusal> check_tls_reconfiguration(const request_context& ctx,
                                                        const decltype(incremental_alter_configs_request::resources)::value_type& r) {
  if (r.resource_name != std::to_string(ctx.services->node_id) || !ctx.services->config) return std::nullopt;
  bool touches = false;
  for (const auto& c : r.configs) touches = touches || config::listener_tls_reconfigurable(c.name);
  if (!touches) return std::nullopt;
  std::map<std::string, std::string> dynamic;
  if (ctx.services->metadata) {
    const auto image = ctx.services->metadata->image();
    auto it = image->configs.find({controller::config_resource_type::broker, r.resource_name});
    if (it != image->configs.end()) dynamic = it->second;
  }
  const std::map<std::string, std::string> serving_dynamic = dynamic;
  for (const auto& c : r.configs) {
    if (c.config_operation == delete_op) dynamic.erase(c.name);
    else if (c.value) dynamic[c.name] = *c.value;
  }
  const config::broker_config next = config::with_dynamic_listener_tls(*ctx.services->config, dynamic);
  auto made = make_tls_listeners(next);
  if (auto* error = std::get_if<std::string>(&made))
    return config_refusal{protocol::error_code::invalid_config,
                          "Validation of dynamic config update of SSLFactory failed: " + *error};
  // The new stores load; their certificates must also still be the
  // listener's (the subject kept, no name dropped).
  auto serving = make_tls_listeners(config::with_dynamic_listener_tls(*ctx.services->config, serving_dynamic));
  if (auto* now = std::get_if<std::map<std::string, std::shared_ptr<const tls_server_context>>>(&serving)) {
    auto allowed = [&](const std::string& listener, const char* key) {
      if (auto v = config::listener_override(next, listener, key)) return config::lower(*v) == "true";
      return next.get_bool(key);
    };
    for (const auto& [listener, context] : std::get<std::map<std::string, std::shared_ptr<const tls_server_context>>>(made)) {
      auto it = now->find(listener);
      if (it == now->end()) continue;
      if (auto refusal = tls_keystore_change_refusal(*it->second, *context, allowed(listener, "ssl.allow.dn.changes"),
                                                     allowed(listener, "ssl.allow.san.changes")))
        return config_refusal{protocol::error_code::invalid_config,
                              "Validation of dynamic config update of SSLFactory failed: " + *refusal};
    }
  }
  return std::nullopt;
}

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
      if (!refused[i]) refused[i] = check_tls_reconfiguration(ctx, resources[i]);
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
