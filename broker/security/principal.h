#pragma once
// Who sent a request, as Kafka names it: the listener's security protocol
// and the authenticated principal. Until authentication lands every
// connection is PLAINTEXT and its principal User:ANONYMOUS, as Kafka's
// PLAINTEXT listeners have it; authorization asks about this principal.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hw::broker {

// Kafka's SecurityProtocol, with its ids (as RegisterBrokerRecord carries them).
enum class security_protocol : int16_t { plaintext = 0, ssl = 1, sasl_plaintext = 2, sasl_ssl = 3 };

// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL" (exact, upper case).
std::optional<security_protocol> parse_security_protocol(std::string_view name);
std::string_view security_protocol_name(security_protocol p);

// Kafka's KafkaPrincipal: a type ("User", "Group", ...) and a name, with
// the "Type:name" text ACLs and logs use built once, as every authorized
// request asks for it.
class kafka_principal {
 public:
  kafka_principal() : kafka_principal("User", "ANONYMOUS") {}
  kafka_principal(std::string type, std::string name)
      : type_(std::move(type)), name_(std::move(name)), text_(type_ + ":" + name_) {}

  static const kafka_principal& anonymous();
  const std::string& type() const { return type_; }
  const std::string& name() const { return name_; }
  // "User:alice".
  const std::string& to_string() const { return text_; }
  bool operator==(const kafka_principal& o) const { return text_ == o.text_ && type_ == o.type_; }
  // Logged in with a delegation token (SCRAM with tokenauth=true): such a
  // principal may not ask for, renew or expire tokens. Not part of equality,
  // as in Kafka.
  bool token_authenticated() const { return token_authenticated_; }
  void set_token_authenticated(bool v) { token_authenticated_ = v; }

 private:
  std::string type_;
  std::string name_;
  std::string text_;
  bool token_authenticated_ = false;
};

}  // namespace hw::broker
