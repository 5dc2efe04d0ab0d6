#pragma once
// The server side of one SASL mechanism for one connection: the client's
// tokens go in (SaslAuthenticate's auth_bytes, or a v0 raw token), a
// challenge or a verdict comes out. A failure carries what the client is
// told apart from why it failed: Kafka answers most failures with one text
// that names only the mechanism (so that nobody learns whether a user
// exists), and a few with their own (a PLAIN token that does not parse, an
// authorization id that is not the user). The reason is for the broker's
// log and never holds a secret.
//
// Owner/thread: the connection's authenticator, on the connection's strand.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hw::broker {

struct sasl_step {
  bool failed = false;
  // The next challenge (or, once complete, the final server message; PLAIN
  // sends none).
  std::vector<uint8_t> token;
  // On failure: Kafka's own text for this failure, or none for Kafka's
  // generic "Authentication failed during authentication due to invalid
  // credentials with SASL mechanism <M>".
  std::optional<std::string> client_message;
  // On failure: why, for the broker's log (no secret).
  std::string reason;
  // On failure: the connection closes at once, unanswered, where Kafka's
  // mechanism throws something other than an authentication failure.
  bool close_unanswered = false;

  static sasl_step challenge(std::vector<uint8_t> t) { return {false, std::move(t), std::nullopt, {}, false}; }
  static sasl_step fail(std::string why, std::optional<std::string> told = std::nullopt) {
    return {true, {}, std::move(told), std::move(why), false};
  }
  static sasl_step abort(std::string why) { return {true, {}, std::nullopt, std::move(why), true}; }
};

class sasl_server {
 public:
  virtual ~sasl_server() = default;
  virtual sasl_step evaluate(std::span<const uint8_t> response) = 0;
  virtual bool complete() const = 0;
  // The authenticated user (the principal's name); empty until complete().
  virtual const std::string& user() const = 0;
  // When the credential the client logged in with expires (epoch
  // milliseconds), for mechanisms whose credentials do (an OAUTHBEARER
  // token): the login then lasts no longer.
  virtual std::optional<int64_t> credential_expiry_ms() const { return std::nullopt; }
  // Whether the login used a delegation token (its principal is the token's
  // owner, marked token-authenticated).
  virtual bool token_authenticated() const { return false; }
  // Once complete: why no principal can be made of the authenticated name
  // (a Kerberos name no rule maps), if so. Kafka answers such a login as a
  // success, then closes the connection at its next request.
  virtual std::optional<std::string> principal_error() const { return std::nullopt; }
};

// Kafka's generic failure text for mechanism `mechanism`.
inline std::string sasl_generic_failure(const std::string& mechanism, bool reauthentication = false) {
  return std::string("Authentication failed during ") + (reauthentication ? "re-authentication" : "authentication") +
         " due to invalid credentials with SASL mechanism " + mechanism;
}

}  // namespace hw::broker
