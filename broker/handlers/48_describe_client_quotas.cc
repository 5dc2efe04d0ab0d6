// DescribeClientQuotas (key 48), versions 0-1: the client quotas of this
// broker's image that match the filter (controller/metadata/quotas.h:
// Kafka's ClientQuotasImage.describe, its refusals of invalid filters), as
// Kafka's broker answers from its metadata cache. DESCRIBE_CONFIGS on the
// cluster, else CLUSTER_AUTHORIZATION_FAILED without a message (Kafka's
// ApiError drops a message that is the error's default text) and no
// entries.

#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "controller/metadata/quotas.h"

namespace hw::broker {
namespace {

using protocol::msg::describe_client_quotas_request;
using protocol::msg::describe_client_quotas_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_client_quotas_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (const api_acl_check& check = api_acl(48, "cluster"); !authorize(ctx, check)) {
    describe_client_quotas_response refused;
    refused.error_code = static_cast<int16_t>(check.refusal);
    refused.error_message = std::nullopt;
    refused.entries.reset();
    co_return respond(ctx, refused);
  }
  const auto image = ctx.services->metadata->image();
  co_return respond(ctx, controller::describe_client_quotas(image->client_quotas, *request));
}

}  // namespace

api_handler describe_client_quotas_handler() { return {48, 0, 1, &handle}; }

}  // namespace hw::broker
