#pragma once
// Turns one request frame into a handler call, following Kafka's rules for
// requests the broker cannot serve (SocketServer.parseRequestHeader,
// RequestHeader.parse, RequestContext.parseRequest, ApiKeys.isVersionEnabled):
//  - an API key the broker does not serve, or a version outside a served
//    API's range, closes the connection, except that
//  - an ApiVersions request of any version the broker does not serve is
//    answered as ApiVersions v0 with UNSUPPORTED_VERSION and the broker's
//    ApiVersions range, without reading its body;
//  - a header or body that does not parse closes the connection.
// Stateless apart from the shared, read-only services; any thread may call it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "broker/asio.h"
#include "broker/handler.h"
#include "broker/security/principal.h"
#include "broker/request_context.h"
#include "broker/response.h"
#include "broker/services.h"
#include "protocol/wire/reader.h"

namespace hw::broker {

enum class dispatch_action { handle, unsupported_api_versions, close };

struct dispatch_decision {
  dispatch_action action = dispatch_action::close;
  const api_handler* handler = nullptr;  // for handle
  std::string reason;                    // for close
};

// What to do with a request of this key and version.
dispatch_decision decide(const handler_registry& handlers, int16_t api_key, int16_t api_version);

// The ApiVersions v0 answer to an ApiVersions request of a version we do not serve.
response_frame unsupported_api_versions_response(const handler_registry& handlers, int32_t correlation_id);

// Who sent the frame; strings must outlive the dispatch.
struct connection_info {
  std::string_view listener_name;
  uint64_t id = 0;
  std::string_view name;
  security_protocol protocol = security_protocol::plaintext;
  std::string_view client_address;  // the client's IP
  const kafka_principal* principal = &kafka_principal::anonymous();
  sasl_session* sasl = nullptr;  // see request_context::sasl
};

struct dispatch_outcome {
  std::optional<response_frame> response;
  std::string close_reason;  // non-empty: close once earlier responses are written
  // A client quota's throttle: the connection reads and handles nothing
  // more for this long after the response (KIP-219).
  int32_t throttle_ms = 0;
  bool closes() const { return !close_reason.empty(); }
};

class dispatcher {
 public:
  explicit dispatcher(const broker_services& services) : services_(services) {}

  // Either an outcome that needs no handler (close, or the unsupported
  // ApiVersions answer), or the handler to run with its request context.
  struct prepared_call {
    const api_handler* handler;
    request_context context;
  };
  std::variant<dispatch_outcome, prepared_call> prepare(protocol::bytes_view frame, const connection_info& from) const;

  // prepare, then run the handler. frame must stay alive until this
  // completes. A frame given as writable lets handlers rewrite parts of it
  // in place (Produce assigns offsets inside the request's record batches).
  asio::awaitable<dispatch_outcome> dispatch(protocol::bytes_view frame, const connection_info& from) const;
  asio::awaitable<dispatch_outcome> dispatch(std::span<uint8_t> writable_frame, const connection_info& from) const;

 private:
  asio::awaitable<dispatch_outcome> run(prepared_call& call) const;
  const broker_services& services_;
};

}  // namespace hw::broker
