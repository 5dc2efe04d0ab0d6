#pragma once
// Where a new partition's replicas go: Kafka's striped placement. Brokers
// are grouped by rack; each partition takes its first replica from the next
// rack in turn (unfenced brokers only) and the others from the following
// racks (unfenced first, then fenced), so replicas spread across racks and
// leadership across brokers. Starting offsets are random, and the lists
// are reshuffled after every broker has led once, so consecutive topics do
// not pile onto the same brokers.
//
// Errors carry Kafka 4.3's messages (InvalidReplicationFactorException).
// Pure; the random source is the caller's (seeded in tests).

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "storage/types.h"

namespace hw::controller {

using storage::node_id;

struct usable_broker {
  node_id id{-1};
  std::optional<std::string> rack;
  bool fenced = false;
};

struct placement_error {
  std::string message;
};

// num_partitions lists of replication_factor broker ids, or why not.
std::variant<std::vector<std::vector<node_id>>, placement_error> place_replicas(
    std::vector<usable_broker> brokers, int32_t num_partitions, int32_t replication_factor,
    std::mt19937_64& random);

}  // namespace hw::controller
