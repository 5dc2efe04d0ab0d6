#pragma once
// The handler contract. Each API has one file named after its key
// (18_api_versions.cc) that defines its handler function and the version
// range it serves; handlers.cc lists them all. ApiVersions advertises
// exactly that list, so an API is advertised once it has a handler.

#include <cstdint>
#include <optional>
#include <string>

#include "broker/asio.h"
#include "broker/request_context.h"
#include "broker/response.h"

namespace hw::broker {

// A handler's answer: a response, no response at all (acks=0 produce; the
// ordering slot is released), or "close the connection" (Kafka's reaction
// to a request it cannot parse).
class handler_result {
 public:
  static handler_result respond(response_frame f) { return handler_result(std::move(f), {}); }
  static handler_result no_response() { return handler_result(std::nullopt, {}); }
  static handler_result close(std::string reason) { return handler_result(std::nullopt, std::move(reason)); }

  bool closes() const { return !close_reason_.empty(); }
  const std::string& close_reason() const { return close_reason_; }
  std::optional<response_frame>& response() { return response_; }

 private:
  handler_result(std::optional<response_frame> r, std::string close)
      : response_(std::move(r)), close_reason_(std::move(close)) {}
  std::optional<response_frame> response_;
  std::string close_reason_;
};

using handler_fn = asio::awaitable<handler_result> (*)(request_context&);

// Decodes the request body as T (a generated request struct) at the
// request's version. As in Kafka, bytes after the body are ignored. On
// failure returns nullopt and sets *error; the handler then answers
// handler_result::close, which is what Kafka does with a body it cannot parse.
template <typename T>
std::optional<T> decode_request(const request_context& ctx, std::string* error) {
  T request;
  protocol::reader in(ctx.body);
  request.decode(in, ctx.api_version);
  if (!in.ok()) {
    *error = std::string("Error decoding ") + T::schema.name + " v" + std::to_string(ctx.api_version) + ": " +
             in.error();
    return std::nullopt;
  }
  return request;
}

// The response to ctx's request: message M at the request's version behind
// the right response header.
template <typename M>
handler_result respond(const request_context& ctx, const M& message) {
  return handler_result::respond(
      encode_response(ctx.correlation_id, ctx.response_header_version, message, ctx.api_version));
}

struct api_handler {
  int16_t api_key;
  int16_t min_version;  // served range, inclusive
  int16_t max_version;
  handler_fn handle;
  // The lowest version ApiVersions advertises, when not min_version: Kafka
  // advertises Produce from v0 though it serves v3+ (librdkafka will not
  // produce compressed batches to a broker without Produce v0, KAFKA-18659).
  int16_t advertised_min_version = -1;
};

}  // namespace hw::broker
