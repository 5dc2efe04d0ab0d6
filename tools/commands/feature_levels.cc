#include "tools/commands/feature_levels.h"

#include <array>
#include <charconv>

namespace hw::tools {
namespace {

constexpr std::array<metadata_version_info, 25> k_versions{{
    {7, "3.3-IV3", "3.3"},  {8, "3.4-IV0", "3.4"},  {9, "3.5-IV0", "3.5"},  {10, "3.5-IV1", "3.5"},
    {11, "3.5-IV2", "3.5"}, {12, "3.6-IV0", "3.6"}, {13, "3.6-IV1", "3.6"}, {14, "3.6-IV2", "3.6"},
    {15, "3.7-IV0", "3.7"}, {16, "3.7-IV1", "3.7"}, {17, "3.7-IV2", "3.7"}, {18, "3.7-IV3", "3.7"},
    {19, "3.7-IV4", "3.7"}, {20, "3.8-IV0", "3.8"}, {21, "3.9-IV0", "3.9"}, {22, "4.0-IV0", "4.0"},
    {23, "4.0-IV1", "4.0"}, {24, "4.0-IV2", "4.0"}, {25, "4.0-IV3", "4.0"}, {26, "4.1-IV0", "4.1"},
    {27, "4.1-IV1", "4.1"}, {28, "4.2-IV0", "4.2"}, {29, "4.2-IV1", "4.2"}, {30, "4.3-IV0", "4.3"},
    {31, "4.4-IV0", "4.4"},
}};

}  // namespace

std::span<const metadata_version_info> metadata_versions() { return k_versions; }

const metadata_version_info* metadata_version_by_level(int16_t level) {
  for (const auto& v : k_versions)
    if (v.level == level) return &v;
  return nullptr;
}

const metadata_version_info* metadata_version_from_string(std::string_view text, bool allow_unstable) {
  // Past two dot-separated parts only the first two count ("3.7.1" is 3.7).
  std::string_view key = text;
  if (auto first = text.find('.'); first != std::string_view::npos)
    if (auto second = text.find('.', first + 1); second != std::string_view::npos) key = text.substr(0, second);
  const metadata_version_info* found = nullptr;
  for (const auto& v : k_versions)
    if (v.name == key) found = &v;
  // A bare release names its newest production version.
  for (const auto& v : k_versions)
    if (v.release == key && v.level <= latest_production_metadata_level) found = &v;
  if (!found || (!allow_unstable && found->level > latest_production_metadata_level)) return nullptr;
  return found;
}

std::string metadata_versions_between(int16_t first, int16_t last) {
  std::string out;
  for (const auto& v : k_versions)
    if (v.level >= first && v.level <= last) out += (out.empty() ? "" : ", ") + std::string(v.name);
  return out;
}

std::string unknown_metadata_version_message(std::string_view text, bool allow_unstable) {
  return "Unknown metadata.version '" + std::string(text) + "'. Supported metadata.version are: " +
         metadata_versions_between(minimum_metadata_level,
                                   allow_unstable ? latest_testing_metadata_level : latest_production_metadata_level);
}

int16_t feature_info::default_level(int16_t metadata_level) const {
  int16_t level = versions.front().level;
  for (const auto& v : versions) {
    if (v.bootstrap_metadata_level > metadata_level) break;
    level = v.level;
  }
  return level;
}

const feature_version_info* feature_info::version(int16_t level, bool allow_unstable) const {
  for (const auto& v : versions)
    if (v.level == level && (allow_unstable || level <= latest_production)) return &v;
  return nullptr;
}

const std::vector<feature_info>& production_features() {
  static const std::vector<feature_info> features{
      {"kraft.version", {{0, 7, {}}, {1, 21, {}}}, 1},
      {"transaction.version", {{0, 7, {}}, {1, 24, {}}, {2, 24, {}}}, 2},
      {"group.version", {{0, 7, {}}, {1, 22, {}}}, 1},
      {"eligible.leader.replicas.version", {{0, 7, {}}, {1, 26, {{"metadata.version", 23}}}}, 1},
      {"share.version", {{0, 7, {}}, {1, 28, {}}}, 1},
      {"streams.version", {{0, 7, {}}, {1, 29, {}}}, 1},
  };
  return features;
}

const feature_info* feature_by_name(std::string_view name) {
  for (const auto& f : production_features())
    if (f.name == name) return &f;
  return nullptr;
}

std::string dependencies_text(const std::string& head, const feature_version_info& version) {
  if (version.dependencies.empty()) return head + " has no dependencies.\n";
  std::string out = head + " requires:\n";
  for (const auto& [dep, dep_level] : version.dependencies) {
    out += "    " + dep + "=" + std::to_string(dep_level);
    if (dep == "metadata.version") out += " (" + std::string(metadata_version_by_level(dep_level)->name) + ")";
    out += "\n";
  }
  return out;
}

std::string version_mapping_text(const metadata_version_info& version, std::string_view as_given) {
  std::string out = "metadata.version=" + std::to_string(version.level) + " (" + std::string(as_given) + ")\n";
  for (const auto& f : production_features())
    out += std::string(f.name) + "=" + std::to_string(f.default_level(version.level)) + "\n";
  return out;
}

std::optional<int16_t> java_parse_short(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  int value = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || p != digits.data() + digits.size()) return std::nullopt;
  if (negative) value = -value;
  if (value < -32768 || value > 32767) return std::nullopt;
  return static_cast<int16_t>(value);
}

}  // namespace hw::tools
