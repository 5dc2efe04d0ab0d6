#pragma once
// The replication vocabulary (the strong types of storage/types.h, which
// the controller's image uses too), and a partition's place in the cluster
// as the metadata log gives it.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "storage/types.h"

namespace hw::broker {

using storage::broker_epoch;
using storage::leader_epoch;
using storage::node_id;
using storage::offset;

using storage::partition_epoch;

inline constexpr node_id no_node{-1};

// A partition's place in the cluster, from its metadata registration.
struct partition_role {
  node_id leader = no_node;
  storage::leader_epoch leader_epoch{-1};
  broker::partition_epoch partition_epoch{-1};
  std::vector<node_id> replicas;
  std::vector<node_id> isr;

  bool is_replica(node_id n) const;
  bool in_isr(node_id n) const;
};

// A registered broker as a partition leader needs to know it (from the
// metadata image).
struct broker_status {
  broker_epoch epoch{-1};
  bool fenced = false;
  bool shutting_down = false;  // in controlled shutdown
};
// nullopt: not registered.
using broker_lookup = std::function<std::optional<broker_status>(node_id)>;

inline bool partition_role::is_replica(node_id n) const {
  for (node_id r : replicas)
    if (r == n) return true;
  return false;
}

inline bool partition_role::in_isr(node_id n) const {
  for (node_id r : isr)
    if (r == n) return true;
  return false;
}

}  // namespace hw::broker
