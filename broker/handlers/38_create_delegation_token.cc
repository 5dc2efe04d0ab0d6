// CreateDelegationToken (key 38), versions 1-3: a delegation token (KIP-48)
// for the requester, or (v3, KIP-373) for another owner when the requester
// may CREATE_TOKENS on that User, made by the active controller
// (controller/delegation_token_control.h) and forwarded as Kafka's broker
// forwards it. Refused before forwarding as Kafka refuses: a token login,
// PLAINTEXT or one-way TLS DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, another
// owner without CREATE_TOKENS DELEGATION_TOKEN_AUTHORIZATION_FAILED, a
// renewer that is not a User INVALID_PRINCIPAL_TYPE (timestamps -1, no id).
// An owner's name without a type (v3's null) is a principal Kafka cannot
// make: its handler fails first, UNKNOWN_SERVER_ERROR as from
// User:ANONYMOUS, whatever the connection.

#include "broker/handlers/delegation_tokens.h"
#include "protocol/messages/create_delegation_token.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/security/authorization.h"

namespace hw::broker {
namespace {

using protocol::msg::create_delegation_token_request;
using protocol::msg::create_delegation_token_response;

create_delegation_token_response refused(protocol::error_code code, const std::string& owner_type,
                                         const std::string& owner_name, const kafka_principal& requester) {
  create_delegation_token_response r;
  r.error_code = static_cast<int16_t>(code);
  r.principal_type = owner_type;
  r.principal_name = owner_name;
  r.token_requester_principal_type = requester.type();
  r.token_requester_principal_name = requester.name();
  r.issue_timestamp_ms = -1;
  r.expiry_timestamp_ms = -1;
  r.max_timestamp_ms = -1;
  return r;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<create_delegation_token_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const kafka_principal& requester = *ctx.principal;
  std::string owner_type = requester.type(), owner_name = requester.name();
  if (request->owner_principal_name && !request->owner_principal_name->empty()) {
    if (!request->owner_principal_type) {
      const kafka_principal& anonymous = kafka_principal::anonymous();
      co_return respond(ctx, refused(protocol::error_code::unknown_server_error, anonymous.type(), anonymous.name(),
                                     anonymous));
    }
    owner_type = *request->owner_principal_type;
    owner_name = *request->owner_principal_name;
  }
  const bool other_owner = owner_type != requester.type() || owner_name != requester.name();
  if (!allow_token_requests(ctx))
    co_return respond(ctx, refused(protocol::error_code::delegation_token_request_not_allowed, owner_type, owner_name,
                                   requester));
  if (other_owner && !authorize(ctx, controller::acl_operation::create_tokens, controller::acl_resource_type::user,
                                owner_type + ":" + owner_name))
    co_return respond(ctx, refused(protocol::error_code::delegation_token_authorization_failed, owner_type, owner_name,
                                   requester));
  if (!ctx.forwarded && !ctx.services->is_controller_listener(ctx.listener_name))
    for (const auto& renewer : request->renewers)
      if (renewer.principal_type != "User")
        co_return respond(ctx,
                          refused(protocol::error_code::invalid_principal_type, owner_type, owner_name, requester));
  auto response = co_await call_controller<create_delegation_token_response>(
      ctx, *request, [&](controller::quorum_controller& qc, int64_t now) {
        return qc.create_delegation_token(*request, requester.type(), requester.name(), now);
      });
  co_return respond(ctx, response);
}

}  // namespace

api_handler create_delegation_token_handler() { return {38, 1, 3, &handle}; }

}  // namespace hw::broker
