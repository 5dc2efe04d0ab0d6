#pragma once
// The server side of one OAUTHBEARER exchange, as Kafka's
// OAuthBearerSaslServer answers it: the client's first message (RFC 7628
// framing) carries a token, which the listener's validator checks (the
// unsecured one, or signed tokens against the identity provider's keys).
// A good token completes the login as User:<its principal>, lasting no
// longer than the token; a refused one is answered with a JSON error
// challenge ({"status":"invalid_token"}) that does not end the exchange:
// the client acknowledges it with 0x01 and is then refused with that JSON
// as the message (or sends another first message). An authorization id
// other than the token's principal is refused with Kafka's text; a message
// that does not parse with the generic failure. Extensions are accepted
// (both of Kafka's validators accept every one).
//
// Owner/thread: the connection's authenticator, on its strand. Tokens are
// secrets: nothing here logs or quotes one.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "broker/security/sasl_server.h"
#include "protocol/sasl/oauthbearer.h"

namespace hw::broker {

class oauthbearer_server final : public sasl_server {
 public:
  using validator = std::function<protocol::oauthbearer::validation(std::string_view token)>;

  explicit oauthbearer_server(validator validate) : validate_(std::move(validate)) {}

  sasl_step evaluate(std::span<const uint8_t> response) override;
  bool complete() const override { return complete_; }
  const std::string& user() const override { return user_; }
  std::optional<int64_t> credential_expiry_ms() const override {
    return complete_ ? std::optional<int64_t>(expiry_ms_) : std::nullopt;
  }
  const std::map<std::string, std::string>& extensions() const { return extensions_; }

 private:
  validator validate_;
  bool complete_ = false;
  std::string user_;
  int64_t expiry_ms_ = 0;
  std::optional<std::string> error_;  // the challenge last sent, until the client acknowledges it
  std::string error_reason_;          // why, for the log
  std::map<std::string, std::string> extensions_;
};

}  // namespace hw::broker
