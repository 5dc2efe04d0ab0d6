#pragma once
// A listener after binding: its name, security protocol, configured host
// and the port it really got (0 in the config means any free port). The
// front door (listener/server) makes them; the broker's registration
// announces them.

#include <cstdint>
#include <string>

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

}  // namespace hw::broker
