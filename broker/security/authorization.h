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

#include "broker/request_context.h"
#include "broker/security/api_acls.h"
#include "controller/metadata/acls.h"

namespace hw::broker {

// Whether this broker runs an authorizer.
bool authorizer_configured(const request_context& ctx);

bool authorize(const request_context& ctx, controller::acl_operation operation,
               controller::acl_resource_type resource_type, std::string_view resource_name);
inline bool authorize_cluster(const request_context& ctx, controller::acl_operation operation) {
  return authorize(ctx, operation, controller::acl_resource_type::cluster, controller::acl_cluster_name);
}
// One check of the API table (api_acls.h) on a named resource; a cluster
// check names the cluster itself.
inline bool authorize(const request_context& ctx, const api_acl_check& check, std::string_view resource_name = {}) {
  return check.resource_type == controller::acl_resource_type::cluster
             ? authorize_cluster(ctx, check.operation)
             : authorize(ctx, check.operation, check.resource_type, resource_name);
}
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
// The authorized_operations bits of a resource (Metadata, DescribeCluster,
// DescribeGroups): without an authorizer, every operation Kafka lists for
// the type.
int32_t authorized_operations(const request_context& ctx, controller::acl_resource_type resource_type,
                              std::string_view resource_name);

}  // namespace hw::broker
