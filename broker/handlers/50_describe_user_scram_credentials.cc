// DescribeUserScramCredentials (key 50), version 0: the mechanisms and
// iterations of users' SCRAM credentials, from this broker's image, as
// Kafka's broker answers from its metadata cache (admin/scram_credentials.h).

#include "broker/admin/scram_credentials.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"

namespace hw::broker {
namespace {

using protocol::msg::describe_user_scram_credentials_request;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_user_scram_credentials_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const auto image = ctx.services->metadata->image();
  co_return respond(ctx, describe_scram_credentials(image->scram, *request));
}

}  // namespace

api_handler describe_user_scram_credentials_handler() { return {50, 0, 0, &handle}; }

}  // namespace hw::broker
