#pragma once
// A listener after binding: its name, security protocol, configured host
// and the port it really got (0 in the config means any free port). The
// front door (listener/server) makes them; the broker's registration
// announces them.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "broker/security/principal.h"

namespace hw::broker {

struct bound_listener {
  std::string name;
  security_protocol protocol = security_protocol::plaintext;
  std::string host;  // as configured; empty = all interfaces
  uint16_t port = 0;

  // NAME://host:port, an IPv6 host in brackets.
  std::string to_string() const {
    std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return name + "://" + h + ":" + std::to_string(port);
  }
};

// An advertised endpoint as registrations announce it: a port of 0 becomes
// the port bound for that listener, an empty host the bound host, and a
// host still empty or a wildcard becomes localhost.
inline std::pair<std::string, uint16_t> announced_endpoint(const std::string& listener, std::string host, uint16_t port,
                                                           const std::vector<bound_listener>& bound) {
  for (const auto& b : bound) {
    if (b.name != listener) continue;
    if (port == 0) port = b.port;
    if (host.empty()) host = b.host;
  }
  if (host.empty() || host == "0.0.0.0" || host == "::") host = "localhost";
  return {std::move(host), port};
}

}  // namespace hw::broker
