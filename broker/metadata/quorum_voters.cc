#include "broker/metadata/quorum_voters.h"

#include <charconv>

namespace hw::broker {

std::optional<quorum_voter> parse_quorum_voter(const std::string& entry) {
  const auto at = entry.find('@');
  const auto colon = entry.rfind(':');
  if (at == std::string::npos || colon == std::string::npos || colon < at) return std::nullopt;
  quorum_voter v;
  const char* id_end = entry.data() + at;
  auto [p, ec] = std::from_chars(entry.data(), id_end, v.id);
  if (ec != std::errc() || p != id_end || v.id < 0) return std::nullopt;
  v.host = entry.substr(at + 1, colon - at - 1);
  if (v.host.size() >= 2 && v.host.front() == '[' && v.host.back() == ']') v.host = v.host.substr(1, v.host.size() - 2);
  if (v.host.empty()) return std::nullopt;
  int port = 0;
  const char* port_begin = entry.data() + colon + 1;
  const char* port_end = entry.data() + entry.size();
  auto [q, ec2] = std::from_chars(port_begin, port_end, port);
  if (ec2 != std::errc() || q != port_end || port <= 0 || port > 65535) return std::nullopt;
  v.port = static_cast<uint16_t>(port);
  return v;
}

std::vector<quorum_voter> parse_quorum_voters(const std::vector<std::string>& entries) {
  std::vector<quorum_voter> out;
  for (const auto& e : entries)
    if (auto v = parse_quorum_voter(e)) out.push_back(std::move(*v));
  return out;
}

}  // namespace hw::broker
