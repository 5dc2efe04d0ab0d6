#pragma once
// Kafka 4.3.1's metadata versions and feature versions, as static facts
// (MetadataVersion, Feature and the *Version enums of server-common): what
// kafka-features.sh and kafka-storage.sh print for version-mapping and
// feature-dependencies and check --release-version / --feature against.
// The broker keeps its own copy in controller/metadata/metadata_version.h,
// which the tools may not include.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hw::tools {

struct metadata_version_info {
  int16_t level;
  std::string_view name;     // "4.3-IV0"
  std::string_view release;  // "4.3"
};

// Every metadata.version Kafka 4.3.1 knows, oldest first: 7 (3.3-IV3) to
// 31 (4.4-IV0, not production).
std::span<const metadata_version_info> metadata_versions();
inline constexpr int16_t minimum_metadata_level = 7;             // 3.3-IV3
inline constexpr int16_t latest_production_metadata_level = 30;  // 4.3-IV0
inline constexpr int16_t latest_testing_metadata_level = 31;     // 4.4-IV0

const metadata_version_info* metadata_version_by_level(int16_t level);
// MetadataVersion.fromVersionString: "4.3-IV0", or "4.3" for the newest
// production version of that release, or "3.7.1" read as "3.7"; nullptr
// for one it does not know (or, unless allow_unstable, one past the latest
// production version).
const metadata_version_info* metadata_version_from_string(std::string_view text, bool allow_unstable);
// Kafka's message when it does not: "Unknown metadata.version '9.9'.
// Supported metadata.version are: 3.3-IV3, ..., 4.3-IV0".
std::string unknown_metadata_version_message(std::string_view text, bool allow_unstable);
// "3.3-IV3, 3.4-IV0, ..." from first to last level inclusive.
std::string metadata_versions_between(int16_t first, int16_t last);

struct feature_version_info {
  int16_t level;
  int16_t bootstrap_metadata_level;  // the first metadata.version it is the default of
  std::vector<std::pair<std::string, int16_t>> dependencies;
};

struct feature_info {
  std::string_view name;
  std::vector<feature_version_info> versions;  // every level, lowest first
  int16_t latest_production;
  // The level a new cluster at this metadata.version gets.
  int16_t default_level(int16_t metadata_level) const;
  // Feature.fromFeatureLevel: nullptr when the level is unknown (or, unless
  // allow_unstable, beyond the latest production one).
  const feature_version_info* version(int16_t level, bool allow_unstable) const;
};

// Feature.PRODUCTION_FEATURES in Kafka's order: kraft.version,
// transaction.version, group.version, eligible.leader.replicas.version,
// share.version, streams.version.
const std::vector<feature_info>& production_features();
const feature_info* feature_by_name(std::string_view name);

// version-mapping's output for a metadata.version, as given on the command
// line: "metadata.version=30 (4.3-IV0)", then one "name=level" per feature.
std::string version_mapping_text(const metadata_version_info& version, std::string_view as_given);

// feature-dependencies' lines for one feature level, headed `head`
// ("name=level"): "head has no dependencies." or "head requires:" then one
// indented "dep=level" per dependency (metadata.version with its name).
std::string dependencies_text(const std::string& head, const feature_version_info& version);

// Short.parseShort: optional sign, decimal digits, in range.
std::optional<int16_t> java_parse_short(std::string_view text);

}  // namespace hw::tools
