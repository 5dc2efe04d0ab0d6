#include "broker/dispatcher.h"

#include <chrono>
#include <exception>

#include "broker/metrics/broker_metrics.h"
#include "broker/quota/request_quotas.h"
#include "protocol/error_code.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/request_header_parse.h"

namespace hw::broker {
namespace {

constexpr int16_t kApiVersionsKey = 18;

std::string describe(int16_t key, int16_t version) {
  const protocol::api_info* api = protocol::find_api(key);
  std::string name = api ? api->name : "unknown";
  return "api key " + std::to_string(key) + " (" + name + ") version " + std::to_string(version);
}

}  // namespace

dispatch_decision decide(const handler_registry& handlers, int16_t api_key, int16_t api_version) {
  const api_handler* h = handlers.find(api_key);
  if (!h) return {dispatch_action::close, nullptr, "Received request for " + describe(api_key, api_version) + ", an API this broker does not serve"};
  if (api_version >= h->min_version && api_version <= h->max_version) return {dispatch_action::handle, h, {}};
  if (api_key == kApiVersionsKey) return {dispatch_action::unsupported_api_versions, h, {}};
  return {dispatch_action::close, nullptr,
          "Received request for " + describe(api_key, api_version) + ", which is not enabled (supported versions " +
              std::to_string(h->min_version) + " to " + std::to_string(h->max_version) + ")"};
}

response_frame unsupported_api_versions_response(const handler_registry& handlers, int32_t correlation_id) {
  // Kafka (ApiVersionsRequest.getErrorResponse) lists only ApiVersions' own
  // range here, so the client can retry with a version both sides know.
  protocol::msg::api_versions_response r;
  r.error_code = static_cast<int16_t>(protocol::error_code::unsupported_version);
  if (const api_handler* h = handlers.find(kApiVersionsKey))
    r.api_keys.push_back({h->api_key, h->min_version, h->max_version, {}});
  return encode_response(correlation_id, 0, r, 0);
}

std::variant<dispatch_outcome, dispatcher::prepared_call> dispatcher::prepare(protocol::bytes_view frame,
                                                                            const connection_info& from) const {
  auto prefix = protocol::peek_request_prefix(frame);
  if (!prefix) return dispatch_outcome{std::nullopt, "Error parsing request header: frame of " +
                                                         std::to_string(frame.size()) + " bytes is too short"};
  const handler_registry& handlers = services_.handlers_for(from.listener_name);
  dispatch_decision d = decide(handlers, prefix->api_key, prefix->api_version);
  if (d.action == dispatch_action::close) return dispatch_outcome{std::nullopt, std::move(d.reason)};

  const int16_t header_version = protocol::request_header_version(prefix->api_key, prefix->api_version);
  protocol::request_header_result parsed = protocol::parse_request_header(frame, header_version);
  if (!parsed.header)
    return dispatch_outcome{std::nullopt, std::string("Error parsing request header for ") +
                                              describe(prefix->api_key, prefix->api_version) + ": " + parsed.error};
  const protocol::request_header_view& h = *parsed.header;

  if (d.action == dispatch_action::unsupported_api_versions)
    return dispatch_outcome{unsupported_api_versions_response(handlers, h.correlation_id), {}};

  prepared_call call{d.handler, {}};
  request_context& ctx = call.context;
  ctx.api_key = h.api_key;
  ctx.api_version = h.api_version;
  ctx.correlation_id = h.correlation_id;
  ctx.client_id = h.client_id;
  ctx.body = h.body(frame);
  ctx.request_bytes = frame.size();
  ctx.response_header_version = protocol::response_header_version(h.api_key, h.api_version);
  ctx.listener_name = from.listener_name;
  ctx.protocol = from.protocol;
  ctx.client_address = from.client_address;
  ctx.principal = from.principal ? from.principal : &kafka_principal::anonymous();
  ctx.sasl = from.sasl;
  ctx.connection_id = from.id;
  ctx.connection_name = from.name;
  ctx.services = &services_;
  return call;
}

asio::awaitable<dispatch_outcome> dispatcher::dispatch(std::span<uint8_t> writable_frame,
                                                       const connection_info& from) const {
  auto prepared = prepare(writable_frame, from);
  if (auto* outcome = std::get_if<dispatch_outcome>(&prepared)) co_return std::move(*outcome);
  auto& call = std::get<prepared_call>(prepared);
  call.context.writable_frame = writable_frame;
  co_return co_await run(call);
}

asio::awaitable<dispatch_outcome> dispatcher::dispatch(protocol::bytes_view frame, const connection_info& from) const {
  auto prepared = prepare(frame, from);
  if (auto* outcome = std::get_if<dispatch_outcome>(&prepared)) co_return std::move(*outcome);
  co_return co_await run(std::get<prepared_call>(prepared));
}

asio::awaitable<dispatch_outcome> dispatcher::run(prepared_call& call) const {
  dispatch_outcome out;
  const auto started = std::chrono::steady_clock::now();
  call.context.started = started;
  try {
    handler_result r = co_await call.handler->handle(call.context);
    if (r.closes()) {
      out.close_reason = r.close_reason();
    } else {
      out.response = std::move(r.response());
      quota::finish_request(call.context, out.response);
      out.throttle_ms = call.context.throttle_ms;
    }
  } catch (const std::exception& e) {
    // A handler bug: without a per-API error response to give, close the
    // connection rather than leave the client waiting.
    out.close_reason = "Unexpected error handling " + describe(call.context.api_key, call.context.api_version) +
                       ": " + e.what();
  }
  if (services_.metrics) {
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - started;
    services_.metrics->on_request(call.context.api_key, call.context.from_follower, took.count());
  }
  co_return out;
}

}  // namespace hw::broker
