#pragma once
// metadata.version (the "metadata.version" feature level) and what it decides
// about the records a controller writes: which record versions, and whether
// ELR and directory assignment are in use. Levels are Kafka's
// (MetadataVersion.featureLevel()); Kafka 4.3.1 knows 7 (3.3-IV3) to 31
// (4.4-IV0, not production) and formats new clusters at 30 (4.3-IV0).
//
// Pure values; usable anywhere.

#include <cstdint>
#include <optional>
#include <string_view>

namespace hw::controller {

struct metadata_version {
  int16_t level = 0;

  static constexpr std::string_view feature_name = "metadata.version";

  auto operator<=>(const metadata_version&) const = default;

  bool elr_supported() const { return level >= 23; }                  // 4.0-IV1
  bool directory_assignment_supported() const { return level >= 17; }  // 3.7-IV2
  bool cordoned_log_dirs_supported() const { return level >= 30; }     // 4.3-IV0
  bool controller_registration_supported() const { return level >= 15; }  // 3.7-IV0
  bool scram_supported() const { return level >= 11; }                 // 3.5-IV2 (KIP-554 records)
  bool delegation_token_supported() const { return level >= 14; }     // 3.6-IV2

  int16_t register_broker_record_version() const {
    if (cordoned_log_dirs_supported()) return 4;
    if (directory_assignment_supported()) return 3;
    if (level >= 8) return 2;  // 3.4-IV0
    return 1;
  }
  int16_t partition_record_version() const {
    if (elr_supported()) return 2;
    if (directory_assignment_supported()) return 1;
    return 0;
  }
  int16_t partition_change_record_version() const { return partition_record_version(); }

  // "4.3-IV0" for 30; empty for a level Kafka 4.3.1 does not know.
  std::string_view name() const;
  static std::optional<metadata_version> from_name(std::string_view name);
};

inline constexpr metadata_version minimum_metadata_version{7};      // 3.3-IV3
inline constexpr metadata_version latest_production_metadata_version{30};  // 4.3-IV0
inline constexpr metadata_version latest_testing_metadata_version{31};     // 4.4-IV0

}  // namespace hw::controller
