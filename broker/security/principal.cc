#include "broker/security/principal.h"

#include <array>
#include <utility>

namespace hw::broker {

namespace {

constexpr std::array<std::pair<std::string_view, security_protocol>, 4> kProtocols{{
    {"PLAINTEXT", security_protocol::plaintext},
    {"SSL", security_protocol::ssl},
    {"SASL_PLAINTEXT", security_protocol::sasl_plaintext},
    {"SASL_SSL", security_protocol::sasl_ssl},
}};

}  // namespace

std::optional<security_protocol> parse_security_protocol(std::string_view name) {
  for (const auto& [text, p] : kProtocols) {
    if (text == name) return p;
  }
  return std::nullopt;
}

std::string_view security_protocol_name(security_protocol p) {
  for (const auto& [text, q] : kProtocols) {
    if (q == p) return text;
  }
  return "UNKNOWN";
}

const kafka_principal& kafka_principal::anonymous() {
  static const kafka_principal principal;
  return principal;
}

}  // namespace hw::broker
