#pragma once
// A handler's questions to the authorizer, about the request's principal
// and client address (request_context): may it do this operation on this
// resource? Without an authorizer (`authorizer.class.name` unset) every
// answer is yes, as in Kafka. Denials are logged as Kafka's authorizer
// logger writes them ("Principal = User:bob is Denied operation = ..."),
// at INFO; allowed decisions at DEBUG.
//
// Any strand: the authorizer is an immutable snapshot (authorizer_store.h).

#include <cstdint>
#include <string>
#include <string_view>
#include <functional>
#include <map>
#include <optional>

#include "broker/request_context.h"
#include "broker/security/api_acls.h"
#include "controller/metadata/acls.h"

namespace hw::broker {

// Whether this broker runs an authorizer.
bool authorizer_configured(const request_context& ctx);

// A denial is logged unless log_denied is false (Kafka's logIfDenied: not
// for the topics a listing of every topic leaves out).
bool authorize(const request_context& ctx, controller::acl_operation operation,
               controller::acl_resource_type resource_type, std::string_view resource_name,
               bool log_denied = true);
inline bool authorize_cluster(const request_context& ctx, controller::acl_operation operation) {
  return authorize(ctx, operation, controller::acl_resource_type::cluster, controller::acl_cluster_name);
}
// One check of the API table (api_acls.h) on a named resource; a cluster
// check names the cluster itself.
inline bool authorize(const request_context& ctx, const api_acl_check& check, std::string_view resource_name = {},
                      bool log_denied = true) {
  return check.resource_type == controller::acl_resource_type::cluster
             ? authorize(ctx, check.operation, check.resource_type, controller::acl_cluster_name, log_denied)
             : authorize(ctx, check.operation, check.resource_type, resource_name, log_denied);
}
// A request refused as a whole where the answer is a top-level error code
// only (Kafka's getErrorResponse for the nodes' own APIs, DescribeLogDirs,
// ListConfigResources): the answer if the check refuses, else nothing.
template <class Response>
std::optional<Response> top_level_refusal(const request_context& ctx, const api_acl_check& check) {
  if (authorize(ctx, check)) return std::nullopt;
  Response refused;
  refused.error_code = static_cast<int16_t>(check.refusal);
  return refused;
}

// Kafka's filterByAuthorized: one check of the API table asked once per
// distinct resource name of a request (a produce of a hundred partitions
// of one topic asks once).
class authorized_names {
 public:
  authorized_names(const request_context& ctx, const api_acl_check& check, bool log_denied = true)
      : ctx_(ctx), check_(check), log_denied_(log_denied) {}
  bool operator()(std::string_view name) {
    if (!authorizer_configured(ctx_)) return true;
    if (auto it = decisions_.find(name); it != decisions_.end()) return it->second;
    const bool allowed = authorize(ctx_, check_, name, log_denied_);
    decisions_.emplace(std::string(name), allowed);
    return allowed;
  }

 private:
  const request_context& ctx_;
  const api_acl_check& check_;
  bool log_denied_;
  std::map<std::string, bool, std::less<>> decisions_;  // owns its names: requests move theirs
};

// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs (ctx.api_key):
// the error refusing a config resource, by its type id (brokers, broker
// loggers and client metrics are checked on the cluster, topics and groups
// on themselves), or none when allowed or of another type (the handler
// answers those). Kafka's message for it is error_message_of(refusal).
protocol::error_code config_resource_refusal(const request_context& ctx, int8_t resource_type,
                                             std::string_view resource_name);
// Kafka's default message of an authorization error ("Topic authorization
// failed.").
std::string_view authorization_error_message(protocol::error_code e);

// What Kafka answers a request refused a cluster operation (its
// AuthHelper.authorizeClusterOperation): "Request Request(processor=0,
// connectionId=..., session=Session(User:bob,/127.0.0.1),
// listenerName=ListenerName(SASL_PLAINTEXT), securityProtocol=SASL_PLAINTEXT,
// buffer=null, envelope=None) needs ALTER permission." Kafka's own text
// names its network thread and Java object hashes; ours names the same
// parts with what identifies them here.
std::string cluster_refusal_message(const request_context& ctx, controller::acl_operation operation);

// Kafka's authorizeByResourceType: may it do the operation on some
// resource of the type?
bool authorize_any(const request_context& ctx, controller::acl_operation operation,
                   controller::acl_resource_type resource_type);
inline bool authorize_any(const request_context& ctx, const api_acl_check& check) {
  return authorize_any(ctx, check.operation, check.resource_type);
}
// The authorized_operations bits of a resource (Metadata, DescribeCluster,
// DescribeGroups): without an authorizer, every operation Kafka lists for
// the type.
int32_t authorized_operations(const request_context& ctx, controller::acl_resource_type resource_type,
                              std::string_view resource_name);

}  // namespace hw::broker
