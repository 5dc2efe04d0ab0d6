#pragma once
// Forwarding a client's admin request to the active controller inside an
// EnvelopeRequest (key 58), as Kafka's brokers do: the controller then
// authorizes the client's principal and address, not the forwarding
// broker's (handlers/58_envelope.cc is the controller's side).
//
// Pure functions; any thread.

#include <cstdint>
#include <span>
#include <vector>

#include "broker/request_context.h"
#include "protocol/error_code.h"
#include "protocol/wire/reader.h"

namespace hw::broker {

// Whether the client's identity can travel in an envelope (its address
// is an IP address; a request without one is forwarded as it is).
bool can_envelope(const request_context& client);

// The EnvelopeRequest v0 body carrying this request (api_key at version,
// body already encoded) for the client of `client`.
std::vector<uint8_t> envelope_request_body(const request_context& client, int16_t api_key, int16_t version,
                                           std::span<const uint8_t> body);

// An EnvelopeResponse body opened: the inner response's body (after its
// header), or the envelope's error (NONE with an empty body never happens:
// a response that does not parse is UNKNOWN_SERVER_ERROR).
struct unwrapped_response {
  protocol::error_code error = protocol::error_code::none;
  std::vector<uint8_t> body;
};
unwrapped_response unwrap_envelope_response(protocol::bytes_view envelope_body, int16_t api_key, int16_t version);

}  // namespace hw::broker
