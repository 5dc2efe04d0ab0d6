#pragma once
// What a handler gets for one request. Views point into the request frame,
// which the connection keeps alive until the handler's coroutine finishes.
// A handler starts on its connection's strand.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "broker/security/principal.h"
#include "protocol/wire/reader.h"

namespace hw::broker {

struct broker_services;
class sasl_session;

struct request_context {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string_view> client_id;  // nullopt: null on the wire
  protocol::bytes_view body;                  // the request body after the header
  // The whole frame, writable, when the connection lends it (else empty):
  // views into body can be located in it to be rewritten in place.
  std::span<uint8_t> writable_frame;
  int16_t response_header_version = 0;        // for encode_response

  // Who sent it: the listener it came in on, that listener's security
  // protocol, the client's IP address (as ACLs match hosts) and the
  // principal its connection authenticated as (never null).
  std::string_view listener_name;  // e.g. "PLAINTEXT"
  security_protocol protocol = security_protocol::plaintext;
  std::string_view client_address;
  const kafka_principal* principal = &kafka_principal::anonymous();
  uint64_t connection_id = 0;
  std::string_view connection_name;  // Kafka-style "local-remote-n", for logs
  // The connection's SASL exchange on a SASL listener until it completes
  // (SaslHandshake and SaslAuthenticate drive it); null on other listeners
  // and once authenticated.
  sasl_session* sasl = nullptr;
  // Came in an EnvelopeRequest from a broker (the client's principal and
  // address are the envelope's).
  bool forwarded = false;

  const broker_services* services = nullptr;
  // Set by the Fetch handler for a replica's fetch (metrics count it as
  // FetchFollower).
  bool from_follower = false;

  // Client quotas (broker/quota/README.md). The time the request spent
  // parked (a fetch's wait for data, a produce's wait for acks, a call to
  // the controller) is not handling time: handlers that park add it here,
  // and the request quota counts the rest.
  mutable int64_t parked_ns = 0;  // parked time is added from const views too
  // When the handler started, and the request's size (header and body).
  std::chrono::steady_clock::time_point started;
  size_t request_bytes = 0;
  // Set by a handler that measured the request quota itself (Produce and
  // Fetch fold it into their own throttle); the dispatcher does it for the
  // others.
  bool request_quota_recorded = false;
  // How long the connection stays muted after this response (KIP-219):
  // the throttle its quotas gave it and counted (helpers that see the
  // request only as const raise it too, hence mutable).
  mutable int32_t throttle_ms = 0;
};

}  // namespace hw::broker
