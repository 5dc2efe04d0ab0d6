#include "broker/metadata/quorum_voters.h"

#include <charconv>

namespace hw::broker {

std::optional<quorum_voter> parse_host_port(std::string_view entry) {
  const auto colon = entry.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  quorum_voter v;
  v.host = std::string(entry.substr(0, colon));
  if (v.host.size() >= 2 && v.host.front() == '[' && v.host.back() == ']') v.host = v.host.substr(1, v.host.size() - 2);
  if (v.host.empty()) return std::nullopt;
  int port = 0;
  const char* port_end = entry.data() + entry.size();
  auto [q, ec] = std::from_chars(entry.data() + colon + 1, port_end, port);
  if (ec != std::errc() || q != port_end || port <= 0 || port > 65535) return std::nullopt;
  v.port = static_cast<uint16_t>(port);
  return v;
}

std::optional<quorum_voter> parse_quorum_voter(const std::string& entry) {
  const auto at = entry.find('@');
  if (at == std::string::npos) return std::nullopt;
  int32_t id = -1;
  const char* id_end = entry.data() + at;
  auto [p, ec] = std::from_chars(entry.data(), id_end, id);
  if (ec != std::errc() || p != id_end || id < 0) return std::nullopt;
  auto v = parse_host_port(std::string_view(entry).substr(at + 1));
  if (v) v->id = id;
  return v;
}

std::vector<quorum_voter> parse_quorum_voters(const std::vector<std::string>& entries) {
  std::vector<quorum_voter> out;
  for (const auto& e : entries)
    if (auto v = parse_quorum_voter(e)) out.push_back(std::move(*v));
  return out;
}

}  // namespace hw::broker
