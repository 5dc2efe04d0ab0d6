// SaslHandshake (key 17), versions 0-1. On a SASL listener before the
// connection has authenticated: the client names a mechanism and the
// connection's sasl_session answers (NONE with the enabled mechanisms, or
// UNSUPPORTED_SASL_MECHANISM with them; v0 means the tokens that follow
// come raw). Anywhere else (a PLAINTEXT listener, or a connection already
// authenticated) Kafka answers ILLEGAL_SASL_STATE with no mechanisms.

#include <spdlog/spdlog.h>

#include "broker/handlers/handlers.h"
#include "broker/security/sasl_session.h"
#include "protocol/messages/sasl_handshake.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::sasl_handshake_request;
using protocol::msg::sasl_handshake_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<sasl_handshake_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  sasl_handshake_response response;
  if (!ctx.sasl) {
    response.error_code = static_cast<int16_t>(error_code::illegal_sasl_state);
    co_return respond(ctx, response);
  }
  sasl_session::handshake_answer answer = ctx.sasl->handshake(request->mechanism, ctx.api_version);
  response.error_code = static_cast<int16_t>(answer.error);
  response.mechanisms = std::move(answer.mechanisms);
  if (answer.error != error_code::none)
    spdlog::info("Failed authentication with /{} (channelId={}) (Unsupported SASL mechanism {})", ctx.client_address,
                 ctx.connection_name, request->mechanism);
  co_return respond(ctx, response);
}

}  // namespace

api_handler sasl_handshake_handler() { return {17, 0, 1, &handle}; }

}  // namespace hw::broker
