#pragma once
// Feature flags (KIP-584) as this broker reports them in ApiVersions:
// the ranges the software supports, and the cluster's finalized levels.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hw::broker {

struct supported_feature {
  std::string_view name;
  int16_t min_version;
  int16_t max_version;
};

struct finalized_feature {
  std::string name;
  int16_t level;
};

// What this build can run. Ranges follow what Apache Kafka 4.3.1 reports
// (captured in tests/protocol/fixtures): metadata.version 7 (3.3-IV3, the
// oldest Kafka 4.x accepts) to 30 (4.3-IV0), kraft.version 0-1,
// transaction.version 0-2, group.version 0-1, eligible.leader.replicas.version
// 0-1. Kafka's share.version and streams.version are left out: Highwater has
// no share or streams groups.
std::span<const supported_feature> supported_features();

// The cluster-wide levels in force. Until the controller and the metadata
// log own them, a single node runs at the latest metadata.version, epoch 0,
// with every other feature at level 0 (not reported, as Kafka omits level 0).
struct finalized_features {
  int64_t epoch = -1;  // -1: unknown
  std::vector<finalized_feature> features;
};
finalized_features bootstrap_finalized_features();

}  // namespace hw::broker
