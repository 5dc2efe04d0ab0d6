#pragma once
// Feature flags (KIP-584) as this broker reports them in ApiVersions:
// the ranges the software supports, and the cluster's finalized levels.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hw::controller {
struct metadata_image;
}

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
// 0-1, streams.version 0-1. Kafka's share.version is left out: Highwater has
// no share groups.
std::span<const supported_feature> supported_features();

// The cluster-wide levels in force.
struct finalized_features {
  int64_t epoch = -1;  // -1: unknown
  std::vector<finalized_feature> features;
};
// Before this broker has replayed any metadata: the latest metadata.version
// at epoch 0, every other feature at level 0 (not reported, as Kafka omits
// level 0).
finalized_features bootstrap_finalized_features();
// The levels the metadata log has finalized (FeatureLevelRecords, with
// metadata.version), at the image's offset as their epoch, as Kafka's
// brokers and controllers report them; nullopt while the image has no
// metadata.version.
std::optional<finalized_features> finalized_features_of(const controller::metadata_image& image);

}  // namespace hw::broker
