#pragma once
// controller.quorum.voters ("id@host:port,...", Kafka's static voter set)
// parsed into endpoints, for what a node reports of its quorum
// (DescribeQuorum's nodes, DescribeCluster on a controller listener).
// Pure; any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hw::broker {

struct quorum_voter {
  int32_t id = -1;
  std::string host;  // without IPv6 brackets
  uint16_t port = 0;
};

// One entry; nothing when it is not "id@host:port" with a valid port.
std::optional<quorum_voter> parse_quorum_voter(const std::string& entry);
// Every valid entry, in order.
std::vector<quorum_voter> parse_quorum_voters(const std::vector<std::string>& entries);

}  // namespace hw::broker
