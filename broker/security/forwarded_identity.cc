#include "broker/security/forwarded_identity.h"

#include <boost/asio/ip/address.hpp>

#include <cstdio>

#include "protocol/messages/principal_data.h"
#include "protocol/wire/writer.h"

namespace hw::broker {

namespace {

constexpr int16_t k_principal_data_version = 0;

}  // namespace

std::vector<uint8_t> serialize_principal(const kafka_principal& principal) {
  protocol::msg::default_principal_data data;
  data.type = principal.type();
  data.name = principal.name();
  data.token_authenticated = principal.token_authenticated();
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int16(k_principal_data_version);
  data.encode(w, k_principal_data_version);
  return out;
}

std::optional<kafka_principal> deserialize_principal(protocol::bytes_view bytes) {
  protocol::reader r(bytes);
  const int16_t version = r.read_int16();
  if (!r.ok() || version != k_principal_data_version) return std::nullopt;
  protocol::msg::default_principal_data data;
  data.decode(r, version);
  if (!r.ok() || data.type.empty()) return std::nullopt;
  kafka_principal out(data.type, data.name);
  out.set_token_authenticated(data.token_authenticated);
  return out;
}

std::vector<uint8_t> address_bytes(std::string_view text) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(text), ec);
  if (ec) return {};
  if (address.is_v4()) {
    const auto b = address.to_v4().to_bytes();
    return {b.begin(), b.end()};
  }
  const auto b = address.to_v6().to_bytes();
  return {b.begin(), b.end()};
}

std::optional<std::string> address_text(protocol::bytes_view bytes) {
  if (bytes.size() == 4) {
    return std::to_string(bytes[0]) + "." + std::to_string(bytes[1]) + "." + std::to_string(bytes[2]) + "." +
           std::to_string(bytes[3]);
  }
  if (bytes.size() != 16) return std::nullopt;
  // As Java's Inet6Address.getHostAddress writes it (and the connection
  // names its client): eight groups in hex, none compressed.
  std::string out;
  char group[8];
  for (size_t i = 0; i < 16; i += 2) {
    std::snprintf(group, sizeof group, "%x", (unsigned(bytes[i]) << 8) | bytes[i + 1]);
    if (i) out += ':';
    out += group;
  }
  return out;
}

}  // namespace hw::broker
