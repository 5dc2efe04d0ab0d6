#include "broker/security/authorization.h"

#include <spdlog/spdlog.h>

#include "broker/security/authorizer_store.h"
#include "broker/services.h"
#include "protocol/messages/api_registry.h"

namespace hw::broker {

namespace {

const authorizer_store* store_of(const request_context& ctx) {
  return ctx.services ? ctx.services->authorizer : nullptr;
}

std::string_view api_name(int16_t api_key) {
  const protocol::api_info* api = protocol::find_api(api_key);
  return api ? std::string_view(api->name) : std::string_view("Unknown");
}

}  // namespace

bool authorizer_configured(const request_context& ctx) { return store_of(ctx) != nullptr; }

bool authorize(const request_context& ctx, controller::acl_operation operation,
               controller::acl_resource_type resource_type, std::string_view resource_name, bool log_denied) {
  const authorizer_store* store = store_of(ctx);
  if (!store) return true;
  const auto authorizer = store->current();
  const std::string& principal = ctx.principal->to_string();
  if (!authorizer) return store->settings().super_users.contains(principal);  // the ACLs are not loaded yet
  const auto decision = authorizer->authorize(principal, ctx.client_address, operation, resource_type, resource_name);
  const auto level = decision.allowed ? spdlog::level::debug
                     : log_denied     ? spdlog::level::info
                                      : spdlog::level::debug;
  if (spdlog::should_log(level))
    spdlog::log(level, "{} (kafka.authorizer.logger)",
                controller::audit_text(decision, principal, ctx.client_address, operation, resource_type,
                                       resource_name, api_name(ctx.api_key), 1));
  return decision.allowed;
}

protocol::error_code config_resource_refusal(const request_context& ctx, int8_t resource_type,
                                             std::string_view resource_name) {
  if (!authorizer_configured(ctx)) return protocol::error_code::none;
  std::string_view check;
  switch (resource_type) {
    case 4:   // broker
    case 8:   // broker logger
    case 16:  // client metrics
      check = "cluster";
      break;
    case 2: check = "topic"; break;
    case 32: check = "group"; break;
    default: return protocol::error_code::none;
  }
  const api_acl_check& c = api_acl(ctx.api_key, check);
  return authorize(ctx, c, resource_name) ? protocol::error_code::none : c.refusal;
}

std::string_view authorization_error_message(protocol::error_code e) {
  switch (e) {
    case protocol::error_code::cluster_authorization_failed: return "Cluster authorization failed.";
    case protocol::error_code::topic_authorization_failed: return "Topic authorization failed.";
    case protocol::error_code::group_authorization_failed: return "Group authorization failed.";
    case protocol::error_code::transactional_id_authorization_failed: return "Transactional Id authorization failed.";
    default: return protocol::error_name(e);
  }
}

std::string cluster_refusal_message(const request_context& ctx, controller::acl_operation operation) {
  const std::string protocol(security_protocol_name(ctx.protocol));
  return "Request Request(processor=0, connectionId=" + std::string(ctx.connection_name) +
         ", session=Session(" + ctx.principal->to_string() + ",/" + std::string(ctx.client_address) +
         "), listenerName=ListenerName(" + std::string(ctx.listener_name) + "), securityProtocol=" + protocol +
         ", buffer=null, envelope=None) needs " + std::string(controller::to_string(operation)) + " permission.";
}

bool authorize_any(const request_context& ctx, controller::acl_operation operation,
                   controller::acl_resource_type resource_type) {
  const authorizer_store* store = store_of(ctx);
  if (!store) return true;
  const auto authorizer = store->current();
  if (!authorizer) return store->settings().super_users.contains(ctx.principal->to_string());
  return authorizer->authorize_by_resource_type(ctx.principal->to_string(), ctx.client_address, operation,
                                                resource_type);
}

int32_t authorized_operations(const request_context& ctx, controller::acl_resource_type resource_type,
                              std::string_view resource_name) {
  const authorizer_store* store = store_of(ctx);
  if (!store) return controller::supported_operations_bits(resource_type);
  const auto authorizer = store->current();
  if (!authorizer) return 0;
  return authorizer->authorized_operations(ctx.principal->to_string(), ctx.client_address, resource_type,
                                           resource_name);
}

}  // namespace hw::broker
