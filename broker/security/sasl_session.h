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
//     User:<name> and every request is taken; with connections.max.reauth.ms
//     set for the mechanism the login lasts that long (session_lifetime_ms,
//     told to the client in SaslAuthenticate v1+).
// Re-authentication (KIP-368): a session made for it (reauthenticating())
// takes a SaslHandshake first (no ApiVersions); a mechanism other than the
// first login's is answered NONE, then the exchange fails unanswered, and a
// login that completes as another principal fails with Kafka's text.
// Pure: the caller decodes the requests, encodes the answers and closes.
//
// Owner/thread: its connection, on the connection's strand.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

  // max_reauth_ms: connections.max.reauth.ms by mechanism, for those that set one.
  sasl_session(std::vector<std::string> enabled_mechanisms, server_factory make_server,
               std::map<std::string, int64_t> max_reauth_ms = {});

  // Makes this a re-authentication of a connection that logged in with
  // `mechanism` as `principal`.
  void reauthenticating(const std::string& mechanism, const kafka_principal& principal);
  bool is_reauthentication() const { return previous_.has_value(); }

  state current() const { return state_; }
  bool authenticated() const { return state_ == state::complete; }
  // User:<name> once authenticated, User:ANONYMOUS before.
  const kafka_principal& principal() const { return principal_; }
  const std::string& mechanism() const { return mechanism_; }
  // Once complete: how long the login lasts, in ms (0: for ever).
  int64_t session_lifetime_ms() const { return lifetime_ms_; }
  // Whether the login ends (after session_lifetime_ms(), which may be 0).
  bool session_expires() const { return expires_; }
  // Once complete: why no principal could be made of the authenticated name
  // (the connection closes at its next request, unanswered, as Kafka's does).
  const std::optional<std::string>& principal_error() const { return principal_error_; }
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
  struct previous_login {
    std::string mechanism;
    kafka_principal principal;
  };
  std::vector<std::string> enabled_;
  server_factory make_server_;
  std::map<std::string, int64_t> max_reauth_ms_;
  std::optional<previous_login> previous_;
  bool bad_mechanism_ = false;  // re-authentication asked for another mechanism
  int64_t lifetime_ms_ = 0;
  bool expires_ = false;
  state state_ = state::handshake_or_versions;
  int16_t handshake_version_ = 1;
  std::string mechanism_;
  std::unique_ptr<sasl_server> server_;
  kafka_principal principal_;
  std::optional<std::string> principal_error_;
};

}  // namespace hw::broker
