// DescribeUserScramCredentials (key 50), version 0: the mechanisms and
// iterations of users' SCRAM credentials, from this broker's image, as
// Kafka's broker answers from its metadata cache (admin/scram_credentials.h).

#include "broker/admin/scram_credentials.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"

namespace hw::broker {
namespace {

using protocol::msg::describe_user_scram_credentials_request;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_user_scram_credentials_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // DESCRIBE on the cluster, else the whole request is refused (Kafka's
  // getErrorResponse: the error at the top and once per user asked about,
  // unnamed, without a message).
  if (!authorize(ctx, api_acl(50, "cluster"))) {
    protocol::msg::describe_user_scram_credentials_response refused;
    refused.error_code = static_cast<int16_t>(protocol::error_code::cluster_authorization_failed);
    refused.error_message = std::nullopt;
    if (request->users)
      for (size_t i = 0; i < request->users->size(); ++i) {
        auto& r = refused.results.emplace_back();
        r.error_code = refused.error_code;
        r.error_message = std::nullopt;
      }
    co_return respond(ctx, refused);
  }
  const auto image = ctx.services->metadata->image();
  co_return respond(ctx, describe_scram_credentials(image->scram, *request));
}

}  // namespace

api_handler describe_user_scram_credentials_handler() { return {50, 0, 0, &handle}; }

}  // namespace hw::broker
