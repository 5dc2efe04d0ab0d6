#pragma once
// The server side of one PLAIN exchange (RFC 4616), as Kafka's
// PlainSaslServer answers it: one message "[authzid] NUL user NUL password",
// checked against the passwords the listener's JAAS configuration names
// (`user_<name>="<password>"`), compared in constant time. Kafka tells the
// client why PLAIN failed (malformed, no user, no password, wrong user or
// password, an authorization id other than the user), never which of user
// and password was wrong.
//
// Owner/thread: the connection's authenticator, on its strand.

#include <functional>
#include <optional>
#include <string>

#include "broker/security/sasl_server.h"

namespace hw::broker {

class plain_server final : public sasl_server {
 public:
  // The password configured for a user; none when the user is unknown.
  using password_lookup = std::function<std::optional<std::string>(const std::string& user)>;

  explicit plain_server(password_lookup passwords) : passwords_(std::move(passwords)) {}

  sasl_step evaluate(std::span<const uint8_t> response) override;
  bool complete() const override { return complete_; }
  const std::string& user() const override { return user_; }

 private:
  password_lookup passwords_;
  bool complete_ = false;
  bool used_ = false;
  std::string user_;
};

}  // namespace hw::broker
