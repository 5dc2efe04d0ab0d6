// Envelope (key 58), version 0, on controller listeners: a broker forwards
// a client's admin request to the active controller wrapped with the
// client's principal and address (Kafka's ForwardingManager), so the
// controller authorizes the client as the broker that received it would.
//
// Kafka's rules (ControllerApis.handleEnvelopeRequest, EnvelopeUtils): the
// sender needs CLUSTER_ACTION on the cluster, else the envelope is refused
// CLUSTER_AUTHORIZATION_FAILED; a principal the controller cannot read is
// PRINCIPAL_DESERIALIZATION_FAILURE; an address that is not 4 or 16 bytes,
// an inner request that does not parse, names an API this listener does
// not serve at that version, or is itself an envelope, is INVALID_REQUEST.
// Otherwise the inner request is handled as if its client had sent it on
// this listener, and its whole response (header and body) goes back in
// ResponseData.

#include "broker/handler_registry.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/security/forwarded_identity.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/envelope.h"
#include "protocol/request_header_parse.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::envelope_request;
using protocol::msg::envelope_response;

constexpr int16_t k_envelope_key = 58;

handler_result refuse(const request_context& ctx, error_code e) {
  envelope_response r;
  r.error_code = static_cast<int16_t>(e);
  return respond(ctx, r);
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<envelope_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (!authorize(ctx, api_acl(k_envelope_key, "cluster"))) co_return refuse(ctx, error_code::cluster_authorization_failed);
  if (!request->request_principal) co_return refuse(ctx, error_code::principal_deserialization_failure);
  const std::optional<kafka_principal> principal = deserialize_principal(
      protocol::bytes_view(request->request_principal->data(), request->request_principal->size()));
  if (!principal) co_return refuse(ctx, error_code::principal_deserialization_failure);
  const std::optional<std::string> address =
      address_text(protocol::bytes_view(request->client_host_address.data(), request->client_host_address.size()));
  if (!address) co_return refuse(ctx, error_code::invalid_request);

  const protocol::bytes_view inner(request->request_data.data(), request->request_data.size());
  const auto prefix = protocol::peek_request_prefix(inner);
  if (!prefix || prefix->api_key == k_envelope_key) co_return refuse(ctx, error_code::invalid_request);
  const api_handler* handler = ctx.services->handlers_for(ctx.listener_name).find(prefix->api_key);
  if (!handler || prefix->api_version < handler->min_version || prefix->api_version > handler->max_version)
    co_return refuse(ctx, error_code::invalid_request);
  const auto parsed =
      protocol::parse_request_header(inner, protocol::request_header_version(prefix->api_key, prefix->api_version));
  if (!parsed.header) co_return refuse(ctx, error_code::invalid_request);

  // The client's request, as its own connection would have passed it.
  request_context forwarded = ctx;
  forwarded.api_key = parsed.header->api_key;
  forwarded.api_version = parsed.header->api_version;
  forwarded.correlation_id = parsed.header->correlation_id;
  forwarded.client_id = parsed.header->client_id;
  forwarded.body = parsed.header->body(inner);
  forwarded.writable_frame = {};
  forwarded.response_header_version = protocol::response_header_version(forwarded.api_key, forwarded.api_version);
  forwarded.principal = &*principal;
  forwarded.client_address = *address;
  forwarded.sasl = nullptr;
  forwarded.forwarded = true;
  handler_result answer = co_await handler->handle(forwarded);
  if (answer.closes() || !answer.response()) co_return refuse(ctx, error_code::invalid_request);
  const response_frame& frame = *answer.response();
  envelope_response r;
  // The inner response after its size prefix: header and body.
  r.response_data = std::vector<uint8_t>(frame.bytes.begin() + 4, frame.bytes.end());
  co_return respond(ctx, r);
}

}  // namespace

api_handler envelope_handler() { return {k_envelope_key, 0, 0, &handle}; }

}  // namespace hw::broker
