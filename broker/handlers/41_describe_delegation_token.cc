// DescribeDelegationToken (key 41), versions 1-3: the tokens this broker
// knows (its image's), as Kafka's broker answers from its token cache: all
// of them, or those whose owner, requester or a renewer is one of the
// owners asked about (an empty list asked: none); a token is shown to its
// owner, its requester and its renewers, and to whoever may DESCRIBE it
// (DELEGATION_TOKEN) or DESCRIBE_TOKENS its owner (USER). With its HMAC, as
// Kafka's.

#include "broker/handlers/delegation_tokens.h"
#include "protocol/messages/describe_delegation_token.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/security/delegation_token_store.h"
#include "broker/services.h"

namespace hw::broker {
namespace {

using protocol::msg::describe_delegation_token_request;
using protocol::msg::describe_delegation_token_response;

std::pair<std::string, std::string> split(const std::string& principal) {
  const size_t colon = principal.find(':');
  if (colon == std::string::npos) return {principal, ""};
  return {principal.substr(0, colon), principal.substr(colon + 1)};
}

// Whom a token concerns: Kafka's TokenInformation.ownerOrRenewer, which
// counts its requester in (who may renew it does not: the controller's
// check).
bool concerns(const controller::delegation_token& t, const std::string& principal) {
  return t.owner == principal || t.requester == principal ||
         std::find(t.renewers.begin(), t.renewers.end(), principal) != t.renewers.end();
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_delegation_token_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  describe_delegation_token_response response;
  const delegation_token_store* store = ctx.services->delegation_tokens;
  if (!allow_token_requests(ctx)) {
    response.error_code = static_cast<int16_t>(protocol::error_code::delegation_token_request_not_allowed);
    co_return respond(ctx, response);
  }
  if (!store || !store->enabled()) {
    response.error_code = static_cast<int16_t>(protocol::error_code::delegation_token_auth_disabled);
    co_return respond(ctx, response);
  }
  if (request->owners && request->owners->empty()) co_return respond(ctx, response);
  std::vector<std::string> owners;
  if (request->owners)
    for (const auto& o : *request->owners) owners.push_back(o.principal_type + ":" + o.principal_name);
  const std::string me = ctx.principal->to_string();
  for (const auto& [id, token] : *store->snapshot()) {
    const auto& info = token.info;
    if (request->owners &&
        std::none_of(owners.begin(), owners.end(), [&](const std::string& o) { return concerns(info, o); }))
      continue;
    if (!concerns(info, me) &&
        !authorize(ctx, controller::acl_operation::describe, controller::acl_resource_type::delegation_token, id) &&
        !authorize(ctx, controller::acl_operation::describe_tokens, controller::acl_resource_type::user, info.owner))
      continue;
    auto& d = response.tokens.emplace_back();
    std::tie(d.principal_type, d.principal_name) = split(info.owner);
    std::tie(d.token_requester_principal_type, d.token_requester_principal_name) = split(info.requester);
    d.issue_timestamp = info.issue_ms;
    d.expiry_timestamp = info.expiry_ms;
    d.max_timestamp = info.max_ms;
    d.token_id = id;
    d.hmac = token.hmac;
    for (const auto& r : info.renewers) {
      auto& renewer = d.renewers.emplace_back();
      std::tie(renewer.principal_type, renewer.principal_name) = split(r);
    }
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler describe_delegation_token_handler() { return {41, 1, 3, &handle}; }

}  // namespace hw::broker
