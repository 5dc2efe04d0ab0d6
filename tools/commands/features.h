#pragma once
// kafka-features.sh (Kafka's FeatureCommand): describe from ApiVersions'
// supported and finalized features; upgrade, downgrade and disable through
// UpdateFeatures (sent to the controller, as Kafka's admin client routes
// it); version-mapping and feature-dependencies from Kafka 4.3.1's static
// tables (feature_levels.h). The pure parts are here for the unit tests.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tools/cli/argparse.h"
#include "tools/commands/command.h"

namespace hw::protocol::msg {
struct api_versions_response;
}

namespace hw::tools {

cli::arg_parser features_parser();

// FeatureCommand.levelToString: metadata.version levels by name ("4.3-IV0",
// "UNKNOWN 99"), other features' as numbers.
std::string feature_level_string(std::string_view feature, int16_t level);

// describe's lines, features sorted by name:
// "Feature: %-40s  SupportedMinVersion: %-15s  ... Epoch: 9".
std::string format_feature_describe(const protocol::msg::api_versions_response& resp);

// FeatureCommand.parseNameAndLevel of "name=level"; false with Kafka's
// message ("Can't parse feature=level string x: equals sign not found.").
bool parse_feature_level(const std::string& input, std::string* name, int16_t* level, std::string* error);

enum class update_kind : int8_t { upgrade = 1, safe_downgrade = 2, unsafe_downgrade = 3 };

// The features an upgrade, downgrade or disable asks for, by name, from the
// command line as FeatureCommand reads it; false with Kafka's message.
// Lines FeatureCommand prints before it fails or sends (the --metadata
// deprecation notice) go to *notice.
bool feature_updates_from(const std::string& op, const cli::arg_values& v, std::map<std::string, int16_t>* updates,
                          std::string* notice, std::string* error);

// What FeatureCommand prints for the outcome of each update (sorted by
// name), and how many failed. failures maps a feature to its error message.
std::string format_update_results(const std::string& op, const std::map<std::string, int16_t>& updates,
                                  const std::map<std::string, std::string>& failures, bool dry_run);

// feature-dependencies as kafka-features.sh prints it; false with its message.
bool feature_dependencies_text(const std::vector<std::string>& features, std::string* out, std::string* error);

}  // namespace hw::tools
