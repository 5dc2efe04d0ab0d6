#pragma once
// Which replica a consumer should fetch from (KIP-392), as Kafka's
// RackAwareReplicaSelector decides it: with a client.rack, the leader when
// it is in that rack or no replica is; else the most caught-up replica in
// the rack (largest log end, then the most recently caught up). The leader
// offers only ISR members that hold the fetch offset. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hw::broker {

struct replica_view {
  int32_t id = -1;
  std::optional<std::string> rack;
  int64_t log_end = 0;
  int64_t since_caught_up_ms = 0;  // 0 for the leader
};

// The id of the replica to read from (the leader's when it should be).
int32_t select_rack_aware(std::string_view client_rack, const replica_view& leader,
                          const std::vector<replica_view>& followers);

}  // namespace hw::broker
