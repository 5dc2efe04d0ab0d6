// SaslAuthenticate (key 36), versions 0-2: one round of the mechanism named
// by a v1 SaslHandshake, through the connection's sasl_session. A failure
// is answered SASL_AUTHENTICATION_FAILED with Kafka's text (the connection
// then answers after connection.failed.authentication.delay.ms and
// closes); the broker's log says why, without secrets. The final round
// tells the client how long its login lasts (connections.max.reauth.ms for
// the mechanism, 0: for ever; KIP-368). Anywhere else Kafka answers
// ILLEGAL_SASL_STATE.

#include <spdlog/spdlog.h>

#include "broker/handlers/handlers.h"
#include "broker/security/sasl_session.h"
#include "protocol/messages/sasl_authenticate.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::sasl_authenticate_request;
using protocol::msg::sasl_authenticate_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<sasl_authenticate_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  sasl_authenticate_response response;
  if (!ctx.sasl) {
    response.error_code = static_cast<int16_t>(error_code::illegal_sasl_state);
    response.error_message = "SaslAuthenticate request received after successful authentication";
    co_return respond(ctx, response);
  }
  sasl_session::authenticate_answer answer = ctx.sasl->authenticate(request->auth_bytes);
  response.error_code = static_cast<int16_t>(answer.error);
  if (answer.error != error_code::none) {
    response.error_message = answer.error_message;
    spdlog::info("Failed authentication with /{} (channelId={}) ({}; {})", ctx.client_address, ctx.connection_name,
                 answer.error_message, answer.log_reason);
    if (answer.close_unanswered) co_return handler_result::close("SASL authentication failed: " + answer.log_reason);
  }
  response.auth_bytes = std::move(answer.auth_bytes);
  response.session_lifetime_ms = ctx.sasl->session_lifetime_ms();
  co_return respond(ctx, response);
}

}  // namespace

api_handler sasl_authenticate_handler() { return {36, 0, 2, &handle}; }

}  // namespace hw::broker
