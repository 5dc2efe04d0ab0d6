#pragma once
// Who sent a request, as Kafka names it: the listener's security protocol
// and the authenticated principal. Until authentication lands every
// connection is PLAINTEXT and its principal User:ANONYMOUS, as Kafka's
// PLAINTEXT listeners have it; authorization asks about this principal.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hw::broker {

// Kafka's SecurityProtocol, with its ids (as RegisterBrokerRecord carries them).
enum class security_protocol : int16_t { plaintext = 0, ssl = 1, sasl_plaintext = 2, sasl_ssl = 3 };

// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL" (exact, upper case).
std::optional<security_protocol> parse_security_protocol(std::string_view name);
std::string_view security_protocol_name(security_protocol p);

// Kafka's KafkaPrincipal: a type ("User", "Group", ...) and a name.
struct kafka_principal {
  std::string type = "User";
  std::string name = "ANONYMOUS";

  static const kafka_principal& anonymous();
  // "User:alice", the form ACLs and logs use.
  std::string to_string() const { return type + ":" + name; }
  bool operator==(const kafka_principal&) const = default;
};

}  // namespace hw::broker
