#pragma once
// The SASL exchange of one connection on a SASL_PLAINTEXT or SASL_SSL
// listener, with Kafka's rules (SaslServerAuthenticator):
//   - before authentication only ApiVersions (once, first), SaslHandshake
//     and then SaslAuthenticate are taken; any other request closes the
//     connection (Kafka's IllegalSaslStateException);
//   - SaslHandshake names a mechanism: an enabled one is answered NONE with
//     the enabled list and its server side is made; any other is answered
//     UNSUPPORTED_SASL_MECHANISM with the list, and the connection fails;
//   - SaslAuthenticate (after a v1 handshake) or, after a v0 handshake, raw
//     size-prefixed tokens carry the mechanism's messages; a failure is
//     answered SASL_AUTHENTICATION_FAILED with Kafka's text and fails the
//     connection (closed after connection.failed.authentication.delay.ms);
//   - once the mechanism completes, the connection's principal is
//     User:<name> and every request is taken.
// Pure: the caller decodes the requests, encodes the answers and closes.
//
// Owner/thread: its connection, on the connection's strand.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "broker/security/principal.h"
#include "broker/security/sasl_server.h"
#include "protocol/error_code.h"

namespace hw::broker {

class sasl_session {
 public:
  enum class state { handshake_or_versions, handshake, authenticate, complete, failed };
  // The server side of an enabled mechanism, for one connection.
  using server_factory = std::function<std::unique_ptr<sasl_server>(const std::string& mechanism)>;

  sasl_session(std::vector<std::string> enabled_mechanisms, server_factory make_server);

  state current() const { return state_; }
  bool authenticated() const { return state_ == state::complete; }
  // User:<name> once authenticated, User:ANONYMOUS before.
  const kafka_principal& principal() const { return principal_; }
  const std::string& mechanism() const { return mechanism_; }
  // A v0 handshake: the tokens that follow come raw, without SaslAuthenticate.
  bool raw_tokens() const { return state_ == state::authenticate && handshake_version_ == 0; }

  // Whether a request with this API key may be handled now. A refusal
  // closes the connection; `why` says so for the log.
  bool admit(int16_t api_key, std::string* why);

  struct handshake_answer {
    protocol::error_code error = protocol::error_code::none;
    std::vector<std::string> mechanisms;  // the enabled ones, either way
  };
  handshake_answer handshake(const std::string& mechanism, int16_t version);

  struct authenticate_answer {
    protocol::error_code error = protocol::error_code::none;
    std::string error_message;        // Kafka's text, on failure
    std::vector<uint8_t> auth_bytes;  // the mechanism's challenge or final message
    std::string log_reason;           // on failure, for the broker's log
    bool close_unanswered = false;    // on failure: no answer, the connection closes now
  };
  authenticate_answer authenticate(std::span<const uint8_t> auth_bytes);

 private:
  std::vector<std::string> enabled_;
  server_factory make_server_;
  state state_ = state::handshake_or_versions;
  int16_t handshake_version_ = 1;
  std::string mechanism_;
  std::unique_ptr<sasl_server> server_;
  kafka_principal principal_;
};

}  // namespace hw::broker
