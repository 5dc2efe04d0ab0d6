#pragma once
// Kafka's listener lists ("NAME://host:port,...") and the listener name to
// security protocol map ("NAME:PROTOCOL,..."), parsed with Kafka's rules:
// names are upper-cased; a name resolves to a protocol through the map
// (whose default maps each protocol's own name to itself); an empty host
// means every interface; port 0 asks for an ephemeral port; IPv6 hosts go in
// brackets; names must be distinct, and so must non-zero ports unless the two
// listeners are on an IPv4 and an IPv6 address.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hw::config {

struct listener_endpoint {
  std::string name;               // upper case, e.g. "PLAINTEXT", "INTERNAL"
  std::string security_protocol;  // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
  std::string host;               // empty = all interfaces
  uint16_t port = 0;              // 0 = ephemeral

  // NAME://host:port, with an IPv6 host in brackets.
  std::string to_string() const;
  bool operator==(const listener_endpoint&) const = default;
};

// Listener name -> security protocol, in the order written.
using protocol_map = std::vector<std::pair<std::string, std::string>>;

// Each returns the parsed value or an error message naming the value.
std::variant<protocol_map, std::string> parse_protocol_map(std::string_view text);
std::variant<std::vector<listener_endpoint>, std::string> parse_listeners(std::string_view text,
                                                                           const protocol_map& protocols);

}  // namespace hw::config
