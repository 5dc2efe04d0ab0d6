#pragma once
// controller.quorum.voters ("id@host:port,...", Kafka's static voter set)
// and controller.quorum.bootstrap.servers ("host:port,...") parsed into
// endpoints: where the raft driver connects, and what a node reports of its
// quorum (DescribeQuorum's nodes, DescribeCluster on a controller listener).
// Pure; any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hw::broker {

struct quorum_voter {
  int32_t id = -1;
  std::string host;  // without IPv6 brackets
  uint16_t port = 0;
  bool operator==(const quorum_voter&) const = default;
};

// "host:port" (an IPv6 host in brackets; the id left -1), as in
// controller.quorum.bootstrap.servers; nothing when malformed.
std::optional<quorum_voter> parse_host_port(std::string_view entry);
// One entry; nothing when it is not "id@host:port" with a valid port.
std::optional<quorum_voter> parse_quorum_voter(const std::string& entry);
// Every valid entry, in order.
std::vector<quorum_voter> parse_quorum_voters(const std::vector<std::string>& entries);

}  // namespace hw::broker
