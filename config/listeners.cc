#include "config/listeners.h"

#include <algorithm>
#include <charconv>
#include <regex>

#include "config/value_parse.h"

namespace hw::config {
namespace {

bool is_security_protocol(std::string_view p) {
  return p == "PLAINTEXT" || p == "SSL" || p == "SASL_PLAINTEXT" || p == "SASL_SSL";
}

bool is_ipv4_literal(std::string_view h) {
  static const std::regex re(R"(^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(h.begin(), h.end(), m, re)) return false;
  for (size_t i = 1; i <= 4; ++i)
    if (std::stoi(m[i].str()) > 255) return false;
  return true;
}
bool is_ipv6_literal(std::string_view h) { return h.find(':') != std::string_view::npos; }

}  // namespace

std::string listener_endpoint::to_string() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return name + "://" + h + ":" + std::to_string(port);
}

std::variant<protocol_map, std::string> parse_protocol_map(std::string_view text) {
  protocol_map map;
  for (std::string_view item : csv(text)) {
    size_t colon = item.find(':');
    if (colon == std::string_view::npos || item.find(':', colon + 1) != std::string_view::npos)
      return "Invalid value " + std::string(text) +
             " for configuration listener.security.protocol.map: entry '" + std::string(item) +
             "' is not of the form NAME:PROTOCOL";
    std::string name = upper(trim(item.substr(0, colon)));
    std::string proto = upper(trim(item.substr(colon + 1)));
    if (!is_security_protocol(proto))
      return "Invalid value " + std::string(text) + " for configuration listener.security.protocol.map: " +
             "unknown security protocol " + proto + " (expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)";
    auto same = [&](const auto& e) { return e.first == name; };
    if (auto it = std::find_if(map.begin(), map.end(), same); it != map.end())
      it->second = proto;
    else
      map.emplace_back(std::move(name), std::move(proto));
  }
  return map;
}

std::variant<std::vector<listener_endpoint>, std::string> parse_listeners(std::string_view text,
                                                                           const protocol_map& protocols) {
  // Kafka's pattern: NAME://host:port, host optionally in brackets.
  static const std::regex re(R"(^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$)");
  std::vector<listener_endpoint> out;
  for (std::string_view entry : csv(text)) {
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(entry.begin(), entry.end(), m, re))
      return "Unable to parse " + std::string(entry) + " to a broker endpoint";
    listener_endpoint ep;
    ep.name = upper(m[1].str());
    ep.host = m[2].str();
    std::string port_text = m[3].str();
    int port = -1;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535)
      return "Invalid port " + port_text + " in listener " + std::string(entry) + ": must be between 0 and 65535";
    ep.port = static_cast<uint16_t>(port);
    auto it = std::find_if(protocols.begin(), protocols.end(), [&](const auto& e) { return e.first == ep.name; });
    if (it == protocols.end()) return "No security protocol defined for listener " + ep.name;
    ep.security_protocol = it->second;
    out.push_back(std::move(ep));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    for (size_t j = i + 1; j < out.size(); ++j) {
      if (out[i].name == out[j].name)
        return "Each listener must have a different name, listeners: " + std::string(text);
      if (out[i].port != 0 && out[i].port == out[j].port) {
        bool v4v6 = (is_ipv4_literal(out[i].host) && is_ipv6_literal(out[j].host)) ||
                    (is_ipv6_literal(out[i].host) && is_ipv4_literal(out[j].host));
        if (!v4v6) return "Each listener must have a different port, listeners: " + std::string(text);
      }
    }
  }
  return out;
}

}  // namespace hw::config
