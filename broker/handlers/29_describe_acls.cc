// DescribeAcls (key 29), versions 1-3: the ACLs of this broker's image that
// match the filter (admin/acl_requests.h), as Kafka's broker answers from
// its authorizer. Without an authorizer the answer is SECURITY_DISABLED, as
// Kafka's; a filter with an UNKNOWN field closes the connection, as
// Kafka's parser does.

#include "broker/admin/acl_requests.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/security/authorization.h"
#include "broker/services.h"

namespace hw::broker {
namespace {

using protocol::msg::describe_acls_request;
using protocol::msg::describe_acls_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_acls_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (auto why = unreadable(*request)) co_return handler_result::close(*why);
  if (!authorize(ctx, api_acl(29, "cluster"))) {
    describe_acls_response refused;
    refused.error_code = static_cast<int16_t>(api_acl(29, "cluster").refusal);
    refused.error_message = cluster_refusal_message(ctx, api_acl(29, "cluster").operation);
    co_return respond(ctx, refused);
  }
  if (!authorizer_configured(ctx)) {
    describe_acls_response disabled;
    disabled.error_code = static_cast<int16_t>(protocol::error_code::security_disabled);
    disabled.error_message = "No Authorizer is configured on the broker";
    co_return respond(ctx, disabled);
  }
  const auto image = ctx.services->metadata->image();
  co_return respond(ctx, describe_acls(image->acls, *request));
}

}  // namespace

api_handler describe_acls_handler() { return {29, 1, 3, &handle}; }

}  // namespace hw::broker
