// ExpireDelegationToken (key 40), versions 1-2: a token, named by its HMAC,
// ends sooner (a negative period: at once, removed), asked by its owner or
// a renewer; answered by the active controller
// (controller/delegation_token_control.h), forwarded as Kafka's broker
// forwards it. A token login, PLAINTEXT or one-way TLS is refused first
// (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiry -1).

#include "broker/handlers/delegation_tokens.h"
#include "protocol/messages/expire_delegation_token.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"

namespace hw::broker {
namespace {

using protocol::msg::expire_delegation_token_request;
using protocol::msg::expire_delegation_token_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<expire_delegation_token_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (!allow_token_requests(ctx)) {
    expire_delegation_token_response r;
    r.error_code = static_cast<int16_t>(protocol::error_code::delegation_token_request_not_allowed);
    r.expiry_timestamp_ms = -1;
    co_return respond(ctx, r);
  }
  const std::string requester = ctx.principal->to_string();
  auto response = co_await call_controller<expire_delegation_token_response>(
      ctx, *request, [&](controller::quorum_controller& qc, int64_t now) {
        return qc.expire_delegation_token(*request, requester, now);
      });
  co_return respond(ctx, response);
}

}  // namespace

api_handler expire_delegation_token_handler() { return {40, 1, 2, &handle}; }

}  // namespace hw::broker
